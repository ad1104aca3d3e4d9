//! The verdict cache: what it settles without a walk, what it notices at
//! once, what waits for a refresh, and the files it refuses to trust.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use memdir_citations::{
    Broken, CachePolicy, Checked, Checker, Citation, CitationKind, Verdict, VerdictCache,
    extract_citations,
};
use proptest::prelude::*;

const LONG: Duration = Duration::from_secs(30);

/// Files written by the test are trusted at once (each change below
/// changes a file's size, so its stamp shows it).
fn eager() -> CachePolicy {
    CachePolicy {
        racy_window: Duration::ZERO,
        ..CachePolicy::default()
    }
}

/// The checks' project, with one more file that cites nothing.
fn project() -> tempfile::TempDir {
    let dir = crate::check::project();
    fs::write(dir.path().join("src/other.rs"), "fn other() {}\n").expect("write");
    dir
}

fn verdict_of(checked: &[Checked], text: &str) -> Verdict {
    checked
        .iter()
        .find(|c| c.citation.text == text)
        .map_or_else(|| panic!("{text} not cited: {checked:?}"), |c| c.verdict)
}

const BODY: &str = "`RetryPolicy` and `--legacy-auth`; `backoff_ms` is gone.";

#[test]
fn a_warm_cache_settles_identifiers_without_a_walk() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    let fresh = checker.refresh(&citations, LONG, &mut cache, &eager());
    assert_eq!(
        verdict_of(&fresh, "backoff_ms"),
        Verdict::Broken(Broken::OccursNowhere)
    );
    assert_eq!(cache.len(), 3);
    assert!(cache.refreshed_at().is_some());

    // `backoff_ms` now appears in a file the memory does not cite: the
    // cache, which no walk re-reads, still says it is nowhere, until a
    // refresh.
    fs::write(dir.path().join("src/other.rs"), "fn backoff_ms() {}\n").expect("write");
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(verdict_of(&cached.checked, "RetryPolicy"), Verdict::Holds);
    assert_eq!(verdict_of(&cached.checked, "--legacy-auth"), Verdict::Holds);
    assert_eq!(
        verdict_of(&cached.checked, "backoff_ms"),
        Verdict::Broken(Broken::OccursNowhere)
    );
    assert!(!cached.wants_refresh, "everything is settled and fresh");

    let _ = checker.refresh(&citations, LONG, &mut cache, &eager());
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(verdict_of(&cached.checked, "backoff_ms"), Verdict::Holds);
}

#[test]
fn a_literal_removed_from_its_file_is_noticed_at_once() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    let _ = checker.refresh(&citations, LONG, &mut cache, &eager());
    fs::write(dir.path().join("src/main.rs"), "// no flags any more\n").expect("write");
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(
        verdict_of(&cached.checked, "--legacy-auth"),
        Verdict::Broken(Broken::OccursNowhere)
    );
    assert!(cache.is_dirty());
}

#[test]
fn a_literal_whose_file_moved_is_found_again() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    let _ = checker.refresh(&citations, LONG, &mut cache, &eager());
    fs::rename(
        dir.path().join("src/billing/retries.rs"),
        dir.path().join("src/retry.rs"),
    )
    .expect("rename");
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(verdict_of(&cached.checked, "RetryPolicy"), Verdict::Holds);
    // The new place is recorded: with the search given no time, the
    // cache alone settles it.
    let again = checker.check_cached(&citations, Duration::from_millis(0), &mut cache, &eager());
    assert_eq!(verdict_of(&again.checked, "RetryPolicy"), Verdict::Holds);
}

#[test]
fn an_absent_literal_is_still_looked_for_in_the_cited_files() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let body = "`src/other.rs` defines `backoff_ms`.";
    let citations = extract_citations(body);
    let mut cache = VerdictCache::new();
    let fresh = checker.refresh(&citations, LONG, &mut cache, &eager());
    assert_eq!(
        verdict_of(&fresh, "backoff_ms"),
        Verdict::Broken(Broken::OccursNowhere)
    );
    fs::write(dir.path().join("src/other.rs"), "fn backoff_ms() {}\n").expect("write");
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(verdict_of(&cached.checked, "backoff_ms"), Verdict::Holds);
}

