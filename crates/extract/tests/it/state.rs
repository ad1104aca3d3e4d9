//! One run per session at a time; a request that finds a run under way is
//! run by that run before it stops; nothing is lost between the two.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memdir_extract::{Begin, ExtractError, Request, StateFiles};

fn request(n: usize) -> Request {
    Request {
        transcript: format!("/t/{n}.jsonl").into(),
        requested_at: format!("2026-12-01T00:00:{:02}Z", n % 60),
    }
}

#[test]
fn a_busy_session_queues_the_newest_request_and_the_runner_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = StateFiles::new(
        dir.path(),
        "-home-u-proj",
        "5f1c2d9e-0000-4000-8000-000000000001",
    )
    .unwrap();
    let Begin::Run(guard) = files.begin(request(1)).unwrap() else {
        panic!("the first request runs")
    };
    assert!(matches!(files.begin(request(2)).unwrap(), Begin::Queued));
    assert!(matches!(files.begin(request(3)).unwrap(), Begin::Queued));
    assert_eq!(
        files.load().unwrap().pending,
        Some(request(3)),
        "only the newest is kept"
    );
    let (guard, trailing) = guard
        .finish()
        .unwrap()
        .expect("the pending request is handed over");
    assert_eq!(trailing, request(3));
    assert_eq!(files.load().unwrap().pending, None);
    assert!(guard.finish().unwrap().is_none());
    // Let go: the next request runs.
    assert!(matches!(files.begin(request(4)).unwrap(), Begin::Run(_)));
}

#[test]
fn state_survives_and_a_damaged_file_is_reported_not_reset() {
    let dir = tempfile::tempdir().unwrap();
    let files = StateFiles::new(dir.path(), "p", "s").unwrap();
    files
        .update(|s| {
            s.cursor = Some("uuid-9".into());
            s.turns_since_last = 2;
        })
        .unwrap();
    let again = StateFiles::new(dir.path(), "p", "s").unwrap();
    let state = again.load().unwrap();
    assert_eq!(
        (state.cursor.as_deref(), state.turns_since_last),
        (Some("uuid-9"), 2)
    );
    std::fs::write(files.path(), "{not json").unwrap();
    assert!(matches!(
        files.load(),
        Err(ExtractError::DamagedState { .. })
    ));
    assert!(files.update(|s| s.turns_since_last = 0).is_err());
    assert_eq!(std::fs::read_to_string(files.path()).unwrap(), "{not json");
}

#[test]
fn odd_session_ids_stay_inside_the_state_folder() {
    let dir = tempfile::tempdir().unwrap();
    let files = StateFiles::new(dir.path(), "../../etc", "../../passwd").unwrap();
    files.update(|s| s.turns_since_last = 1).unwrap();
    let root = dir.path().join("memdir").join("extract");
    assert!(
        files.path().starts_with(&root),
        "{}",
        files.path().display()
    );
    assert!(!dir.path().join("passwd.json").exists());
}

#[test]
fn under_contention_runs_never_overlap_and_no_request_is_left_behind() {
    let dir = tempfile::tempdir().unwrap();
    let files = StateFiles::new(dir.path(), "p", "busy").unwrap();
    let running = Arc::new(AtomicBool::new(false));
    let runs = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (files, running, runs) = (files.clone(), Arc::clone(&running), Arc::clone(&runs));
            std::thread::spawn(move || {
                for i in 0..40 {
                    let Begin::Run(mut guard) = files.begin(request(t * 1000 + i)).unwrap() else {
                        continue;
                    };
                    loop {
                        assert!(!running.swap(true, Ordering::SeqCst), "two runs at once");
                        runs.fetch_add(1, Ordering::SeqCst);
                        std::thread::yield_now();
                        running.store(false, Ordering::SeqCst);
                        match guard.finish().unwrap() {
                            Some((next, _request)) => guard = next,
                            None => break,
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        files.load().unwrap().pending,
        None,
        "a queued request was never run"
    );
    assert!(runs.load(Ordering::SeqCst) > 0);
}
