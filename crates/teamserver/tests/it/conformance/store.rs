//! The store cases: every outcome of `put`, the version count, checksums,
//! organisations, tokens and the schema version, through the `Store` trait.

use std::collections::BTreeMap;
use std::sync::Arc;

use memdir_protocol::{View, entry_checksum};
use memdir_teamserver::{
    IfMatch, Limits, PutOutcome, PutRequest, RepoState, SCHEMA_VERSION, Store, StoreError,
};

use crate::support::{Harness, checksum_of};

const LIMITS: Limits = Limits { max_entries: 3 };

fn entries(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn put(
    store: &dyn Store,
    org: &str,
    repo: &str,
    pairs: &[(&str, &str)],
    if_match: &IfMatch,
) -> PutOutcome {
    put_limited(store, org, repo, pairs, if_match, LIMITS)
}

fn put_limited(
    store: &dyn Store,
    org: &str,
    repo: &str,
    pairs: &[(&str, &str)],
    if_match: &IfMatch,
    limits: Limits,
) -> PutOutcome {
    store
        .put(&PutRequest {
            org,
            repo,
            entries: &entries(pairs),
            if_match,
            limits,
        })
        .unwrap()
}

fn accepted(outcome: PutOutcome) -> RepoState {
    match outcome {
        PutOutcome::Accepted(state) => state,
        other => panic!("expected Accepted, got {other:?}"),
    }
}

fn full(store: &dyn Store, org: &str, repo: &str) -> Option<RepoState> {
    store.get(org, repo, View::Full).unwrap()
}

pub(super) fn put_then_get_with_checksums(h: &Harness) {
    let store = &*h.store;
    assert_eq!(full(store, "o", "a/b"), None);
    assert_eq!(store.get("o", "a/b", View::Hashes).unwrap(), None);
    let state = accepted(put(
        store,
        "o",
        "a/b",
        &[("x.md", "one"), ("y.md", "two")],
        &IfMatch::Absent,
    ));
    assert_eq!(state.organization_id, "o");
    assert_eq!(state.repo, "a/b");
    assert_eq!(state.version, 1);
    assert_eq!(state.entry_checksums["x.md"], entry_checksum("one"));
    assert_eq!(
        state.checksum,
        checksum_of(&[("x.md", "one"), ("y.md", "two")])
    );
    assert_eq!(state.entries, None, "a PUT answers with the hashes view");
    assert!(state.last_modified.is_some());

    let got = full(store, "o", "a/b").unwrap();
    assert_eq!(got.checksum, state.checksum);
    assert_eq!(got.version, 1);
    assert_eq!(got.last_modified, state.last_modified, "to the millisecond");
    assert_eq!(
        got.entries,
        Some(entries(&[("x.md", "one"), ("y.md", "two")]))
    );
    let hashes = store.get("o", "a/b", View::Hashes).unwrap().unwrap();
    assert_eq!(hashes.entries, None);
    assert_eq!(hashes.entry_checksums, got.entry_checksums);
    assert_eq!(hashes, state);
}

pub(super) fn texts_round_trip_byte_for_byte(h: &Harness) {
    let store = &*h.store;
    let texts = [
        ("nul.md", "before\u{0}after"),
        ("crlf.md", "a\r\nb\r\n"),
        ("unicode.md", "caf\u{e9} \u{1f980} \u{202e}rtl"),
        (
            "quote.md",
            "it's \"quoted\" \\ and $1 and '; DROP TABLE x; --",
        ),
        ("empty.md", ""),
    ];
    let state = accepted(put_limited(
        store,
        "o",
        "a/b",
        &texts,
        &IfMatch::Absent,
        Limits { max_entries: 10 },
    ));
    assert_eq!(state.checksum, checksum_of(&texts));
    let got = full(store, "o", "a/b").unwrap();
    assert_eq!(got.entries, Some(entries(&texts)));
    assert_eq!(got.checksum, state.checksum);
}

pub(super) fn no_if_match_on_a_repository_with_entries_is_required(h: &Harness) {
    let store = &*h.store;
    let first = accepted(put(store, "o", "a/b", &[("k", "1")], &IfMatch::Absent));
    match put(store, "o", "a/b", &[("k", "2")], &IfMatch::Absent) {
        PutOutcome::PreconditionRequired(s) => assert_eq!(s, first),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        full(store, "o", "a/b").unwrap().entries,
        Some(entries(&[("k", "1")]))
    );
}

pub(super) fn a_stale_checksum_fails_with_the_current_state(h: &Harness) {
    let store = &*h.store;
    let first = accepted(put(store, "o", "a/b", &[("k", "1")], &IfMatch::Absent));
    let second = accepted(put(
        store,
        "o",
        "a/b",
        &[("k", "2"), ("l", "x")],
        &IfMatch::Checksum(first.checksum.clone()),
    ));
    assert_eq!(second.version, 2);
    match put(
        store,
        "o",
        "a/b",
        &[("k", "3")],
        &IfMatch::Checksum(first.checksum.clone()),
    ) {
        PutOutcome::PreconditionFailed(s) => assert_eq!(s, second),
        other => panic!("{other:?}"),
    }
    match put(
        store,
        "o",
        "a/b",
        &[("k", "3")],
        &IfMatch::Checksum("sha256:stale".into()),
    ) {
        PutOutcome::PreconditionFailed(s) => assert_eq!(s.version, 2),
        other => panic!("{other:?}"),
    }
    // Recomputed from the 412 state, the retry goes through.
    let third = accepted(put(
        store,
        "o",
        "a/b",
        &[("k", "3")],
        &IfMatch::Checksum(second.checksum),
    ));
    assert_eq!(third.version, 3);
    assert_eq!(third.checksum, checksum_of(&[("k", "3"), ("l", "x")]));
}

pub(super) fn star_matches_any_state_with_entries_and_no_empty_one(h: &Harness) {
    let store = &*h.store;
    match put(store, "o", "c/d", &[("k", "1")], &IfMatch::Any) {
        PutOutcome::PreconditionFailed(s) => {
            assert_eq!(s, RepoState::empty("o", "c/d"));
            assert_eq!(s.version, 0);
            assert_eq!(s.last_modified, None);
        }
        other => panic!("{other:?}"),
    }
    accepted(put(store, "o", "a/b", &[("k", "1")], &IfMatch::Absent));
    let s = accepted(put(store, "o", "a/b", &[("k", "2")], &IfMatch::Any));
    assert_eq!(s.version, 2);
}

pub(super) fn the_entry_cap_counts_only_new_keys(h: &Harness) {
    let store = &*h.store;
    let s = accepted(put(
        store,
        "o",
        "a/b",
        &[("a", "1"), ("b", "1"), ("c", "1")],
        &IfMatch::Absent,
    ));
    let s = accepted(put(
        store,
        "o",
        "a/b",
        &[("a", "2")],
        &IfMatch::Checksum(s.checksum),
    ));
    assert_eq!(
        put(
            store,
            "o",
            "a/b",
            &[("a", "3"), ("d", "1")],
            &IfMatch::Checksum(s.checksum.clone())
        ),
        PutOutcome::TooManyEntries {
            max_entries: 3,
            would_hold: 4
        }
    );
    let now = full(store, "o", "a/b").unwrap();
    assert_eq!(now.version, 2);
    assert_eq!(now.checksum, s.checksum);
    assert_eq!(now.entries.unwrap()["a"], "2", "nothing of a refused PUT");
    // A new repository over the cap at once.
    assert_eq!(
        put(
            store,
            "o",
            "n/ew",
            &[("a", "1"), ("b", "1"), ("c", "1"), ("d", "1")],
            &IfMatch::Absent
        ),
        PutOutcome::TooManyEntries {
            max_entries: 3,
            would_hold: 4
        }
    );
    assert_eq!(full(store, "o", "n/ew"), None);
}

pub(super) fn a_refused_put_leaves_no_trace(h: &Harness) {
    let store = &*h.store;
    // Refusals on a repository never written: its first accepted PUT is
    // still version 1, and a 412 still says version 0.
    for _ in 0..2 {
        assert!(matches!(
            put(store, "o", "a/b", &[("k", "1")], &IfMatch::Any),
            PutOutcome::PreconditionFailed(_)
        ));
        assert!(matches!(
            put(
                store,
                "o",
                "a/b",
                &[("k", "1")],
                &IfMatch::Checksum("sha256:x".into())
            ),
            PutOutcome::PreconditionFailed(ref s) if *s == RepoState::empty("o", "a/b")
        ));
    }
    assert_eq!(full(store, "o", "a/b"), None);
    let s = accepted(put(store, "o", "a/b", &[("k", "1")], &IfMatch::Absent));
    assert_eq!(s.version, 1);
}

pub(super) fn versions_count_accepted_puts_empty_ones_too(h: &Harness) {
    let store = &*h.store;
    // An empty PUT is accepted and counted, and leaves nothing to read.
    let s = accepted(put(store, "o", "a/b", &[], &IfMatch::Absent));
    assert_eq!(s.version, 1);
    assert_eq!(s.checksum, RepoState::empty("o", "a/b").checksum);
    assert_eq!(full(store, "o", "a/b"), None);
    // Still empty, so no If-Match is needed.
    let s = accepted(put(store, "o", "a/b", &[("k", "1")], &IfMatch::Absent));
    assert_eq!(s.version, 2);
    let s = accepted(put(store, "o", "a/b", &[], &IfMatch::Checksum(s.checksum)));
    assert_eq!(s.version, 3);
    assert_eq!(s.checksum, checksum_of(&[("k", "1")]));
    // Rewriting a key with the same text is a new version all the same.
    let s = accepted(put(
        store,
        "o",
        "a/b",
        &[("k", "1")],
        &IfMatch::Checksum(s.checksum),
    ));
    assert_eq!(s.version, 4);
    assert_eq!(full(store, "o", "a/b").unwrap().version, 4);
}

pub(super) fn organisations_are_isolated(h: &Harness) {
    let store = &*h.store;
    accepted(put(store, "acme", "a/b", &[("k", "v")], &IfMatch::Absent));
    assert_eq!(full(store, "other", "a/b"), None);
    // Another organisation's checksum is no precondition here.
    let acme = full(store, "acme", "a/b").unwrap();
    assert!(matches!(
        put(
            store,
            "other",
            "a/b",
            &[("z", "v")],
            &IfMatch::Checksum(acme.checksum.clone())
        ),
        PutOutcome::PreconditionFailed(ref s) if s.version == 0
    ));
    let s = accepted(put(store, "other", "a/b", &[("z", "v")], &IfMatch::Absent));
    assert_eq!((s.version, s.organization_id.as_str()), (1, "other"));
    assert_eq!(
        full(store, "acme", "a/b").unwrap().entries,
        Some(entries(&[("k", "v")]))
    );
    assert_eq!(
        full(store, "other", "a/b").unwrap().entries,
        Some(entries(&[("z", "v")]))
    );
}

pub(super) fn tokens_are_created_verified_and_revoked(h: &Harness) {
    let store = &*h.store;
    let t = store.create_token("acme").unwrap();
    let u = store.create_token("acme").unwrap();
    assert_ne!(t.token, u.token);
    assert!(t.token.starts_with(&t.prefix) && t.prefix.starts_with("mdt_"));
    assert_eq!(t.organization_id, "acme");
    assert_eq!(
        store.verify_token(&t.token).unwrap().as_deref(),
        Some("acme")
    );
    for bad in ["", "mdt_nope", &t.prefix, &t.token[..t.token.len() - 1]] {
        assert_eq!(store.verify_token(bad).unwrap(), None, "{bad:?}");
    }
    assert!(matches!(
        store.revoke_token("nope"),
        Err(StoreError::InvalidTokenPrefix(_))
    ));
    assert!(matches!(
        store.revoke_token("mdt_0123"),
        Err(StoreError::InvalidTokenPrefix(_))
    ));
    // By the whole token, then by the prefix: revoked once.
    assert!(store.revoke_token(&t.token).unwrap());
    assert!(!store.revoke_token(&t.prefix).unwrap());
    assert_eq!(store.verify_token(&t.token).unwrap(), None);
    assert_eq!(
        store.verify_token(&u.token).unwrap().as_deref(),
        Some("acme")
    );
    for bad in ["", " acme", "a\nb", "nul\u{0}"] {
        assert!(
            matches!(
                store.create_token(bad),
                Err(StoreError::InvalidOrganization(_))
            ),
            "{bad:?}"
        );
    }
}

pub(super) fn the_schema_version_is_current(h: &Harness) {
    assert_eq!(h.store.schema_version().unwrap(), SCHEMA_VERSION);
}

pub(super) fn concurrent_writers_lose_nothing(h: &Harness) {
    const WRITERS: usize = 6;
    const PUTS: usize = 20;
    let limits = Limits {
        max_entries: WRITERS * PUTS,
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let store: Arc<dyn Store> = Arc::clone(&h.store);
            std::thread::spawn(move || {
                let mut seen = IfMatch::Absent;
                let mut versions = Vec::new();
                for i in 0..PUTS {
                    let key = format!("w{w}/{i}.md");
                    loop {
                        match put_limited(&*store, "o", "r/r", &[(&key, "v")], &seen, limits) {
                            PutOutcome::Accepted(s) => {
                                versions.push(s.version);
                                seen = IfMatch::Checksum(s.checksum);
                                break;
                            }
                            PutOutcome::PreconditionFailed(s)
                            | PutOutcome::PreconditionRequired(s) => {
                                seen = IfMatch::Checksum(s.checksum);
                            }
                            other @ (PutOutcome::TooManyEntries { .. }
                            | PutOutcome::KeyCollision { .. }) => {
                                panic!("{other:?}")
                            }
                        }
                    }
                }
                versions
            })
        })
        .collect();
    let mut versions: Vec<u64> = Vec::new();
    for w in writers {
        let mine = w.join().unwrap();
        assert!(mine.windows(2).all(|p| p[0] < p[1]), "{mine:?}");
        versions.extend(mine);
    }
    versions.sort_unstable();
    let expected: Vec<u64> = (1..=(WRITERS * PUTS) as u64).collect();
    assert_eq!(versions, expected, "each accepted PUT has its own version");
    let state = full(&*h.store, "o", "r/r").unwrap();
    assert_eq!(state.version, (WRITERS * PUTS) as u64);
    assert_eq!(state.entries.unwrap().len(), WRITERS * PUTS);
}

