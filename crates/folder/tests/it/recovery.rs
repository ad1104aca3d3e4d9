//! After a killed write: unindexed memories get their line, temporary
//! files go, no memory is ever deleted.

use std::time::{Duration, SystemTime};

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, MemoryFolder, Repair};

#[test]
fn fix_indexes_orphans_from_their_frontmatter_and_removes_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("MEMORY.md"), "- [kept](kept.md) — already here\n").unwrap();
    std::fs::write(p.join("kept.md"), "---\nname: kept\n---\nx\n").unwrap();
    std::fs::write(
        p.join("orphan.md"),
        "---\nname: Orphan title\ndescription: left by a killed add\ntype: user\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(p.join("bare.md"), "no frontmatter at all\n").unwrap();
    std::fs::write(p.join(".memdir-tmp-0123456789abcdef.tmp"), "half").unwrap();
    std::fs::create_dir(p.join("team")).unwrap();
    std::fs::write(p.join("team/MEMORY.md"), "").unwrap();
    std::fs::write(p.join("team/t.md"), "team memory, indexed by its own index").unwrap();
    // `team/` has writers of its own lock: a temporary file there goes
    // only once it is stale.
    let old = p.join("team/.memdir-tmp-fedcba9876543210.tmp");
    std::fs::write(&old, "half").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(600))
        .unwrap();
    std::fs::write(p.join("team/.memdir-tmp-00000000live0000.tmp"), "writing").unwrap();

    let folder = MemoryFolder::open(p).unwrap();
    let report = folder
        .lock(DEFAULT_LOCK_TIMEOUT)
        .unwrap()
        .fix_index()
        .unwrap();
    assert_eq!(report.added, ["bare.md", "orphan.md"]);
    assert_eq!(report.temp_files_removed, 2);
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    let index = std::fs::read_to_string(p.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [kept](kept.md) — already here\n- [bare](bare.md)\n- [Orphan title](orphan.md) — left by a killed add\n"
    );
    assert_eq!(
        crate::all_files(p),
        [
            ".memdir.lock",
            "MEMORY.md",
            "bare.md",
            "kept.md",
            "orphan.md",
            "team/.memdir-tmp-00000000live0000.tmp",
            "team/MEMORY.md",
            "team/t.md"
        ]
    );

    // A second fix has nothing to do.
    let again = folder
        .lock(DEFAULT_LOCK_TIMEOUT)
        .unwrap()
        .fix_index()
        .unwrap();
    assert!(again.added.is_empty() && again.temp_files_removed == 0);
}

#[test]
fn the_next_locked_write_removes_only_old_temp_files_and_indexes_orphans() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let old = p.join(".memdir-tmp-aaaaaaaaaaaaaaaa.tmp");
    let young = p.join(".memdir-tmp-bbbbbbbbbbbbbbbb.tmp");
    std::fs::write(&old, "left by a killed write").unwrap();
    std::fs::write(&young, "maybe someone's write under way").unwrap();
    let file = std::fs::File::options().write(true).open(&old).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(120))
        .unwrap();
    drop(file);
    std::fs::write(
        p.join("orphan.md"),
        "---\ndescription: from a killed add\n---\n",
    )
    .unwrap();

    let folder = MemoryFolder::open(p).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    assert_eq!(lock.stale_temp_files_removed(), 1);
    assert!(!old.exists() && young.exists());
    let (file, text, entry) = crate::memory("new", "a new memory");
    let added = lock
        .add_memory(&file, &text, &entry, Repair::Orphans)
        .unwrap();
    assert_eq!(added.repaired, ["orphan.md"]);
    let index = std::fs::read_to_string(p.join("MEMORY.md")).unwrap();
    assert!(
        index.contains("(new.md)") && index.contains("(orphan.md) — from a killed add"),
        "{index}"
    );
}

#[test]
fn index_files_indexes_only_the_files_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("MEMORY.md"), "- [kept](kept.md) — already here\n").unwrap();
    std::fs::write(p.join("kept.md"), "---\nname: kept\n---\nx\n").unwrap();
    std::fs::write(
        p.join("written.md"),
        "---\nname: Written now\ndescription: by an agent's Write\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(
        p.join("pulled.md"),
        "---\nname: pulled\n---\nnot ours to index\n",
    )
    .unwrap();
    let folder = MemoryFolder::open(p).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    let added = lock
        .index_files(&[
            "written.md",
            "kept.md",
            "missing.md",
            "MEMORY.md",
            "written.md",
        ])
        .unwrap();
    assert_eq!(added, ["written.md"]);
    assert_eq!(
        std::fs::read_to_string(p.join("MEMORY.md")).unwrap(),
        "- [kept](kept.md) — already here\n- [Written now](written.md) — by an agent's Write\n"
    );
    // Nothing left to do: no second line, no write.
    assert!(lock.index_files(&["written.md"]).unwrap().is_empty());
}
