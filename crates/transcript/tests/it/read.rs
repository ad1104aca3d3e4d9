//! Reading files: only regular files, never a wait on a FIFO, and the
//! format chosen from the content.

use memdir_memtypes::ReadError;
use memdir_transcript::{Transcript, TranscriptError, read_transcript};

use crate::fixtures;

#[test]
fn a_missing_file_is_a_read_error() {
    let err = read_transcript(&fixtures().join("no-such.jsonl")).unwrap_err();
    let TranscriptError::Read(read) = &err else {
        panic!("{err:?}");
    };
    assert!(read.is_not_found(), "{err:?}");
    assert!(err.to_string().contains("no-such.jsonl"), "{err}");
}

#[test]
fn a_folder_is_refused() {
    let err = read_transcript(&fixtures()).unwrap_err();
    assert!(
        matches!(
            err,
            TranscriptError::Read(ReadError::NotAFile {
                kind: "a folder",
                ..
            })
        ),
        "{err:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("session.jsonl");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let err = read_transcript(&fifo).unwrap_err();
    assert!(
        matches!(
            err,
            TranscriptError::Read(ReadError::NotAFile { kind: "a FIFO", .. })
        ),
        "{err:?}"
    );
}

#[test]
fn the_format_is_chosen_from_the_content() {
    let dir = tempfile::tempdir().unwrap();
    // A message list in a file named .jsonl is still a message list.
    let list = dir.path().join("list.jsonl");
    std::fs::write(&list, r#"  [{"role":"user","content":"hi"}]"#).unwrap();
    let t = read_transcript(&list).unwrap();
    assert_eq!((t.messages.len(), t.skipped.len()), (1, 0), "{t:?}");
    // One JSONL event alone on its line is an event, not a list.
    let one = dir.path().join("one.json");
    std::fs::write(
        &one,
        r#"{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}"#,
    )
    .unwrap();
    let t = read_transcript(&one).unwrap();
    assert_eq!(t.messages[0].uuid(), Some("u"), "{t:?}");
    // An empty file is an empty transcript.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert_eq!(read_transcript(&empty).unwrap(), Transcript::default());
}
