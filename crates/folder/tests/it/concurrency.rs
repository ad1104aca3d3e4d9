//! Many writers at once: nothing lost, one winner per name.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, MemoryFolder, Repair};

use crate::memory;

#[test]
fn eight_writers_of_eight_names_leave_eight_files_and_eight_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory");
    MemoryFolder::create(&path).unwrap();
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                // Each writer opens the folder itself, as a process would.
                let folder = MemoryFolder::open(&path).unwrap();
                let (file, text, entry) = memory(&format!("note-{i}"), "a note");
                barrier.wait();
                let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
                lock.add_memory(&file, &text, &entry, Repair::Orphans)
                    .unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let index = std::fs::read_to_string(path.join("MEMORY.md")).unwrap();
    for i in 0..8 {
        assert!(index.contains(&format!("(note-{i}.md)")), "{index}");
    }
    assert_eq!(index.lines().count(), 8, "{index}");
}

#[test]
fn of_eight_writers_of_one_name_exactly_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory");
    MemoryFolder::create(&path).unwrap();
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let folder = MemoryFolder::open(&path).unwrap();
                let (file, _, entry) = memory("same", "one of eight");
                let text = format!("writer {i}\n");
                barrier.wait();
                let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
                match lock.add_memory(&file, text.as_bytes(), &entry, Repair::Orphans) {
                    Ok(_) => Some(text),
                    Err(FolderError::AlreadyExists { .. }) => None,
                    Err(e) => panic!("{e}"),
                }
            })
        })
        .collect();
    let winners: Vec<String> = threads
        .into_iter()
        .filter_map(|t| t.join().unwrap())
        .collect();
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(
        std::fs::read_to_string(path.join("same.md")).unwrap(),
        winners[0],
        "the winner's text is the one on disk"
    );
}

#[test]
fn create_new_refuses_an_existing_name_even_without_the_case_check() {
    let dir = tempfile::tempdir().unwrap();
    let folder = MemoryFolder::create(dir.path()).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    lock.create_new("a/b.md", b"first").unwrap();
    let err = lock.create_new("a/b.md", b"second").unwrap_err();
    assert!(matches!(err, FolderError::AlreadyExists { .. }), "{err}");
    assert_eq!(std::fs::read(dir.path().join("a/b.md")).unwrap(), b"first");
    assert!(
        crate::all_files(dir.path())
            .iter()
            .all(|f| !f.contains(".memdir-tmp-")),
        "no temporary file is left"
    );
}

#[test]
fn a_waiter_that_gives_up_names_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = MemoryFolder::create(dir.path()).unwrap();
    let _held = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    let other = MemoryFolder::open(dir.path()).unwrap();
    let err = other.lock(Duration::from_millis(150)).unwrap_err();
    let FolderError::LockTimeout { holder, waited, .. } = &err else {
        panic!("{err}");
    };
    assert!(
        holder.contains(&format!("pid {}", std::process::id())),
        "{holder}"
    );
    assert!(*waited >= Duration::from_millis(150));
    assert!(
        err.to_string().contains("locked by another writer"),
        "{err}"
    );
}
