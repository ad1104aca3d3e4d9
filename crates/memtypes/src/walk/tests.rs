//! Tests of the folder walk.

use super::*;
use std::fs;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("b.md"), "b").unwrap();
    fs::write(root.join(".tmp-x.md"), "temp").unwrap();
    fs::create_dir_all(root.join("a/.conflicts")).unwrap();
    fs::write(root.join("a/.conflicts/c.md.1"), "old").unwrap();
    fs::write(root.join("a/c.md"), "c").unwrap();
    fs::create_dir_all(root.join(".git/objects")).unwrap();
    fs::write(root.join(".git/objects/x.md"), "x").unwrap();
    dir
}

fn rels(walk: Walk) -> Vec<(String, EntryKind)> {
    walk.into_iter()
        .map(|e| {
            let e = e.unwrap();
            (e.rel().to_owned(), e.kind())
        })
        .collect()
}

#[test]
fn hidden_entries_are_left_out_at_any_depth_and_not_descended() {
    let dir = tree();
    assert_eq!(
        rels(Walk::new(dir.path())),
        [
            ("a".to_owned(), EntryKind::Folder),
            ("a/c.md".to_owned(), EntryKind::File),
            ("b.md".to_owned(), EntryKind::File),
        ]
    );
}

#[test]
fn hidden_entries_can_be_included() {
    let dir = tree();
    let got: Vec<String> = rels(Walk::new(dir.path()).hidden(Hidden::Include))
        .into_iter()
        .map(|(rel, _)| rel)
        .collect();
    assert_eq!(
        got,
        [
            ".git",
            ".git/objects",
            ".git/objects/x.md",
            ".tmp-x.md",
            "a",
            "a/.conflicts",
            "a/.conflicts/c.md.1",
            "a/c.md",
            "b.md",
        ]
    );
}

#[test]
fn a_folder_can_be_skipped_by_the_caller() {
    let dir = tree();
    let mut it = Walk::new(dir.path()).into_iter();
    let mut got = Vec::new();
    while let Some(e) = it.next() {
        let e = e.unwrap();
        if e.rel() == "a" {
            it.skip_current_dir();
        }
        got.push(e.rel().to_owned());
    }
    assert_eq!(got, ["a", "b.md"]);
}

#[test]
fn entries_carry_full_paths_names_and_depths() {
    let dir = tree();
    let e = Walk::new(dir.path())
        .into_iter()
        .map(Result::unwrap)
        .find(|e| e.rel() == "a/c.md")
        .unwrap();
    assert_eq!(e.path(), dir.path().join("a/c.md"));
    assert_eq!(e.name(), "c.md");
    assert_eq!(e.depth(), 2);
    assert_eq!(e.into_path(), dir.path().join("a/c.md"));
}

#[test]
fn the_rule_judges_names_not_paths() {
    assert!(is_hidden(OsStr::new(".sync-state.json")));
    assert!(is_hidden(OsStr::new(".")));
    assert!(!is_hidden(OsStr::new("a.md")));
    assert!(!is_hidden(OsStr::new("")));
    assert!(is_hidden_path(Path::new("a/.conflicts/b.md")));
    assert!(!is_hidden_path(Path::new("a/b.md")));
    assert!(!is_hidden_path(Path::new("./a/../b.md")));
}

#[test]
fn depth_and_entry_limits_bound_the_walk() {
    let dir = tree();
    assert_eq!(
        rels(Walk::new(dir.path()).max_depth(1)),
        [
            ("a".to_owned(), EntryKind::Folder),
            ("b.md".to_owned(), EntryKind::File),
        ]
    );
    // Hidden entries count: `.git`, `.tmp-x.md`, `a`, `a/.conflicts`, then
    // `a/c.md` is one too many.
    let got: Vec<_> = Walk::new(dir.path()).max_entries(4).into_iter().collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].as_ref().unwrap().rel(), "a");
    let Err(WalkError::TooManyEntries { limit: 4, root }) = &got[1] else {
        panic!("{got:?}");
    };
    assert_eq!(root, dir.path());
}

