//! Prints the recall evaluation table for a dataset (by default this
//! crate's own, `tests/fixtures/recall-eval/`), and every wrong answer
//! with `--failures`.
//!
//! `cargo xtask eval` runs it; so does
//! `cargo run -p memdir-relevance --example recall_eval -- [DATASET_DIR] [--failures]`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program whose output is the evaluation table"
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use memdir_relevance::eval::{dataset_in, evaluate, load_queries};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_failures = args.iter().any(|a| a == "--failures");
    let folder = match args.iter().find(|a| !a.starts_with("--")) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval"),
    };
    let (memories, queries) = dataset_in(&folder);
    let report = match load_queries(&queries).and_then(|q| evaluate(&memories, &q)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("recall_eval: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{}", report.table());
    if show_failures {
        for f in &report.failures {
            println!("  {f}");
        }
    }
    ExitCode::SUCCESS
}
