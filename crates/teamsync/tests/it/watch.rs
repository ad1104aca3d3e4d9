//! The watcher (R8.8) against a real server, with a short debounce.

use std::path::Path;
use std::time::{Duration, Instant};

use memdir_teamsync::{Client, ErrorType, SyncResult, WatchError, WatchOptions, Watcher};

use crate::support::{Harness, client_for, read, start, write};

const DEBOUNCE: Duration = Duration::from_millis(200);
/// The longest a test waits for something that should happen.
const PATIENCE: Duration = Duration::from_secs(10);
/// How long a test listens for something that should not happen.
const QUIET: Duration = Duration::from_millis(700);

fn watch(client: Client) -> Watcher {
    Watcher::start(client, WatchOptions { debounce: DEBOUNCE }).unwrap()
}

fn next_push(w: &Watcher) -> SyncResult {
    w.results()
        .recv_timeout(PATIENCE)
        .expect("a push within the deadline")
}

fn assert_no_push(w: &Watcher) {
    if let Ok(r) = w.results().recv_timeout(QUIET) {
        panic!("unexpected push: {r:?}");
    }
}

/// Waits (bounded) until the server stores `key`.
fn wait_stored(h: &Harness, w: &Watcher, keys: &[&str]) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let stored = h.stored();
        if keys.iter().all(|k| stored.contains_key(*k)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "not stored: {keys:?}, have {stored:?}"
        );
        let _ = w.results().recv_timeout(Duration::from_millis(100));
    }
}

#[test]
fn a_written_file_is_pushed_after_the_debounce() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    let w = watch(h.client(dir.path()));
    assert!(w.initial_pull().success, "{:?}", w.initial_pull());
    let written = Instant::now();
    write(dir.path(), "a.md", "alpha\n");
    let r = next_push(&w);
    assert!(written.elapsed() >= DEBOUNCE);
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1);
    assert_eq!(h.stored()["a.md"], "alpha\n");
    // An explicit notify schedules the same push (nothing left to send).
    w.notify_write();
    let r = next_push(&w);
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 0);
    // The push's own state write scheduled nothing.
    assert_no_push(&w);
    w.stop();
}

#[test]
fn quick_writes_give_one_push() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    let w = watch(h.client(dir.path()));
    for i in 0..5 {
        write(dir.path(), &format!("k{i}.md"), &format!("entry {i}\n"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let r = next_push(&w);
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 5);
    assert_no_push(&w);
    assert_eq!(h.version(), 1);
    w.stop();
}

#[test]
fn files_in_a_new_nested_folder_are_pushed() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    let w = watch(h.client(dir.path()));
    let keys: Vec<String> = (0..10).map(|i| format!("x/y/z/f{i}.md")).collect();
    for k in &keys {
        write(dir.path(), k, "nested\n");
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    wait_stored(&h, &w, &keys);
    w.stop();
}

#[test]
fn the_startup_pull_does_not_cause_a_push() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(a.path(), "one.md", "1\n");
    write(a.path(), "deep/two.md", "2\n");
    assert!(h.client(a.path()).push().success);
    let version = h.version();

    let w = watch(h.client(b.path()));
    assert!(w.initial_pull().success, "{:?}", w.initial_pull());
    assert_eq!(w.initial_pull().files_pulled, 2);
    assert_eq!(read(b.path(), "deep/two.md"), "2\n");
    assert_no_push(&w);
    assert_eq!(h.version(), version);
    w.stop();
}

#[test]
fn missing_credentials_or_repository_refuse_to_start() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    let e = Watcher::start(client_for(&h.url(), dir.path()), WatchOptions::default()).unwrap_err();
    assert_eq!(e.error_type(), Some(ErrorType::NoOauth));
    let e = Watcher::start(
        h.client(dir.path()).with_repo(None),
        WatchOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.error_type(), Some(ErrorType::NoRepo));
    assert_eq!(WatchOptions::default().debounce, Duration::from_secs(2));
}

fn delete(team: &Path, key: &str) {
    std::fs::remove_file(team.join(key)).unwrap();
}

#[test]
fn an_auth_failure_suppresses_pushes_until_a_file_is_deleted() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old.md", "old\n");
    write(dir.path(), "older.md", "older\n");
    let client = client_for(&h.url(), dir.path()).with_token(Some("mdt_revoked".to_owned()));
    let w = watch(client);
    assert_eq!(w.initial_pull().error_type, Some(ErrorType::Auth));
    // The suppression is on record for `status`, in a hidden file.
    let marker = dir.path().join(memdir_teamsync::SUPPRESSED_FILE);
    assert!(
        std::fs::read_to_string(&marker).unwrap().contains("401"),
        "the reason is recorded"
    );

    // Suppressed: neither a change nor an explicit notify pushes.
    write(dir.path(), "new.md", "new\n");
    w.notify_write();
    assert_no_push(&w);

    // A deletion clears the suppression: the push is tried (and fails
    // again, which suppresses again).
    delete(dir.path(), "old.md");
    let r = next_push(&w);
    assert_eq!(r.error_type, Some(ErrorType::Auth), "{r:?}");
    write(dir.path(), "newer.md", "newer\n");
    assert_no_push(&w);

    // A second deletion clears it again.
    delete(dir.path(), "older.md");
    let r = next_push(&w);
    assert_eq!(r.error_type, Some(ErrorType::Auth), "{r:?}");
    assert_eq!(h.version(), 0);
    w.stop();
}

#[test]
fn a_team_folder_that_cannot_be_created_is_a_typed_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let team = file.join("team");
    // No server is needed: the folder fails before the first pull.
    let client = Client::new("http://127.0.0.1:9", &team)
        .with_token(Some("token".to_owned()))
        .with_repo(Some("owner/name".to_owned()));
    let Err(e) = Watcher::start(client, WatchOptions::default()) else {
        panic!("the watcher started on a folder below a file");
    };
    assert!(
        matches!(&e, WatchError::CreateFolder { path, .. } if *path == team),
        "{e:?}"
    );
    assert_eq!(e.to_string(), format!("cannot create {}", team.display()));
    let source = std::error::Error::source(&e).expect("the io error is the source");
    assert!(source.downcast_ref::<std::io::Error>().is_some());
    assert_eq!(e.error_type(), None);
}