/// A fixed sequence of writes and reads; every state it saw, in order.
#[cfg(feature = "postgres")]
pub(super) fn scripted_history(store: &dyn Store) -> Vec<RepoState> {
    let mut out = Vec::new();
    let state = |outcome: PutOutcome| match outcome {
        PutOutcome::Accepted(s)
        | PutOutcome::PreconditionFailed(s)
        | PutOutcome::PreconditionRequired(s) => s,
        other @ (PutOutcome::TooManyEntries { .. } | PutOutcome::KeyCollision { .. }) => {
            panic!("{other:?}")
        }
    };
    let a = state(put(
        store,
        "acme",
        "o/r",
        &[("a.md", "one"), ("b.md", "t\u{0}wo")],
        &IfMatch::Absent,
    ));
    out.push(a.clone());
    out.push(state(put(
        store,
        "acme",
        "o/r",
        &[("a.md", "x")],
        &IfMatch::Absent,
    )));
    out.push(state(put(
        store,
        "acme",
        "o/r",
        &[("c.md", "three")],
        &IfMatch::Checksum("sha256:0".into()),
    )));
    let b = state(put(
        store,
        "acme",
        "o/r",
        &[("a.md", "uno")],
        &IfMatch::Checksum(a.checksum),
    ));
    out.push(b);
    out.push(state(put(store, "acme", "o/r", &[], &IfMatch::Any)));
    out.push(state(put(
        store,
        "other",
        "o/r",
        &[("z.md", "\u{1f980}")],
        &IfMatch::Absent,
    )));
    out.push(full(store, "acme", "o/r").unwrap());
    out.push(store.get("other", "o/r", View::Hashes).unwrap().unwrap());
    out
}

