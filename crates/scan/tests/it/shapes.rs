//! Both frontmatter shapes in one folder (SPEC R2.5): types read from the
//! nested `metadata:` block, times from `modified`, and the cap of R5.3
//! counted in readable memories.

use std::fmt::Write;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use memdir_memtypes::{MemoryType, memory_age};
use memdir_scan::{
    CancelToken, DiagnosticKind, Scan, ScanOptions, format_manifest, iso_utc, scan_memory_dir,
};

/// Seconds since the epoch of the old files' mtimes (2023-11-14).
const BASE: u64 = 1_700_000_000;

fn ms(time: &str) -> i64 {
    time.parse::<jiff::Timestamp>().unwrap().as_millisecond()
}

/// Sets the mtime of `path` to `ms` milliseconds since the epoch.
fn set_mtime(path: &Path, ms: i64) {
    let file = File::options().write(true).open(path).unwrap();
    let at = SystemTime::UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap());
    file.set_modified(at).unwrap();
}

fn put(dir: &Path, name: &str, content: &[u8], secs: u64) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, content).unwrap();
    set_mtime(&path, i64::try_from((BASE + secs) * 1000).unwrap());
    path
}

fn scan_with(dir: &Path, options: &ScanOptions) -> Scan {
    scan_memory_dir(dir, options, &CancelToken::new()).unwrap()
}

fn names(scan: &Scan) -> Vec<&str> {
    scan.memories.iter().map(|m| m.filename.as_str()).collect()
}

fn memory(i: usize) -> Vec<u8> {
    format!("---\nname: m{i}\ndescription: Memory {i}\ntype: project\n---\nBody {i}\n").into_bytes()
}

/// The 200 newest memory names of `m000.md` … `m259.md`.
fn newest_200() -> Vec<String> {
    (60..260).rev().map(|i| format!("m{i:03}.md")).collect()
}

/// The case of the issue: 260 memories and one binary `*.md`, newer than
/// all of them. It is reported, and the 200 newest memories are listed.
#[test]
fn one_unreadable_file_among_the_newest_does_not_take_a_place() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..260 {
        put(dir.path(), &format!("m{i:03}.md"), &memory(i), i as u64);
    }
    let binary = put(
        dir.path(),
        "binary.md",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
        1000,
    );
    let s = scan_with(dir.path(), &ScanOptions::default());
    assert_eq!(s.total_files, 261);
    assert_eq!(s.memories.len(), 200);
    assert_eq!(names(&s), newest_200());
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
    assert_eq!(s.diagnostics[0].path, binary);
    assert_eq!(s.diagnostics[0].kind, DiagnosticKind::Binary);
}

/// Every way a listed file can fail to read, several of them among the
/// newest: each is reported and the next newest file is read instead.
#[cfg(unix)]
#[test]
fn unreadable_files_of_every_kind_give_their_place_to_the_next() {
    use rustix::fs::{CWD, Mode, mkfifoat};

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..260 {
        put(root, &format!("m{i:03}.md"), &memory(i), i as u64);
    }
    let mut skipped = vec![put(root, "binary.md", b"text\0more", 1000)];
    // A link to a FIFO inside the folder: listed as a file, but never read.
    // The FIFO is new, so the link is among the newest.
    fs::create_dir(root.join("pipes")).unwrap();
    mkfifoat(CWD, root.join("pipes/pipe"), Mode::RUSR | Mode::WUSR).unwrap();
    std::os::unix::fs::symlink(root.join("pipes/pipe"), root.join("pipe.md")).unwrap();
    skipped.push(root.join("pipe.md"));
    // A file without read permission; root reads it anyway, and then it is
    // a memory like the others.
    let locked = put(root, "locked.md", &memory(999), 999);
    let mut expected = newest_200();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    }
    if fs::read(&locked).is_err() {
        skipped.push(locked);
    } else {
        expected.insert(0, "locked.md".to_owned());
        expected.pop();
    }

    let s = scan_with(root, &ScanOptions::default());
    assert_eq!(names(&s), expected);
    let mut reported: Vec<&Path> = s.diagnostics.iter().map(|d| d.path.as_path()).collect();
    reported.sort();
    skipped.sort();
    assert_eq!(reported, skipped, "{:?}", s.diagnostics);
}

