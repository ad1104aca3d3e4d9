//! Which files a turn wrote (R15.3).

use std::time::SystemTime;

use memdir_filepersist::{Listing, PersistError, SkipReason, find_modified_files};

use crate::{age, turn_start, write};

fn rels(found: &memdir_filepersist::Found) -> Vec<&str> {
    found.files.iter().map(|f| f.rel.as_str()).collect()
}

fn skipped(found: &memdir_filepersist::Found, path: &str) -> Option<SkipReason> {
    found
        .skipped
        .iter()
        .find(|s| s.path == path)
        .map(|s| s.reason.clone())
}

#[test]
fn files_modified_since_the_turn_are_found_in_order_and_older_ones_counted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "b.md", b"new");
    write(root, "a/deep/er/chart.png", b"\x89PNG");
    write(root, ".hidden/notes.txt", b"kept too");
    write(root, "old.txt", b"before the turn");
    age(root, "old.txt");
    let found = find_modified_files(turn_start(), root).unwrap();
    assert_eq!(
        rels(&found),
        [".hidden/notes.txt", "a/deep/er/chart.png", "b.md"]
    );
    assert_eq!(found.unchanged, 1);
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    assert_eq!(found.files[2].len, 3);
    assert_eq!(
        found.root.as_deref(),
        Some(root.canonicalize().unwrap().as_path())
    );
}

#[test]
fn a_file_written_at_the_turn_start_itself_counts() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "now.txt", b"x");
    let mtime = std::fs::metadata(dir.path().join("now.txt"))
        .unwrap()
        .modified()
        .unwrap();
    let found = find_modified_files(mtime, dir.path()).unwrap();
    assert_eq!(rels(&found), ["now.txt"]);
    let later = mtime + std::time::Duration::from_millis(1);
    let found = find_modified_files(later, dir.path()).unwrap();
    assert!(found.files.is_empty());
    assert_eq!(found.unchanged, 1);
}

#[test]
fn many_files_are_stated_in_parallel_and_come_back_sorted() {
    let dir = tempfile::tempdir().unwrap();
    for i in (0..300).rev() {
        write(dir.path(), &format!("d{}/f{i:03}.txt", i % 7), b"x");
    }
    for i in 0..50 {
        age(dir.path(), &format!("d{}/f{i:03}.txt", i % 7));
    }
    let found = find_modified_files(turn_start(), dir.path()).unwrap();
    assert_eq!(found.files.len(), 250);
    assert_eq!(found.unchanged, 50);
    let names = rels(&found);
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[cfg(unix)]
#[test]
fn links_to_files_and_folders_outside_are_skipped_never_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"outside");
    write(outside.path(), "tree/more.txt", b"outside too");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "real.txt", b"inside");
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("file-link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("tree"), root.join("dir-link")).unwrap();
    // Even a link to a file inside the folder is not followed.
    std::os::unix::fs::symlink(root.join("real.txt"), root.join("inner-link")).unwrap();
    let found = find_modified_files(turn_start(), root).unwrap();
    assert_eq!(rels(&found), ["real.txt"]);
    for link in ["file-link", "dir-link", "inner-link"] {
        assert_eq!(skipped(&found, link), Some(SkipReason::Symlink), "{link}");
    }
}

#[cfg(unix)]
#[test]
fn fifos_and_sockets_are_skipped_without_being_opened() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "ok.txt", b"x");
    crate::mkfifo(&root.join("pipe"));
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let found = find_modified_files(turn_start(), root).unwrap();
    assert_eq!(rels(&found), ["ok.txt"]);
    assert_eq!(
        skipped(&found, "pipe"),
        Some(SkipReason::NotRegular { kind: "a FIFO" })
    );
    assert_eq!(
        skipped(&found, "sock"),
        Some(SkipReason::NotRegular { kind: "a socket" })
    );
}

#[test]
fn a_file_removed_between_listing_and_stat_is_skipped_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "stays.txt", b"x");
    write(dir.path(), "goes.txt", b"x");
    let listing = Listing::read(dir.path()).unwrap();
    assert_eq!(listing.len(), 2);
    std::fs::remove_file(dir.path().join("goes.txt")).unwrap();
    let found = listing.modified_since(turn_start());
    assert_eq!(rels(&found), ["stays.txt"]);
    assert_eq!(found.vanished(), 1);
    assert_eq!(skipped(&found, "goes.txt"), Some(SkipReason::Vanished));
}

#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_after_the_listing_is_not_followed_out() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "a.txt", b"outside");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sub/a.txt", b"inside");
    let listing = Listing::read(dir.path()).unwrap();
    std::fs::rename(dir.path().join("sub"), outside.path().join("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();
    let found = listing.modified_since(turn_start());
    assert!(found.files.is_empty(), "{:?}", found.files);
    assert_eq!(
        skipped(&found, "sub/a.txt"),
        Some(SkipReason::OutsideFolder)
    );
}

#[test]
fn a_missing_folder_holds_nothing_and_a_file_or_link_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let found = find_modified_files(SystemTime::UNIX_EPOCH, &dir.path().join("none")).unwrap();
    assert!(found.files.is_empty() && found.skipped.is_empty() && found.root.is_none());
    write(dir.path(), "file", b"x");
    let err = find_modified_files(SystemTime::UNIX_EPOCH, &dir.path().join("file")).unwrap_err();
    assert!(
        matches!(err, PersistError::OutputsNotAFolder { .. }),
        "{err}"
    );
    #[cfg(unix)]
    {
        std::fs::create_dir(dir.path().join("real")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("outputs")).unwrap();
        let err =
            find_modified_files(SystemTime::UNIX_EPOCH, &dir.path().join("outputs")).unwrap_err();
        assert!(
            matches!(
                err,
                PersistError::OutputsNotAFolder {
                    kind: "a symbolic link",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }
}
