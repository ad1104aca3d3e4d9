//! Unit tests of the SQLite backend, on temporary files.

use super::*;
use crate::store::{IfMatch, Limits};

const LIMITS: Limits = Limits { max_entries: 3 };

fn store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("t.db")).expect("open");
    (dir, store)
}

fn entries(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// [`Store::put`] with the request's parts as arguments.
fn put(
    store: &SqliteStore,
    org: &str,
    repo: &str,
    entries: &BTreeMap<String, String>,
    if_match: &IfMatch,
    limits: Limits,
) -> Result<PutOutcome, StoreError> {
    store.put(&PutRequest {
        org,
        repo,
        entries,
        if_match,
        limits,
    })
}

fn accepted(outcome: PutOutcome) -> RepoState {
    match outcome {
        PutOutcome::Accepted(state) => state,
        other => panic!("expected Accepted, got {other:?}"),
    }
}

#[test]
fn opens_migrated_in_wal_mode() {
    let (_dir, store) = store();
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    let (mode, sync) = store
        .write(|conn| {
            let mode: String = conn
                .pragma_query_value(None, "journal_mode", |r| r.get(0))
                .map_err(db)?;
            let sync: i64 = conn
                .pragma_query_value(None, "synchronous", |r| r.get(0))
                .map_err(db)?;
            Ok((mode, sync))
        })
        .expect("pragmas");
    assert_eq!(mode, "wal");
    assert_eq!(sync, 2, "synchronous=FULL on the connection that commits");
}

#[test]
fn reopening_keeps_data_and_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        accepted(
            put(
                &store,
                "o",
                "a/b",
                &entries(&[("k", "v")]),
                &IfMatch::Absent,
                LIMITS,
            )
            .expect("put"),
        );
    }
    let store = SqliteStore::open(&path).expect("reopen");
    let state = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(state.version, 1);
    assert_eq!(state.entries, Some(entries(&[("k", "v")])));
}

#[test]
fn refuses_a_newer_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    {
        let conn = Connection::open(&path).expect("open");
        conn.pragma_update(None, "user_version", 99).expect("set");
    }
    match SqliteStore::open(&path) {
        Err(StoreError::SchemaTooNew {
            found: 99,
            supported,
        }) => assert_eq!(supported, SCHEMA_VERSION),
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
}

#[test]
fn tokens_are_stored_only_as_hashes() {
    let (_dir, store) = store();
    let t = store.create_token("acme").expect("token");
    assert!(t.token.starts_with(&t.prefix));
    let stored = token_rows(&store);
    let secret = &t.token[t.prefix.len() + 1..];
    assert!(stored.iter().all(|row| !row.contains(secret)));
    assert_eq!(store.verify_token("mdt_nope").expect("verify"), None);
    assert!(matches!(
        store.revoke_token("nope"),
        Err(StoreError::InvalidTokenPrefix(_))
    ));
    assert!(store.revoke_token(&t.token).expect("revoke"));
    assert!(!store.revoke_token(&t.prefix).expect("revoke again"));
    assert!(matches!(
        store.create_token(""),
        Err(StoreError::InvalidOrganization(_))
    ));
}

/// Every token row, as one string each.
fn token_rows(store: &SqliteStore) -> Vec<String> {
    store
        .read(|conn| {
            conn.prepare("SELECT id || ' ' || org || ' ' || hash FROM tokens")
                .map_err(db)?
                .query_map([], |r| r.get(0))
                .map_err(db)?
                .collect::<Result<_, _>>()
                .map_err(db)
        })
        .expect("rows")
}

fn insert_token_row(conn: &Connection, id: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO tokens (id, org, hash, created_ms) VALUES (?1, 'o', ?1, 0)",
        params![id],
    )
    .map(drop)
    .map_err(db)
}

