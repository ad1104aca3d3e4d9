//! The `not-to-save` check on its labelled set (`fixtures/doctor/not-to-save/`
//! with the not-to-save labels of `fixtures/doctor/memory/`): precision and
//! recall per set, each above the floor measured when it was tuned.

use crate::not_to_save_set::{Case, Score, cases, table};

/// The check's score on the cases of `set` (`all` for every case).
fn score(cases: &[Case], set: &str) -> Score {
    Score::of(cases.iter().filter(|c| set == "all" || c.set == set))
}

/// The floors are the scores measured when the tuning was finished:
/// every memory of the doctor's folder and of the tuning set right, no
/// false alarm on a fresh memory, and 5 of the 7 fresh ones that should
/// be flagged found.
#[test]
#[allow(
    clippy::print_stdout,
    reason = "the table and the wrong verdicts show in the test output"
)]
fn precision_and_recall_stay_above_their_floors() {
    let cases = cases().unwrap();
    let table = table(&cases);
    println!("{table}");
    let count = |set: &str, wanted: bool| {
        cases
            .iter()
            .filter(|c| c.set == set && c.wanted() == wanted)
            .count()
    };
    assert!(count("tuning", true) >= 15 && count("tuning", false) >= 15);
    for (set, precision, recall) in [
        ("fixture", 1.0, 1.0),
        ("tuning", 1.0, 1.0),
        ("fresh", 1.0, 0.71),
        ("all", 1.0, 0.96),
    ] {
        let s = score(&cases, set);
        assert!(
            s.precision() >= precision && s.recall() >= recall,
            "{set}: precision {:.2} recall {:.2}\n{table}",
            s.precision(),
            s.recall()
        );
    }
}