#[test]
fn old_verdicts_ask_for_a_refresh_and_too_old_ones_are_not_used() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    let _ = checker.refresh(&citations, LONG, &mut cache, &eager());
    std::thread::sleep(Duration::from_millis(20));

    let stale = CachePolicy {
        refresh_after: Duration::from_millis(1),
        retry_after: Duration::from_millis(1),
        ..eager()
    };
    let cached = checker.check_cached(&citations, LONG, &mut cache, &stale);
    assert_eq!(
        verdict_of(&cached.checked, "backoff_ms"),
        Verdict::Broken(Broken::OccursNowhere)
    );
    assert!(cached.wants_refresh);
    // Within `retry_after` of the last refresh started, none is asked for.
    let patient = CachePolicy {
        retry_after: Duration::from_secs(3600),
        ..stale
    };
    assert!(
        !checker
            .check_cached(&citations, LONG, &mut cache, &patient)
            .wants_refresh
    );

    // Past `trust_absent_for`, "nowhere" is searched for again: with no
    // time for the walk it is unsettled, not broken.
    fs::write(dir.path().join("src/other.rs"), "fn backoff_ms() {}\n").expect("write");
    let distrust = CachePolicy {
        trust_absent_for: Duration::from_millis(1),
        ..stale
    };
    let cached = checker.check_cached(&citations, Duration::ZERO, &mut cache, &distrust);
    assert_eq!(
        verdict_of(&cached.checked, "backoff_ms"),
        Verdict::Unchecked
    );
    let cached = checker.check_cached(&citations, LONG, &mut cache, &distrust);
    assert_eq!(verdict_of(&cached.checked, "backoff_ms"), Verdict::Holds);
}

#[test]
fn a_file_changed_just_now_is_not_recorded_as_holding() {
    let dir = project();
    let checker = Checker::new(dir.path()).expect("checker");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    // The files were written a moment ago: the default window keeps them
    // out of the cache, so nothing is trusted that a same-size change in
    // the same clock tick could have made untrue.
    let _ = checker.refresh(&citations, LONG, &mut cache, &CachePolicy::default());
    assert_eq!(cache.len(), 1, "only `backoff_ms`, found nowhere");
    let cached = checker.check_cached(
        &citations,
        Duration::ZERO,
        &mut cache,
        &CachePolicy::default(),
    );
    assert_eq!(
        verdict_of(&cached.checked, "RetryPolicy"),
        Verdict::Unchecked
    );
    assert!(cached.wants_refresh || cache.attempted_at().is_some());
}

#[test]
fn save_and_load_round_trip_and_damage_is_an_empty_cache() {
    let dir = project();
    let state = tempfile::tempdir().expect("tempdir");
    let path = state.path().join("deep/cache.json");
    let checker = Checker::new(dir.path()).expect("checker");
    let mut cache = VerdictCache::new();
    let _ = checker.refresh(&extract_citations(BODY), LONG, &mut cache, &eager());
    assert!(cache.is_dirty());
    cache.save(&path).expect("save");
    assert!(!cache.is_dirty());
    assert_eq!(VerdictCache::load(&path), cache);

    for damaged in [
        &b""[..],
        b"{",
        b"[]",
        b"{\"version\":99,\"root\":\"/\",\"entries\":{}}",
        b"{\"version\":1,\"root\":7}",
        b"\xff\xfe",
    ] {
        fs::write(&path, damaged).expect("write");
        assert!(VerdictCache::load(&path).is_empty(), "{damaged:?}");
    }
    assert!(VerdictCache::load(&state.path().join("missing.json")).is_empty());
    fs::create_dir(state.path().join("a-folder")).expect("mkdir");
    assert!(VerdictCache::load(&state.path().join("a-folder")).is_empty());
}

