//! Prints the recall evaluation table for a dataset (by default the one in
//! `fixtures/recall-eval/`), and every wrong answer with `--failures`.
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

use memdir_relevance::eval::{bundled_dataset, evaluate, load_queries};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_failures = args.iter().any(|a| a == "--failures");
    let (memories, queries) = match args.iter().find(|a| !a.starts_with("--")) {
        Some(dir) => (
            PathBuf::from(dir).join("memories"),
            PathBuf::from(dir).join("queries.jsonl"),
        ),
        None => bundled_dataset(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")),
    };
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
