//! Scans of folders full of odd files: the cap, the exclusions, symbolic
//! links, bad names and contents, and cancellation.

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, SystemTime};

use memdir_memtypes::MemoryType;
use memdir_scan::{CancelToken, DiagnosticKind, Scan, ScanOptions, scan_memory_dir};

const BASE: u64 = 1_790_000_000;

/// Writes `content` to `dir/name` with an mtime of `BASE + age` seconds.
fn put(dir: &Path, name: &str, content: &[u8], secs: u64) {
    let path = dir.join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, content).unwrap();
    let file = File::options().write(true).open(&path).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(BASE + secs))
        .unwrap();
}

fn scan(dir: &Path) -> Scan {
    scan_memory_dir(dir, &ScanOptions::default(), &CancelToken::new()).unwrap()
}

fn kinds(scan: &Scan) -> Vec<String> {
    scan.diagnostics
        .iter()
        .map(|d| {
            format!(
                "{}: {:?}",
                d.path.file_name().unwrap().to_string_lossy(),
                d.kind
            )
        })
        .collect()
}

/// The odd files of a real folder, one of each flavour.
fn odd(i: usize) -> Vec<u8> {
    match i % 6 {
        0 => format!("---\r\nname: crlf-{i}\r\ndescription: CRLF memory {i}\r\ntype: project\r\n---\r\nBody\r\n").into_bytes(),
        1 => format!("\u{feff}---\nname: bom-{i}\ndescription: BOM memory {i}\ntype: user\n---\nBody\n").into_bytes(),
        2 => format!("---\nname: broken-{i}\ndescription: Note: broken YAML {i}\ntype: feedback\n---\n").into_bytes(),
        3 => format!("# No frontmatter {i}\n\nJust notes.\n").into_bytes(),
        4 => b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR binary".to_vec(),
        _ => format!("---\nname: plain-{i}\ndescription: Plain memory {i}\ntype: reference\n---\nBody\n").into_bytes(),
    }
}

#[test]
fn a_260_file_folder_of_odd_files_lists_the_200_newest_readable() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..260 {
        put(dir.path(), &format!("m{i:03}.md"), &odd(i), i as u64);
    }
    let s = scan(dir.path());
    assert_eq!(s.total_files, 260);
    // The 200 newest readable ones (R5.3): each binary file is skipped and
    // the next older file read in its place.
    let readable: Vec<String> = (0..260)
        .rev()
        .filter(|i| i % 6 != 4)
        .take(200)
        .map(|i| format!("m{i:03}.md"))
        .collect();
    // Every binary file newer than the oldest one listed was read and reported.
    let oldest: usize = readable[199][1..4].parse().unwrap();
    let binary = (oldest..260).filter(|i| i % 6 == 4).count();
    let names: Vec<&str> = s.memories.iter().map(|m| m.filename.as_str()).collect();
    assert_eq!(names, readable);
    assert!(
        s.memories
            .windows(2)
            .all(|w| w[0].mtime_ms >= w[1].mtime_ms),
        "newest first"
    );
    assert_eq!(
        s.memories[0].mtime_ms,
        i64::try_from((BASE + 259) * 1000).unwrap()
    );
    // Each flavour read as well as it can be.
    let by_name = |n: &str| s.memories.iter().find(|m| m.filename == n).unwrap();
    assert_eq!(
        by_name("m246.md").description.as_deref(),
        Some("CRLF memory 246")
    );
    assert_eq!(by_name("m247.md").memory_type, Some(MemoryType::User));
    assert_eq!(
        by_name("m248.md").description.as_deref(),
        Some("Note: broken YAML 248")
    );
    assert_eq!(by_name("m249.md").description, None);
    assert!(by_name("m249.md").body_head.contains("Just notes."));
    let binaries = s
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::Binary)
        .count();
    assert_eq!(binaries, binary);
    assert!(
        s.diagnostics
            .iter()
            .any(|d| matches!(d.kind, DiagnosticKind::Frontmatter(_)))
    );
}

#[test]
fn index_files_hidden_entries_and_other_files_are_not_memories() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "MEMORY.md", b"- [a](a.md)\n", 9);
    put(dir.path(), "sub/MEMORY.md", b"index\n", 9);
    put(dir.path(), "a.md", b"---\ntype: user\n---\n", 1);
    put(dir.path(), "sub/b.md", b"---\ntype: project\n---\n", 2);
    put(dir.path(), "notes.txt", b"text", 3);
    put(dir.path(), ".memdir-tmp-x.tmp", b"half", 4);
    put(dir.path(), ".conflicts/a.md.20261129", b"old", 5);
    put(dir.path(), ".hidden.md", b"x", 6);
    put(dir.path(), ".md", b"x", 7);
    let s = scan(dir.path());
    let names: Vec<&str> = s.memories.iter().map(|m| m.filename.as_str()).collect();
    assert_eq!(names, ["sub/b.md", "a.md"]);
    assert!(s.diagnostics.is_empty(), "{:?}", kinds(&s));
}