/// A cloned folder: every mtime is the checkout time, so only `modified`
/// tells the memories' ages apart. With a cap, the files are still chosen
/// by mtime (R5.3 reads only the newest), then listed by their time.
#[test]
fn modified_orders_and_dates_a_cloned_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let checkout = ms("2026-12-01T00:00:00Z");
    let now = ms("2026-12-15T00:00:00Z");
    let nested = |t: &str, modified: &str| {
        format!("---\nmetadata:\n  node_type: memory\n  type: {t}\n  modified: {modified}\n---\n")
    };
    for (name, text) in [
        ("old.md", nested("user", "2026-01-10T00:00:00Z")),
        ("recent.md", nested("feedback", "2026-12-10T06:00:00Z")),
        ("future.md", nested("project", "2099-01-01T00:00:00Z")),
        ("flat.md", "---\ntype: reference\n---\n".to_owned()),
    ] {
        fs::write(root.join(name), text).unwrap();
        set_mtime(&root.join(name), checkout);
    }
    let options = ScanOptions {
        now_ms: Some(now),
        ..ScanOptions::default()
    };
    let s = scan_with(root, &options);
    assert_eq!(names(&s), ["future.md", "recent.md", "flat.md", "old.md"]);
    let times: Vec<i64> = s.memories.iter().map(|m| m.mtime_ms).collect();
    assert_eq!(
        times,
        [
            now,
            ms("2026-12-10T06:00:00Z"),
            checkout,
            ms("2026-01-10T00:00:00Z")
        ]
    );
    let types: Vec<_> = s.memories.iter().map(|m| m.memory_type).collect();
    assert_eq!(
        types,
        [
            Some(MemoryType::Project),
            Some(MemoryType::Feedback),
            Some(MemoryType::Reference),
            Some(MemoryType::User)
        ]
    );

    // Capped at 2: the two newest files by mtime are read, whatever they
    // record, and listed by the time they record.
    set_mtime(&root.join("old.md"), checkout + 2000);
    set_mtime(&root.join("flat.md"), checkout + 1000);
    let capped = ScanOptions {
        max_files: 2,
        ..options
    };
    let s = scan_with(root, &capped);
    assert_eq!(names(&s), ["flat.md", "old.md"]);
}

/// Without a fixed "now", a future `modified` counts as the clock at scan
/// time.
#[test]
fn a_future_modified_counts_as_the_time_of_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a.md"),
        "---\nmetadata:\n  modified: 2099-01-01T00:00:00Z\n---\n",
    )
    .unwrap();
    let before = memdir_memtypes::unix_millis(SystemTime::now());
    let s = scan_with(dir.path(), &ScanOptions::default());
    let after = memdir_memtypes::unix_millis(SystemTime::now());
    assert!((before..=after).contains(&s.memories[0].mtime_ms));
}

/// The golden folder as if just cloned: every mtime is one checkout time.
#[test]
fn golden_manifest_of_a_mixed_folder() {
    let fixture = memdir_testkit::fixture("frontmatter-shapes/memory");
    let dir = tempfile::tempdir().unwrap();
    let checkout = ms("2026-12-01T00:00:00Z");
    let now = ms("2026-12-15T00:00:00Z");
    for entry in fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        let target = dir.path().join(entry.file_name());
        fs::copy(entry.path(), &target).unwrap();
        set_mtime(&target, checkout);
    }
    let options = ScanOptions {
        now_ms: Some(now),
        ..ScanOptions::default()
    };
    let s = scan_with(dir.path(), &options);
    let mut out = format!(
        "checkout (every mtime): {}\nnow: {}\n\n## manifest\n{}\n\n## ages\n",
        iso_utc(checkout),
        iso_utc(now),
        format_manifest(&s.memories)
    );
    for m in &s.memories {
        let _ = writeln!(out, "{}: {}", m.filename, memory_age(m.mtime_ms, now));
    }
    // Sorted: the order files are listed in is the filesystem's.
    out.push_str("\n## diagnostics\n");
    let mut diagnostics: Vec<String> = s
        .diagnostics
        .iter()
        .map(|d| {
            d.to_string()
                .replace(&format!("{}/", dir.path().display()), "")
        })
        .collect();
    diagnostics.sort();
    for d in diagnostics {
        let _ = writeln!(out, "{d}");
    }
    insta::assert_snapshot!("mixed_folder", out);
}