#[cfg(unix)]
#[test]
fn a_fifo_where_the_cache_belongs_does_not_hang() {
    let state = tempfile::tempdir().expect("tempdir");
    let path = state.path().join("cache.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    assert!(VerdictCache::load(&path).is_empty());
}

#[test]
fn a_cache_of_another_root_is_not_used() {
    let one = project();
    let two = project();
    fs::write(two.path().join("src/billing/retries.rs"), "// gone\n").expect("write");
    let citations = extract_citations(BODY);
    let mut cache = VerdictCache::new();
    let _ =
        Checker::new(one.path())
            .expect("checker")
            .refresh(&citations, LONG, &mut cache, &eager());
    let cached = Checker::new(two.path()).expect("checker").check_cached(
        &citations,
        LONG,
        &mut cache,
        &eager(),
    );
    assert_eq!(
        verdict_of(&cached.checked, "RetryPolicy"),
        Verdict::Broken(Broken::OccursNowhere)
    );
}

/// A cache file is data: an entry naming a file outside the project, or a
/// path that climbs out of it, is not read and settles nothing.
#[test]
fn a_hostile_cache_entry_is_not_followed() {
    let outer = tempfile::tempdir().expect("tempdir");
    let root = outer.path().join("project");
    fs::create_dir_all(root.join("src")).expect("mkdir");
    fs::write(root.join("src/a.rs"), "fn a() {}\n").expect("write");
    fs::write(outer.path().join("outside.rs"), "fn backoff_ms() {}\n").expect("write");
    let checker = Checker::new(&root).expect("checker");
    let canonical = fs::canonicalize(&root).expect("canonical");
    let state = tempfile::tempdir().expect("tempdir");
    let path = state.path().join("cache.json");
    let meta = fs::metadata(outer.path().join("outside.rs")).expect("meta");
    #[cfg(unix)]
    let (ctime_ns, ino) = {
        use std::os::unix::fs::MetadataExt;
        (
            u64::try_from(meta.ctime()).expect("ctime") * 1_000_000_000
                + u64::try_from(meta.ctime_nsec()).expect("nsec"),
            meta.ino(),
        )
    };
    #[cfg(not(unix))]
    let (ctime_ns, ino) = (0u64, 0u64);
    let mtime_ns = meta
        .modified()
        .expect("mtime")
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("after epoch")
        .as_nanos();
    for file in ["../outside.rs", "/etc/passwd", "src/../../outside.rs"] {
        let text = format!(
            r#"{{"version":1,"root":{root},"entries":{{"backoff_ms":{{"found":{{"file":{file},"stamp":{{"len":{len},"mtimeNs":{mtime_ns},"ctimeNs":{ctime_ns},"ino":{ino}}},"atMs":0}}}}}}}}"#,
            root = serde_json::to_string(&canonical.to_string_lossy()).expect("json"),
            file = serde_json::to_string(file).expect("json"),
            len = meta.len(),
        );
        fs::write(&path, text).expect("write");
        let mut cache = VerdictCache::load(&path);
        assert_eq!(cache.len(), 1, "the file parses");
        let cached = checker.check_cached(
            &extract_citations("`backoff_ms`"),
            LONG,
            &mut cache,
            &eager(),
        );
        assert_eq!(
            verdict_of(&cached.checked, "backoff_ms"),
            Verdict::Broken(Broken::OccursNowhere),
            "{file}"
        );
    }
}

/// Literals whose lengths (with a newline) are distinct powers of two, so
/// that a file's size tells which of them it holds: a change always shows
/// in its stamp, whatever the clock's tick.
const LITERALS: [&str; 4] = ["a", "bbb", "ccccccc", "ddddddddddddddd"];

#[derive(Debug, Clone)]
enum Op {
    /// Rewrites file `file` holding the literals of the bit set `set`.
    Write {
        file: usize,
        set: u8,
    },
    Delete {
        file: usize,
    },
    Refresh,
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..4usize, 0..16u8).prop_map(|(file, set)| Op::Write { file, set }),
        1 => (0..4usize).prop_map(|file| Op::Delete { file }),
        1 => Just(Op::Refresh),
        3 => Just(Op::Check),
    ]
}

