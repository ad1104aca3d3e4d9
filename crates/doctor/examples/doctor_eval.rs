//! Runs every doctor check over the labelled folder `fixtures/doctor/memory/`
//! and prints each check's precision and recall against
//! `fixtures/doctor/labels.toml` (judged per file: a check fires on a file
//! when it reports at least one finding there), then the near-duplicate
//! check's precision and recall at several similarity thresholds.
//!
//! `cargo xtask eval doctor`, or
//! `cargo run -p memdir-doctor --example doctor_eval [-- --failures]`.

#![allow(clippy::print_stdout, reason = "an evaluation prints its table")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;

use memdir_doctor::{Doctor, FolderView, NearDuplicates};

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

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/doctor")
}

#[derive(Default)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Score {
    #[allow(clippy::cast_precision_loss, reason = "counts are small")]
    fn ratio(n: usize, d: usize) -> f64 {
        if d == 0 { 1.0 } else { n as f64 / d as f64 }
    }
    fn precision(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fp)
    }
    fn recall(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fn_)
    }
}

fn main() -> ExitCode {
    let failures = std::env::args().any(|a| a == "--failures");
    let root = fixture();
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
            match (want, got) {
                (true, true) => score.tp += 1,
                (false, true) => score.fp += 1,
                (true, false) => score.fn_ += 1,
                (false, false) => {}
            }
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
            let want = truth.contains(&(a.clone(), b.clone()));
            match (want, *s >= t) {
                (true, true) => score.tp += 1,
                (false, true) => score.fp += 1,
                (true, false) => score.fn_ += 1,
                (false, false) => {}
            }
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
