//! Unit tests of the SQLite backend, on temporary files.

use super::*;
use crate::store::Limits;

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
fn put_then_get_with_checksums() {
    let (_dir, store) = store();
    assert_eq!(store.get("o", "a/b", View::Full).expect("get"), None);
    let state = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("x.md", "one"), ("y.md", "two")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    assert_eq!(state.version, 1);
    assert_eq!(state.entry_checksums["x.md"], entry_checksum("one"));
    assert_eq!(state.checksum, repo_checksum(&state.entry_checksums));
    let full = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(full.checksum, state.checksum);
    assert_eq!(
        full.entries,
        Some(entries(&[("x.md", "one"), ("y.md", "two")]))
    );
    let hashes = store
        .get("o", "a/b", View::Hashes)
        .expect("get")
        .expect("some");
    assert_eq!(hashes.entries, None);
    assert_eq!(hashes.entry_checksums, full.entry_checksums);
}

#[test]
fn preconditions() {
    let (_dir, store) = store();
    let first = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("k", "1")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    // No If-Match once there are entries.
    match put(
        &store,
        "o",
        "a/b",
        &entries(&[("k", "2")]),
        &IfMatch::Absent,
        LIMITS,
    )
    .expect("put")
    {
        PutOutcome::PreconditionRequired(s) => assert_eq!(s.checksum, first.checksum),
        other => panic!("{other:?}"),
    }
    // A stale checksum.
    match put(
        &store,
        "o",
        "a/b",
        &entries(&[("k", "2")]),
        &IfMatch::Checksum("sha256:stale".into()),
        LIMITS,
    )
    .expect("put")
    {
        PutOutcome::PreconditionFailed(s) => assert_eq!(s.entry_checksums, first.entry_checksums),
        other => panic!("{other:?}"),
    }
    let second = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("k", "2")]),
            &IfMatch::Checksum(first.checksum.clone()),
            LIMITS,
        )
        .expect("put"),
    );
    assert_eq!(second.version, 2);
    // `*` matches any state of a repository with entries, and none of an empty one.
    accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("k", "3")]),
            &IfMatch::Any,
            LIMITS,
        )
        .expect("put"),
    );
    assert!(matches!(
        put(
            &store,
            "o",
            "c/d",
            &entries(&[("k", "3")]),
            &IfMatch::Any,
            LIMITS
        )
        .expect("put"),
        PutOutcome::PreconditionFailed(_)
    ));
}

#[test]
fn entry_cap_counts_only_new_keys() {
    let (_dir, store) = store();
    let s = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("a", "1"), ("b", "1"), ("c", "1")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    // Updating existing keys at the cap is fine.
    let s = accepted(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("a", "2")]),
            &IfMatch::Checksum(s.checksum),
            LIMITS,
        )
        .expect("put"),
    );
    assert_eq!(
        put(
            &store,
            "o",
            "a/b",
            &entries(&[("d", "1")]),
            &IfMatch::Checksum(s.checksum),
            LIMITS
        )
        .expect("put"),
        PutOutcome::TooManyEntries {
            max_entries: 3,
            would_hold: 4
        }
    );
    assert_eq!(
        store
            .get("o", "a/b", View::Hashes)
            .expect("get")
            .expect("some")
            .version,
        2
    );
}

#[test]
fn organisations_are_isolated() {
    let (_dir, store) = store();
    accepted(
        put(
            &store,
            "acme",
            "a/b",
            &entries(&[("k", "v")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    assert_eq!(store.get("other", "a/b", View::Full).expect("get"), None);
    // The other organisation's repository of the same name is its own.
    let s = accepted(
        put(
            &store,
            "other",
            "a/b",
            &entries(&[("z", "v")]),
            &IfMatch::Absent,
            LIMITS,
        )
        .expect("put"),
    );
    assert_eq!(s.version, 1);
    let acme = store
        .get("acme", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(acme.entries, Some(entries(&[("k", "v")])));
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
fn concurrent_chained_puts_lose_nothing() {
    let (_dir, store) = store();
    let store = Arc::new(store);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                let mut accepted_keys = Vec::new();
                for i in 0..40 {
                    let key = format!("t{t}-{i}.md");
                    let current = store.get("o", "a/b", View::Hashes).expect("get");
                    let if_match =
                        current.map_or(IfMatch::Absent, |s| IfMatch::Checksum(s.checksum));
                    let outcome = put(
                        &store,
                        "o",
                        "a/b",
                        &entries(&[(key.as_str(), "v")]),
                        &if_match,
                        Limits {
                            max_entries: 10_000,
                        },
                    )
                    .expect("put");
                    if matches!(outcome, PutOutcome::Accepted(_)) {
                        accepted_keys.push(key);
                    }
                }
                accepted_keys
            })
        })
        .collect();
    let accepted: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("join"))
        .collect();
    let state = store
        .get("o", "a/b", View::Hashes)
        .expect("get")
        .expect("some");
    // Every accepted PUT counted once and its key kept; no refused one
    // left a trace.
    assert_eq!(state.version, accepted.len() as u64);
    assert_eq!(state.entry_checksums.len(), accepted.len());
    assert!(
        accepted
            .iter()
            .all(|k| state.entry_checksums.contains_key(k))
    );
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