#[test]
fn a_missing_root_or_a_file_root_is_a_root_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none");
    let got: Vec<_> = Walk::new(&missing).into_iter().collect();
    assert_eq!(got.len(), 1);
    let err = got.into_iter().next().unwrap().unwrap_err();
    assert!(matches!(err, WalkError::Root { .. }), "{err:?}");
    assert!(err.is_not_found());
    assert_eq!(err.path(), missing);
    assert_eq!(err.into_io_error().kind(), io::ErrorKind::NotFound);

    let file = dir.path().join("f.md");
    fs::write(&file, "x").unwrap();
    let got: Vec<_> = Walk::new(&file).into_iter().collect();
    let [Err(WalkError::Root { source, .. })] = &got[..] else {
        panic!("{got:?}");
    };
    assert_eq!(source.kind(), io::ErrorKind::NotADirectory);
}

#[test]
fn an_empty_root_yields_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Walk::new(dir.path()).into_iter().next().is_none());
}

#[cfg(unix)]
#[test]
fn links_are_reported_not_followed_but_a_linked_root_is_walked() {
    use std::os::unix::fs::symlink;
    let dir = tree();
    let root = dir.path();
    symlink(root.join("a"), root.join("to-a")).unwrap();
    symlink(root.join("b.md"), root.join("to-b.md")).unwrap();
    symlink(root.join("nowhere"), root.join("dangling.md")).unwrap();
    let got = rels(Walk::new(root));
    assert!(got.contains(&("to-a".to_owned(), EntryKind::Symlink)));
    assert!(got.contains(&("to-b.md".to_owned(), EntryKind::Symlink)));
    assert!(got.contains(&("dangling.md".to_owned(), EntryKind::Symlink)));
    assert!(
        !got.iter().any(|(rel, _)| rel.starts_with("to-a/")),
        "{got:?}"
    );

    let outer = tempfile::tempdir().unwrap();
    let link = outer.path().join("memory");
    symlink(root, &link).unwrap();
    let got = rels(Walk::new(&link));
    assert_eq!(got.len(), 6, "{got:?}");
    let first = Walk::new(&link).into_iter().next().unwrap().unwrap();
    assert_eq!(first.path(), link.join("a"));
}

#[cfg(unix)]
#[test]
fn special_files_are_reported_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo.md"),
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock.md")).unwrap();
    let got = rels(Walk::new(root));
    assert_eq!(
        got,
        [
            ("fifo.md".to_owned(), EntryKind::Fifo),
            ("sock.md".to_owned(), EntryKind::Socket),
        ]
    );
    assert_eq!(EntryKind::Fifo.describe(), "a FIFO");
    assert_eq!(EntryKind::Socket.describe(), "a socket");
    assert_eq!(EntryKind::Device.describe(), "a device");
}

/// A name that is not UTF-8 is an error item with its bytes intact, a
/// folder so named is not descended into, and the walk goes on.
#[cfg(target_os = "linux")]
#[test]
fn non_utf8_names_are_typed_items_never_lossy_paths() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bad_file = root.join(OsStr::from_bytes(b"caf\xe9.md"));
    let bad_dir = root.join(OsStr::from_bytes(b"dir\xff"));
    fs::write(&bad_file, "x").unwrap();
    fs::create_dir(&bad_dir).unwrap();
    fs::write(bad_dir.join("inner.md"), "x").unwrap();
    fs::write(root.join("ok.md"), "x").unwrap();
    // A hidden name that is not UTF-8 is hidden all the same.
    fs::write(root.join(OsStr::from_bytes(b".\xff")), "x").unwrap();

    let got: Vec<_> = Walk::new(root).into_iter().collect();
    assert_eq!(got.len(), 3, "{got:?}");
    let mut bad = Vec::new();
    for item in got {
        match item {
            Ok(e) => assert_eq!(e.rel(), "ok.md"),
            Err(WalkError::NonUtf8Name { path, kind }) => bad.push((path, kind)),
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(
        bad,
        [
            (bad_file.clone(), EntryKind::File),
            (bad_dir, EntryKind::Folder)
        ]
    );
    let err = WalkError::NonUtf8Name {
        path: bad_file,
        kind: EntryKind::File,
    };
    assert!(err.to_string().contains("caf\u{fffd}.md"), "{err}");
    assert_eq!(err.into_io_error().kind(), io::ErrorKind::InvalidData);
}
