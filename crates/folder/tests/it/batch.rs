//! `add_memories`: many new memories under one hold of the lock and one
//! index write, with what each single add would refuse refused per memory.

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, MemoryFolder, Repair};

use crate::memory;

#[test]
fn a_batch_adds_each_memory_once_with_its_line_and_refuses_taken_names() {
    let dir = tempfile::tempdir().unwrap();
    let folder = MemoryFolder::create(&dir.path().join("memory")).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    let (file, text, entry) = memory("taken", "already here");
    lock.add_memory(&file, &text, &entry, Repair::Orphans)
        .unwrap();
    // An orphan an interrupted write left: the batch indexes it too.
    lock.write(
        "orphan.md",
        b"---\nname: orphan\ndescription: left behind\n---\nx\n",
    )
    .unwrap();
    let made: Vec<_> = ["a", "Taken", "b", "A", "c#1"]
        .iter()
        .map(|n| memory(n, &format!("about {n}")))
        .collect();
    let items: Vec<_> = made
        .iter()
        .map(|(f, t, e)| (f.as_str(), t.as_slice(), e))
        .collect();
    let added = lock.add_memories(&items, Repair::Orphans).unwrap();
    let outcomes: Vec<Option<String>> = added
        .outcomes
        .iter()
        .map(|o| match o {
            Ok(()) => None,
            Err(FolderError::AlreadyExists { existing, .. }) => Some(existing.clone()),
            Err(e) => panic!("{e}"),
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            None,
            Some("taken.md".into()),
            None,
            Some("a.md".into()),
            None
        ]
    );
    assert_eq!(added.repaired, ["orphan.md"]);
    let index = lock.read_index().unwrap();
    assert_eq!(
        index,
        "- [taken](taken.md) — already here\n- [a](a.md) — about a\n- [b](b.md) — about b\n\
         - [c#1](c%231.md) — about c#1\n- [orphan](orphan.md) — left behind\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("memory/taken.md")).unwrap(),
        String::from_utf8(text).unwrap(),
        "a refused memory changes nothing"
    );
}