#[test]
fn the_private_scope_leaves_team_out() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "mine.md", b"x", 1);
    put(dir.path(), "team/shared.md", b"x", 2);
    put(dir.path(), "teamwork/other.md", b"x", 3);
    let private = scan_memory_dir(
        dir.path(),
        &ScanOptions::private_scope(),
        &CancelToken::new(),
    )
    .unwrap();
    let names: Vec<&str> = private
        .memories
        .iter()
        .map(|m| m.filename.as_str())
        .collect();
    assert_eq!(names, ["teamwork/other.md", "mine.md"]);
    assert_eq!(scan(dir.path()).memories.len(), 3);
}

#[test]
fn symbolic_links() {
    let outside = tempfile::tempdir().unwrap();
    put(
        outside.path(),
        "secret.md",
        b"---\ndescription: outside\n---\n",
        1,
    );
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "real.md", b"---\ndescription: real\n---\n", 2);
    put(dir.path(), "folder/inner.md", b"x", 3);
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
    };
    link(&outside.path().join("secret.md"), "escape.md");
    link(&dir.path().join("real.md"), "alias.md");
    link(&dir.path().join("folder"), "folder-link");
    link(&dir.path().join("nowhere.md"), "dangling.md");
    let s = scan(dir.path());
    let mut names: Vec<&str> = s.memories.iter().map(|m| m.filename.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["alias.md", "folder/inner.md", "real.md"]);
    let mut diags = kinds(&s);
    diags.sort();
    assert_eq!(
        diags,
        [
            "dangling.md: SymlinkOutside",
            "escape.md: SymlinkOutside",
            "folder-link: SymlinkedFolder"
        ]
    );
}

/// Reading named files holds the scan's rule: what a link or a linked
/// subfolder reaches outside the folder is never read, whoever names it.
#[test]
fn named_files_outside_the_folder_are_never_read() {
    let outside = tempfile::tempdir().unwrap();
    put(
        outside.path(),
        "secret.md",
        b"---\ndescription: outside\n---\n",
        1,
    );
    put(
        outside.path(),
        "sub/also.md",
        b"---\ndescription: outside too\n---\n",
        1,
    );
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "real.md", b"---\ndescription: real\n---\n", 2);
    put(
        dir.path(),
        "team/inner.md",
        b"---\ndescription: inner\n---\n",
        3,
    );
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
    };
    link(&outside.path().join("secret.md"), "escape.md");
    link(&dir.path().join("real.md"), "alias.md");
    link(&outside.path().join("sub"), "elsewhere");
    let names: Vec<String> = [
        "real.md",
        "alias.md",
        "team/inner.md",
        "escape.md",
        "elsewhere/also.md",
    ]
    .map(str::to_owned)
    .to_vec();
    let read = memdir_scan::read_memory_files(dir.path(), &names, 0);
    let got: Vec<String> = names
        .iter()
        .zip(&read)
        .map(|(name, r)| match r {
            Ok((header, _)) => format!("{name}: {}", header.description.as_deref().unwrap_or("")),
            Err(d) => format!("{name}: {:?}", d.kind),
        })
        .collect();
    assert_eq!(
        got,
        [
            "real.md: real",
            "alias.md: real",
            "team/inner.md: inner",
            "escape.md: SymlinkOutside",
            "elsewhere/also.md: SymlinkOutside",
        ]
    );
}

#[test]
fn names_that_are_not_utf8_are_reported() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name.md");
    fs::write(dir.path().join(name), b"x").unwrap();
    put(dir.path(), "good.md", b"x", 1);
    let s = scan(dir.path());
    assert_eq!(s.memories.len(), 1);
    assert_eq!(s.diagnostics.len(), 1);
    assert_eq!(s.diagnostics[0].kind, DiagnosticKind::NonUtf8Name);
}