fn citations() -> Vec<Citation> {
    LITERALS
        .iter()
        .map(|l| Citation {
            kind: CitationKind::Identifier,
            text: (*l).to_owned(),
            line: 1,
        })
        .collect()
}

fn write(root: &Path, file: usize, set: u8) {
    let mut text = String::new();
    for (bit, l) in LITERALS.iter().enumerate() {
        if set & (1 << bit) != 0 {
            text.push_str(l);
            text.push('\n');
        }
    }
    fs::write(root.join(format!("f{file}.txt")), text).expect("write");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever happens to the files: what the cache says holds does hold
    /// (a fresh check agrees), and what it says is nowhere is nowhere or
    /// was written somewhere since the last walk that saw every file.
    #[test]
    fn the_cache_never_says_holds_of_what_is_gone(ops in proptest::collection::vec(op(), 1..24)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let checker = Checker::new(dir.path()).expect("checker");
        let citations = citations();
        let mut cache = VerdictCache::new();
        // Literals written since the last complete walk.
        let mut added_since_walk = [false; 4];
        let mut state = [0u8; 4];
        for op in ops {
            match op {
                Op::Write { file, set } => {
                    for (bit, added) in added_since_walk.iter_mut().enumerate() {
                        if set & !state[file] & (1 << bit) != 0 {
                            *added = true;
                        }
                    }
                    state[file] = set;
                    write(dir.path(), file, set);
                }
                Op::Delete { file } => {
                    state[file] = 0;
                    let _ = fs::remove_file(dir.path().join(format!("f{file}.txt")));
                }
                Op::Refresh => {
                    let _ = checker.refresh(&citations, LONG, &mut cache, &eager());
                    added_since_walk = [false; 4];
                }
                Op::Check => {
                    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
                    let fresh = checker.check(&citations, LONG);
                    // A check that walked settles what it walked for.
                    for (i, (c, f)) in cached.checked.iter().zip(&fresh).enumerate() {
                        match c.verdict {
                            Verdict::Holds => prop_assert_eq!(f.verdict, Verdict::Holds, "{}", LITERALS[i]),
                            Verdict::Broken(_) => prop_assert!(
                                f.verdict != Verdict::Holds || added_since_walk[i],
                                "{} said nowhere, is somewhere, was not added since a walk", LITERALS[i]
                            ),
                            _ => prop_assert!(false, "a long budget settles all"),
                        }
                    }
                    // A literal nowhere now must be written again before
                    // the cache may miss it.
                    for (i, f) in fresh.iter().enumerate() {
                        if f.verdict != Verdict::Holds {
                            added_since_walk[i] = false;
                        }
                    }
                }
            }
        }
    }
}

/// A folder of the project swapped for a link to a folder outside it
/// after the cache recorded a file in it: the file is not read through
/// the link, and the walk does not follow it either.
#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_is_not_read_through() {
    let outer = tempfile::tempdir().expect("tempdir");
    let root = outer.path().join("project");
    fs::create_dir_all(root.join("src")).expect("mkdir");
    fs::write(root.join("src/lib.rs"), "fn backoff_ms() {}\n").expect("write");
    let checker = Checker::new(&root).expect("checker");
    let citations = extract_citations("`backoff_ms`");
    let mut cache = VerdictCache::new();
    let fresh = checker.refresh(&citations, LONG, &mut cache, &eager());
    assert_eq!(verdict_of(&fresh, "backoff_ms"), Verdict::Holds);

    let elsewhere = outer.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).expect("mkdir");
    fs::write(
        elsewhere.join("lib.rs"),
        "fn backoff_ms() { /* outside */ }\n",
    )
    .expect("write");
    fs::remove_dir_all(root.join("src")).expect("rm");
    std::os::unix::fs::symlink(&elsewhere, root.join("src")).expect("symlink");
    let cached = checker.check_cached(&citations, LONG, &mut cache, &eager());
    assert_eq!(
        verdict_of(&cached.checked, "backoff_ms"),
        Verdict::Broken(Broken::OccursNowhere)
    );
}
