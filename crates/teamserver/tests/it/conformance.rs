//! One suite for every storage backend: each case is written once, as a
//! function of a [`Harness`] (a store and a real `Server` over it on
//! 127.0.0.1), and runs once per backend — `conformance::sqlite::<case>`
//! on a temporary file, `conformance::postgres::<case>` on a fresh
//! database of the server that `MEMDIR_TEST_POSTGRES_URL` names (skipped,
//! said on stderr, without it; failing instead with
//! `MEMDIR_REQUIRE_POSTGRES=1`).
//!
//! The store cases are in `conformance/store.rs`, the HTTP cases in
//! `conformance/http.rs`.

use crate::support::{Harness, quiet, start};

mod http;
mod store;

/// A harness on a fresh SQLite file.
fn sqlite() -> Harness {
    start(quiet())
}

/// A harness on a fresh PostgreSQL database, or `None` (skipped).
#[cfg(feature = "postgres")]
fn postgres() -> Option<Harness> {
    let db = memdir_testkit::PgDatabase::create()?;
    let store = std::sync::Arc::new(memdir_teamserver::PgStore::connect(db.url()).unwrap());
    Some(crate::support::start_on(store, Box::new(db), quiet()))
}

/// Runs each case on each backend: a test per case in `mod sqlite` and in
/// `mod postgres`, named `<backend>::<module>::<case>`.
macro_rules! conformance {
    ($($module:ident: [$($case:ident),* $(,)?]),* $(,)?) => {
        mod sqlite {
            $(mod $module {
                $(
                    #[test]
                    fn $case() {
                        let h = super::super::sqlite();
                        super::super::$module::$case(&h);
                    }
                )*
            })*
        }
        #[cfg(feature = "postgres")]
        mod postgres {
            $(mod $module {
                $(
                    #[test]
                    fn $case() {
                        let Some(h) = super::super::postgres() else {
                            return;
                        };
                        super::super::$module::$case(&h);
                    }
                )*
            })*
        }
    };
}

conformance! {
    store: [
        put_then_get_with_checksums,
        texts_round_trip_byte_for_byte,
        no_if_match_on_a_repository_with_entries_is_required,
        a_stale_checksum_fails_with_the_current_state,
        star_matches_any_state_with_entries_and_no_empty_one,
        the_entry_cap_counts_only_new_keys,
        a_refused_put_leaves_no_trace,
        versions_count_accepted_puts_empty_ones_too,
        organisations_are_isolated,
        tokens_are_created_verified_and_revoked,
        the_schema_version_is_current,
        concurrent_writers_lose_nothing,
        entries_record_the_write_that_changed_them,
        a_new_key_naming_the_file_of_another_is_refused,
        sessions_are_started_checked_ended_and_revoked_with_their_token,
    ],
    http: [
        get_and_put_in_the_r8_1_shape,
        stale_and_missing_preconditions_are_412_and_428,
        the_hashes_view_answers_304_to_its_tag,
        a_minimal_put_answers_only_the_keys_it_wrote,
        unknown_and_revoked_tokens_are_401,
        another_organisations_repository_is_404_like_none,
        a_key_naming_the_file_of_another_is_409,
    ],
}

/// The same writes give the same states on both backends: versions,
/// checksums, entries (everything but the clock).
#[cfg(feature = "postgres")]
#[test]
fn both_backends_compute_the_same_states() {
    let Some(pg) = postgres() else {
        return;
    };
    let lite = sqlite();
    let (a, b) = (
        store::scripted_history(&*lite.store),
        store::scripted_history(&*pg.store),
    );
    assert_eq!(a.len(), b.len());
    for (mut x, mut y) in a.into_iter().zip(b) {
        x.last_modified = None;
        y.last_modified = None;
        for c in x
            .entry_changes
            .values_mut()
            .chain(y.entry_changes.values_mut())
        {
            c.modified = None;
        }
        assert_eq!(x, y);
    }
}
