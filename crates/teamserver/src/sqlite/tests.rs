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
    let conn = store.lock().expect("lock");
    let mode: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
    let sync: i64 = conn
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .expect("sync");
    assert_eq!(sync, 2, "synchronous=FULL");
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
    let conn = store.lock().expect("lock");
    let stored: Vec<String> = conn
        .prepare("SELECT id || org || hash FROM tokens")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    drop(conn);
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
