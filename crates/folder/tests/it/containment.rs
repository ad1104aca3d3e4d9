//! Writes never leave the folder, whatever sits on the path.

use std::os::unix::fs::symlink;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, MemoryFolder, Repair};

#[test]
fn a_folder_swapped_for_a_symlink_is_refused_and_nothing_lands_outside() {
    let dir = tempfile::tempdir().unwrap();
    let team = dir.path().join("team");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(team.join("notes")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let folder = MemoryFolder::open(&team).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    lock.write("notes/a.md", b"inside").unwrap();

    // The folder is swapped for a link to outside after the folder was
    // opened: the next write through it must be refused.
    std::fs::rename(team.join("notes"), dir.path().join("moved")).unwrap();
    symlink(&outside, team.join("notes")).unwrap();
    let err = lock.write("notes/b.md", b"escaped?").unwrap_err();
    assert!(matches!(err, FolderError::Escape { .. }), "{err}");
    assert!(err.is_refusal());
    let err = lock.create_new("notes/c.md", b"escaped?").unwrap_err();
    assert!(matches!(err, FolderError::Escape { .. }), "{err}");
    assert!(
        crate::all_files(&outside).is_empty(),
        "nothing written outside"
    );

    // A link to a folder inside is refused as well: writes never traverse
    // a link.
    std::fs::remove_file(team.join("notes")).unwrap();
    std::fs::create_dir(team.join("real")).unwrap();
    symlink(team.join("real"), team.join("notes")).unwrap();
    assert!(matches!(
        lock.write("notes/d.md", b"x"),
        Err(FolderError::Escape { .. })
    ));
}

#[test]
fn a_symlinked_file_is_replaced_not_followed_and_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("secret.txt");
    std::fs::write(&outside, b"precious").unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir(&mem).unwrap();
    symlink(&outside, mem.join("a.md")).unwrap();
    let folder = MemoryFolder::open(&mem).unwrap();
    let err = folder.read("a.md", 100).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    lock.write("a.md", b"new").unwrap();
    assert_eq!(std::fs::read(&outside).unwrap(), b"precious");
    assert!(
        std::fs::symlink_metadata(mem.join("a.md"))
            .unwrap()
            .is_file()
    );
}

#[test]
fn a_fifo_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    rustix_mkfifo(&dir.path().join("MEMORY.md"));
    let folder = MemoryFolder::open(dir.path()).unwrap();
    let err = folder.read("MEMORY.md", 100).unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    let (file, text, entry) = crate::memory("a", "b");
    let err = lock
        .add_memory(&file, &text, &entry, Repair::Orphans)
        .unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    assert!(
        !dir.path().join("a.md").exists(),
        "nothing written when the index is unusable"
    );
}

#[test]
fn hostile_relative_paths_are_refused_before_any_disk_access() {
    let dir = tempfile::tempdir().unwrap();
    let folder = MemoryFolder::open(dir.path()).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    for bad in [
        "../x.md",
        "/etc/passwd",
        "a/../../x.md",
        "a//b",
        "",
        "a\\..\\b",
        "a\0b",
    ] {
        let err = lock.write(bad, b"x").unwrap_err();
        assert!(
            matches!(err, FolderError::InvalidPath { .. }),
            "{bad:?}: {err}"
        );
    }
    assert!(!dir.path().parent().unwrap().join("x.md").exists());
}

#[test]
fn a_file_where_the_folder_belongs_is_not_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    assert!(matches!(
        MemoryFolder::open(&file),
        Err(FolderError::NotAFolder { .. })
    ));
    assert!(matches!(
        MemoryFolder::create(&file.join("sub")),
        Err(FolderError::NotAFolder { .. } | FolderError::Open { .. })
    ));
}

fn rustix_mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}
