//! Read: numbered windows of a text file; anything else refused.

use std::time::{Duration, Instant};

use memdir_tools::{ReadInput, ToolError, read_file};

fn input(path: &str) -> ReadInput {
    ReadInput {
        file_path: path.to_owned(),
        offset: None,
        limit: None,
    }
}

#[test]
fn lines_come_numbered_and_windowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\r\ntwo\nthree\nfour\n").unwrap();
    let all = read_file(dir.path(), &input("a.txt")).unwrap();
    assert_eq!(
        all,
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n"
    );
    let window = read_file(
        dir.path(),
        &ReadInput {
            offset: Some(2),
            limit: Some(2),
            ..input("a.txt")
        },
    )
    .unwrap();
    assert_eq!(
        window,
        "     2\ttwo\n     3\tthree\n… 1 more lines; read on with offset 4\n"
    );
    let past = read_file(
        dir.path(),
        &ReadInput {
            offset: Some(9),
            ..input("a.txt")
        },
    )
    .unwrap();
    assert!(past.contains("has 4 lines"), "{past}");
}

#[test]
fn an_absolute_path_is_read_as_given_and_long_lines_are_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.txt");
    std::fs::write(&path, "é".repeat(5000)).unwrap();
    let out = read_file(
        std::path::Path::new("/nonexistent-root"),
        &input(path.to_str().unwrap()),
    )
    .unwrap();
    assert!(
        out.ends_with(" …(line cut)\n"),
        "{}",
        &out[out.len() - 40..]
    );
    assert_eq!(out.chars().filter(|&c| c == 'é').count(), 2000);
}

#[test]
fn missing_binary_folder_and_fifo_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        read_file(dir.path(), &input("missing.txt")),
        Err(ToolError::NotFound { .. })
    ));
    std::fs::write(dir.path().join("bin"), b"ab\0cd").unwrap();
    assert!(matches!(
        read_file(dir.path(), &input("bin")),
        Err(ToolError::Binary { .. })
    ));
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let folder = read_file(dir.path(), &input("sub")).unwrap_err();
    assert!(
        folder.to_string().contains("not a regular file"),
        "{folder}"
    );
    #[cfg(unix)]
    {
        let fifo = dir.path().join("pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let start = Instant::now();
        let err = read_file(dir.path(), &input("pipe")).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(2));
        assert!(err.to_string().contains("FIFO"), "{err}");
    }
}
