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
