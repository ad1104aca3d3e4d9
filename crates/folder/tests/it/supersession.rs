//! A memory that replaces others: they are marked, leave the index, and
//! stay unindexed through every repair; hostile names are never followed.

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, MemoryFolder};

fn write(p: &std::path::Path, rel: &str, text: &str) {
    std::fs::write(p.join(rel), text).unwrap();
}

#[test]
fn the_replaced_memory_is_marked_and_leaves_the_index_for_good() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    write(
        p,
        "MEMORY.md",
        "- [Deploy](deploy.md) — make deploy\n- [Other](other.md) — kept\n- [CI](ci.md) — new\n",
    );
    write(
        p,
        "deploy.md",
        "---\nname: deploy\n# the old way\nmetadata:\n  type: project\n---\nmake deploy\n",
    );
    write(p, "other.md", "---\nname: other\n---\nx\n");
    write(
        p,
        "ci.md",
        "---\nname: ci\nsupersedes: [deploy.md]\n---\npush a tag\n",
    );
    let folder = MemoryFolder::open(p).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    let marked = lock.apply_supersession(&["ci.md"]).unwrap();
    assert_eq!(marked, [("deploy.md".to_owned(), "ci.md".to_owned())]);
    assert_eq!(
        std::fs::read_to_string(p.join("deploy.md")).unwrap(),
        "---\nname: deploy\n# the old way\nmetadata:\n  type: project\nsupersededBy: ci.md\n---\nmake deploy\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("MEMORY.md")).unwrap(),
        "- [Other](other.md) — kept\n- [CI](ci.md) — new\n"
    );
    // A repair never gives the replaced memory its line back, and a line a
    // person added back is reported and removed by the fix.
    let report = lock.fix_index().unwrap();
    assert!(report.added.is_empty(), "{:?}", report.added);
    std::fs::write(
        p.join("MEMORY.md"),
        "- [Other](other.md) — kept\n- [CI](ci.md) — new\n- [Deploy](deploy.md) — back\n",
    )
    .unwrap();
    let report = lock.fix_index().unwrap();
    assert_eq!(report.superseded_removed, ["deploy.md"]);
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    assert!(lock.index_files(&["deploy.md"]).unwrap().is_empty());
    // Applying it again changes nothing.
    let before = std::fs::read(p.join("deploy.md")).unwrap();
    lock.apply_supersession(&["ci.md"]).unwrap();
    assert_eq!(std::fs::read(p.join("deploy.md")).unwrap(), before);
}

#[test]
fn names_that_would_leave_the_folder_or_name_nothing_are_ignored() {
    let root = tempfile::tempdir().unwrap();
    let p = root.path().join("memory");
    std::fs::create_dir(&p).unwrap();
    std::fs::write(
        root.path().join("outside.md"),
        "---\nname: outside\n---\nmine\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.path().join("outside.md"), p.join("link.md")).unwrap();
    write(&p, "MEMORY.md", "- [New](new.md) — new\n");
    write(
        &p,
        "new.md",
        "---\nname: new\nsupersedes:\n  - ../outside.md\n  - /etc/passwd.md\n  - MEMORY.md\n  - missing.md\n  - link.md\n  - new.md\n  - sub/../new.md\n---\nx\n",
    );
    let folder = MemoryFolder::open(&p).unwrap();
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT).unwrap();
    // The link is refused by the folder handle, which never follows one;
    // the other names are not memory files of this folder.
    let marked = lock.apply_supersession(&["new.md"]).unwrap();
    assert!(marked.is_empty(), "{marked:?}");
    assert_eq!(
        std::fs::read_to_string(root.path().join("outside.md")).unwrap(),
        "---\nname: outside\n---\nmine\n"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("MEMORY.md")).unwrap(),
        "- [New](new.md) — new\n"
    );
}