/// Each entry records the version whose write last changed its text: an
/// entry sent again unchanged keeps its version.
pub(super) fn entries_record_the_write_that_changed_them(h: &Harness) {
    let store = &*h.store;
    accepted(put(
        store,
        "o",
        "a/b",
        &[("x.md", "one"), ("y.md", "two")],
        &IfMatch::Absent,
    ));
    accepted(put(
        store,
        "o",
        "a/b",
        &[("x.md", "one"), ("y.md", "TWO")],
        &IfMatch::Any,
    ));
    accepted(put(store, "o", "a/b", &[("z.md", "three")], &IfMatch::Any));
    let state = full(store, "o", "a/b").unwrap();
    let versions: Vec<(&str, u64)> = state
        .entry_changes
        .iter()
        .map(|(k, c)| (k.as_str(), c.version))
        .collect();
    assert_eq!(versions, [("x.md", 1), ("y.md", 2), ("z.md", 3)]);
    assert!(state.entry_changes.values().all(|c| c.modified.is_some()));
    let x = state.entry_changes["x.md"].modified.unwrap();
    let z = state.entry_changes["z.md"].modified.unwrap();
    assert!(x <= z);
}

pub(super) fn a_new_key_naming_the_file_of_another_is_refused(h: &Harness) {
    let store = &*h.store;
    let first = accepted(put(
        store,
        "acme",
        "o/r",
        &[("deploy.md", "one"), ("MEMORY.md", "index")],
        &IfMatch::Absent,
    ));
    let at = IfMatch::Checksum(first.checksum.clone());
    for (key, existing) in [("Deploy.md", "deploy.md"), ("memory.md", "MEMORY.md")] {
        assert_eq!(
            put(store, "acme", "o/r", &[(key, "two")], &at),
            PutOutcome::KeyCollision {
                key: key.to_owned(),
                existing: existing.to_owned(),
            }
        );
    }
    // Within one request: the later key in key order is refused.
    assert_eq!(
        put(store, "acme", "o/r", &[("b.md", "1"), ("B.md", "2")], &at),
        PutOutcome::KeyCollision {
            key: "b.md".to_owned(),
            existing: "B.md".to_owned(),
        }
    );
    // A stale precondition is answered first: the client must refetch.
    assert!(matches!(
        put(
            store,
            "acme",
            "o/r",
            &[("Deploy.md", "two")],
            &IfMatch::Checksum("sha256:old".into())
        ),
        PutOutcome::PreconditionFailed(_)
    ));
    // Nothing was written; the held spelling and other organisations'
    // repositories are not affected.
    assert_eq!(full(store, "acme", "o/r").unwrap().version, 1);
    accepted(put(store, "acme", "o/r", &[("deploy.md", "three")], &at));
    accepted(put(
        store,
        "other",
        "o/r",
        &[("Deploy.md", "theirs")],
        &IfMatch::Absent,
    ));
}

