//! Runs every doctor check over the labelled folder `fixtures/doctor/memory/`
//! and prints each check's precision and recall against
//! `fixtures/doctor/labels.toml` (judged per file: a check fires on a file
//! when it reports at least one finding there), then the near-duplicate
//! check's precision and recall at several similarity thresholds, then the
//! `not-to-save` check on its own labelled set (`fixtures/doctor/not-to-save/`)
//! per set: the doctor's folder, the memories it was tuned on, and those
//! written after.
//!
//! `cargo xtask eval doctor`, or
//! `cargo run -p memdir-doctor --example doctor_eval [-- --failures]`.

#![allow(clippy::print_stdout, reason = "an evaluation prints its table")]

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use memdir_doctor::{Doctor, FolderView, NearDuplicates};

#[path = "../tests/it/not_to_save_set.rs"]
mod not_to_save_set;

use not_to_save_set::Score;

#[derive(serde::Deserialize)]
struct Labels {
    files: BTreeMap<String, Vec<String>>,
    #[serde(rename = "near-duplicate")]
    near_duplicate: Pairs,
}

#[derive(serde::Deserialize)]
struct Pairs {
    pairs: Vec<(String, String)>,
}

fn main() -> ExitCode {
    let failures = std::env::args().any(|a| a == "--failures");
    let root = not_to_save_set::fixtures();
    let labels: Labels = match std::fs::read_to_string(root.join("labels.toml"))
        .map_err(|e| e.to_string())
        .and_then(|t| toml::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(labels) => labels,
        Err(e) => {
            println!("cannot read labels.toml: {e}");
            return ExitCode::FAILURE;
        }
    };
    let view = match FolderView::read(&root.join("memory")) {
        Ok(view) => view,
        Err(e) => {
            println!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let doctor = Doctor::builtin();
    let mut fired: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in doctor.run_on(&view) {
        fired.entry(f.file).or_default().insert(f.check.to_owned());
    }
    let mut perfect = true;
    println!(
        "{:<16} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "check", "tp", "fp", "fn", "precision", "recall"
    );
    for check in doctor.check_names() {
        let mut score = Score::default();
        for (file, expected) in &labels.files {
            let want = expected.iter().any(|c| c == check);
            let got = fired.get(file).is_some_and(|s| s.contains(check));
            score.add(want, got);
            if want != got && failures {
                println!("  {check}: {file}: expected {want}, fired {got}");
            }
        }
        perfect &= score.fp == 0 && score.fn_ == 0;
        println!(
            "{check:<16} {:>4} {:>4} {:>4} {:>9.2} {:>7.2}",
            score.tp,
            score.fp,
            score.fn_,
            score.precision(),
            score.recall()
        );
    }
    let unlabelled: Vec<_> = fired
        .keys()
        .filter(|f| !labels.files.contains_key(*f))
        .collect();
    if !unlabelled.is_empty() {
        println!("findings on unlabelled files: {unlabelled:?}");
        perfect = false;
    }
    thresholds(&view, &labels);
    match not_to_save_set::cases() {
        Ok(cases) => println!(
            "\nnot-to-save on its labelled set:\n{}",
            not_to_save_set::table(&cases)
        ),
        Err(e) => {
            println!("cannot read the not-to-save set: {e}");
            perfect = false;
        }
    }
    if perfect {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Precision and recall of the near-duplicate check, per pair of the
/// labels' `[near-duplicate] pairs`, at several thresholds.
fn thresholds(view: &FolderView, labels: &Labels) {
    let pairs = NearDuplicates::pairs(view);
    let truth: BTreeSet<(String, String)> = labels
        .near_duplicate
        .pairs
        .iter()
        .map(|(a, b)| {
            if a <= b {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            }
        })
        .collect();
    println!(
        "\nnear-duplicate pairs: {} labelled; the most similar pairs:",
        truth.len()
    );
    for (a, b, s) in pairs.iter().take(6) {
        let mark = if truth.contains(&(a.clone(), b.clone())) {
            "dup"
        } else {
            ""
        };
        println!("  {s:.3} {a} ~ {b} {mark}");
    }
    println!("\n{:>9} {:>9} {:>7}", "threshold", "precision", "recall");
    for t in [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7] {
        let mut score = Score::default();
        for (a, b, s) in &pairs {
            score.add(truth.contains(&(a.clone(), b.clone())), *s >= t);
        }
        let mark = if (t - memdir_doctor::DUPLICATE_THRESHOLD).abs() < 1e-9 {
            " <- DUPLICATE_THRESHOLD"
        } else {
            ""
        };
        println!(
            "{t:>9.2} {:>9.2} {:>7.2}{mark}",
            score.precision(),
            score.recall()
        );
    }
}