/// A name that is not UTF-8 never becomes a lossy path naming another file:
/// with `bad-\u{fffd}-name.md` on disk beside `bad-\xff-name.md`, only the
/// real UTF-8 file is a memory, and the other is a diagnostic whose path
/// keeps its bytes (the message alone names it lossily). A folder so named
/// is not entered.
#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_is_skipped_never_converted() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"bad-\xff-name.md"));
    fs::write(&bad, b"---\ndescription: bytes\n---\n").unwrap();
    put(
        dir.path(),
        "bad-\u{fffd}-name.md",
        b"---\ndescription: lookalike\n---\n",
        1,
    );
    let bad_dir = dir.path().join(std::ffi::OsStr::from_bytes(b"sub-\xfe"));
    fs::create_dir(&bad_dir).unwrap();
    fs::write(bad_dir.join("inner.md"), b"x").unwrap();

    let s = scan(dir.path());
    assert_eq!(s.memories.len(), 1, "{:?}", s.memories);
    let m = &s.memories[0];
    assert_eq!(m.filename, "bad-\u{fffd}-name.md");
    assert_eq!(m.description.as_deref(), Some("lookalike"));
    assert_eq!(m.file_path, dir.path().join("bad-\u{fffd}-name.md"));
    let mut paths: Vec<_> = s.diagnostics.iter().map(|d| d.path.clone()).collect();
    paths.sort();
    assert_eq!(paths, [bad.clone(), bad_dir]);
    assert!(
        s.diagnostics
            .iter()
            .all(|d| d.kind == DiagnosticKind::NonUtf8Name)
    );
    let message = s
        .diagnostics
        .iter()
        .find(|d| d.path == bad)
        .unwrap()
        .to_string();
    assert!(
        message.ends_with("bad-\u{fffd}-name.md: name is not UTF-8; skipped"),
        "{message}"
    );
}

/// The folder's own path must be UTF-8: every memory's path is.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_whose_path_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(std::ffi::OsStr::from_bytes(b"mem-\xff"));
    put(&folder, "a.md", b"x", 1);
    let err = scan_memory_dir(&folder, &ScanOptions::default(), &CancelToken::new()).unwrap_err();
    assert!(
        matches!(err, memdir_scan::ScanError::FolderNotUtf8 { ref path } if *path == folder),
        "{err:?}"
    );
    assert!(!err.is_not_found());
}

#[test]
fn only_the_first_lines_are_read() {
    let dir = tempfile::tempdir().unwrap();
    // Frontmatter that starts after line 30 is never seen.
    let late = format!("{}---\ndescription: too late\n---\n", "\n".repeat(30));
    put(dir.path(), "late.md", late.as_bytes(), 1);
    // A frontmatter block longer than 30 lines is cut, without a complaint.
    let keys = (0..40).fold(String::new(), |acc, i| acc + &format!("k{i}: v\n"));
    let long = format!("---\ndescription: early\n{keys}type: user\n---\n");
    put(dir.path(), "long.md", long.as_bytes(), 2);
    // One enormous line is read only up to the byte cap.
    let mut huge = b"---\ndescription: huge\n---\n".to_vec();
    huge.extend(std::iter::repeat_n(b'z', 2_000_000));
    put(dir.path(), "huge.md", &huge, 3);
    let s = scan(dir.path());
    let by_name = |n: &str| s.memories.iter().find(|m| m.filename == n).unwrap();
    assert_eq!(by_name("late.md").description, None);
    assert_eq!(by_name("long.md").description.as_deref(), Some("early"));
    assert_eq!(by_name("long.md").memory_type, None);
    assert!(by_name("huge.md").body_head.len() <= memdir_scan::MAX_HEAD_BYTES);
    assert!(s.diagnostics.is_empty(), "{:?}", kinds(&s));
}

#[test]
fn a_cancelled_scan_stops() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..10 {
        put(dir.path(), &format!("m{i}.md"), b"x", i);
    }
    let cancel = CancelToken::new();
    cancel.cancel();
    let s = scan_memory_dir(dir.path(), &ScanOptions::default(), &cancel).unwrap();
    assert!(s.cancelled);
    assert!(s.memories.is_empty());
}

#[test]
fn a_missing_folder_is_an_error_that_says_so() {
    let err = scan_memory_dir(
        Path::new("/no/such/memory"),
        &ScanOptions::default(),
        &CancelToken::new(),
    )
    .unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(err.to_string(), "cannot scan memory folder /no/such/memory");
}

#[test]
fn unreadable_subfolders_and_files_are_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "ok.md", b"x", 1);
    // A folder named like a memory is walked, not read; one that cannot be
    // read as a file is reported.
    fs::create_dir_all(dir.path().join("folder.md/inner")).unwrap();
    put(dir.path(), "folder.md/inner/deep.md", b"x", 2);
    let s = scan(dir.path());
    let names: Vec<&str> = s.memories.iter().map(|m| m.filename.as_str()).collect();
    assert_eq!(names, ["folder.md/inner/deep.md", "ok.md"]);
}