#[test]
fn writes_waiting_together_commit_together_and_fail_alone() {
    let (_dir, store) = store();
    let store = Arc::new(store);
    // The first write holds the writer while three more queue up behind
    // it; those three are one batch.
    let slow = {
        let store = Arc::clone(&store);
        std::thread::spawn(move || {
            store.write(|conn| {
                std::thread::sleep(Duration::from_millis(300));
                insert_token_row(conn, "first")
            })
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    let queued: Vec<_> = ["good-1", "bad", "good-2"]
        .into_iter()
        .map(|id| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                store.write(move |conn| {
                    insert_token_row(conn, id)?;
                    if id == "bad" {
                        return Err(StoreError::InvalidOrganization("bad".to_owned()));
                    }
                    Ok(())
                })
            })
        })
        .collect();
    assert!(slow.join().expect("join").is_ok());
    let results: Vec<_> = queued
        .into_iter()
        .map(|t| t.join().expect("join").is_ok())
        .collect();
    assert_eq!(results, [true, false, true]);
    let ids: Vec<String> = token_rows(&store)
        .iter()
        .map(|row| row.split(' ').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    for id in ["first", "good-1", "good-2"] {
        assert!(ids.iter().any(|i| i == id), "{id} missing from {ids:?}");
    }
}

#[test]
fn an_in_memory_database_reads_what_it_wrote() {
    let store = SqliteStore::open(Path::new(":memory:")).expect("open");
    accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("k", "v")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    let state = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(state.entries, Some(entries(&[("k", "v")])));
    let t = store.create_token("acme").expect("token");
    assert_eq!(
        store.verify_token(&t.token).expect("verify").as_deref(),
        Some("acme")
    );
}

/// A database of the first schema, with entries, opens migrated: its
/// entries are kept and their changes read as not recorded (version 0)
/// until a write changes them.
#[test]
fn a_first_schema_database_is_migrated_with_its_entries() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    {
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch(MIGRATIONS[0]).expect("schema 1");
        conn.pragma_update(None, "user_version", 1).expect("set");
        conn.execute(
            "INSERT INTO repos VALUES ('o', 'a/b', 4, 1000, 'sha256:x')",
            [],
        )
        .expect("repo");
        conn.execute(
            "INSERT INTO entries VALUES ('o', 'a/b', 'k.md', 'old', ?1)",
            [memdir_protocol::entry_checksum("old")],
        )
        .expect("entry");
    }
    let store = SqliteStore::open(&path).expect("open migrated");
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    let state = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(state.entries, Some(entries(&[("k.md", "old")])));
    assert_eq!(state.entry_changes["k.md"].version, 0);
    assert_eq!(state.entry_changes["k.md"].modified, None);
}

/// A database written before keys that name one file were refused, with
/// such a pair, opens migrated: both keys read, both can be written, and
/// a third spelling is refused naming the first of the pair.
#[test]
fn keys_that_name_one_file_from_an_older_schema_keep_working() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.db");
    {
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch(MIGRATIONS[0]).expect("schema 1");
        conn.execute_batch(MIGRATIONS[1]).expect("schema 2");
        conn.pragma_update(None, "user_version", 2).expect("set");
        let sums = BTreeMap::from([
            (
                "Deploy.md".to_owned(),
                memdir_protocol::entry_checksum("upper"),
            ),
            (
                "deploy.md".to_owned(),
                memdir_protocol::entry_checksum("lower"),
            ),
        ]);
        conn.execute(
            "INSERT INTO repos VALUES ('o', 'a/b', 2, 1000, ?1)",
            [memdir_protocol::repo_checksum(&sums)],
        )
        .expect("repo");
        for (key, text) in [("Deploy.md", "upper"), ("deploy.md", "lower")] {
            conn.execute(
                "INSERT INTO entries VALUES ('o', 'a/b', ?1, ?2, ?3, 0, 0)",
                params![key, text, sums[key]],
            )
            .expect("entry");
        }
    }
    let store = SqliteStore::open(&path).expect("open migrated");
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    let state = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(
        state.entries,
        Some(entries(&[("Deploy.md", "upper"), ("deploy.md", "lower")]))
    );
    let limits = Limits { max_entries: 10 };
    let state = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("Deploy.md", "UPPER"), ("deploy.md", "LOWER")]),
            &IfMatch::Checksum(state.checksum),
            limits,
        )
        .expect("put"),
    );
    assert_eq!(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("DEPLOY.md", "third")]),
            &IfMatch::Checksum(state.checksum),
            limits,
        )
        .expect("put"),
        PutOutcome::KeyCollision {
            key: "DEPLOY.md".to_owned(),
            existing: "Deploy.md".to_owned(),
        }
    );
}

/// A path that is no regular file is refused before SQLite opens it, and
/// nothing is created beside it or where a dangling link points.
#[cfg(unix)]
#[test]
fn a_path_that_is_no_regular_file_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("fifo.db");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let folder = dir.path().join("folder.db");
    std::fs::create_dir(&folder).expect("folder");
    let to_fifo = dir.path().join("to-fifo.db");
    std::os::unix::fs::symlink(&fifo, &to_fifo).expect("link");
    let dangling = dir.path().join("dangling.db");
    std::os::unix::fs::symlink(dir.path().join("elsewhere.db"), &dangling).expect("link");
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    for (path, kind) in [
        (&fifo, "a FIFO"),
        (&folder, "a folder"),
        (&to_fifo, "a FIFO"),
        (&dangling, "a symbolic link to nothing"),
        (&std::path::PathBuf::from("/dev/null"), "a device"),
    ] {
        match SqliteStore::open(path) {
            Err(e @ StoreError::NotAFile { kind: found, .. }) => {
                assert_eq!(found, kind, "{}", path.display());
                assert_eq!(
                    e.to_string(),
                    format!(
                        "{}: it is {kind}, not a regular file (a database is a regular file or a new one)",
                        path.display()
                    )
                );
            }
            other => panic!("{}: {other:?}", path.display()),
        }
    }
    assert_eq!(listing(), before);
    // A link to a regular file, and a new file, open.
    let real = dir.path().join("real.db");
    drop(SqliteStore::open(&real).expect("a new file"));
    let to_real = dir.path().join("to-real.db");
    std::os::unix::fs::symlink(&real, &to_real).expect("link");
    drop(SqliteStore::open(&to_real).expect("a link to a file"));
}