pub(super) fn sessions_are_started_checked_ended_and_revoked_with_their_token(h: &Harness) {
    use jiff::{SignedDuration, Timestamp};
    let store = &*h.store;
    let token = store.create_token("acme").unwrap();
    let now = Timestamp::now();
    let later = now + SignedDuration::from_hours(12);
    assert_eq!(store.create_session("mdt_nope", later).unwrap(), None);
    let first = store.create_session(&token.token, later).unwrap().unwrap();
    let second = store.create_session(&token.token, later).unwrap().unwrap();
    assert_ne!(first.id, second.id);
    assert_ne!(first.session.csrf_token, second.session.csrf_token);
    assert!(
        first.id.starts_with("mds_") && !first.id.contains(&token.token),
        "{}",
        first.id
    );
    assert_eq!(first.session.organization_id, "acme");
    // The session is found by its id, live until it expires.
    let found = store.session(&first.id, now).unwrap().unwrap();
    assert_eq!(found.organization_id, "acme");
    assert_eq!(found.csrf_token, first.session.csrf_token);
    assert_eq!(found.expires.as_millisecond(), later.as_millisecond());
    assert_eq!(store.session(&first.id, later).unwrap(), None);
    // Nothing else finds it: not the token, not a near miss.
    let (head, last) = first.id.split_at(first.id.len() - 1);
    let near = format!("{head}{}", if last == "0" { "1" } else { "0" });
    for bad in ["", "mds_", &token.token, &near, &first.session.csrf_token] {
        assert_eq!(store.session(bad, now).unwrap(), None, "{bad:?}");
    }
    // The id is no bearer token.
    assert_eq!(store.verify_token(&first.id).unwrap(), None);
    // Ending one ends only it.
    assert!(store.end_session(&first.id).unwrap());
    assert!(!store.end_session(&first.id).unwrap());
    assert_eq!(store.session(&first.id, now).unwrap(), None);
    assert!(store.session(&second.id, now).unwrap().is_some());
    // Revoking the token ends its sessions, not another token's.
    let other = store.create_token("acme").unwrap();
    let others = store.create_session(&other.token, later).unwrap().unwrap();
    assert!(store.revoke_token(&token.prefix).unwrap());
    assert_eq!(store.session(&second.id, now).unwrap(), None);
    assert!(store.session(&others.id, now).unwrap().is_some());
    assert_eq!(store.create_session(&token.token, later).unwrap(), None);
    // A session already expired is never found, and is cleared by the next
    // session started.
    let gone = store.create_session(&other.token, now).unwrap().unwrap();
    assert_eq!(store.session(&gone.id, now).unwrap(), None);
}
