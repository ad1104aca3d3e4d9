//! Measuring recall on labelled datasets, beside a plain BM25 floor
//! computed in the same run, so that a figure always has something to
//! be compared with and a target can be missed.
//!
//! - [`Dataset`]: folders of memories on disk, each with its labelled
//!   [`Case`]s. Three loaders: [`bundled`] (this crate's own set, the
//!   format of [`EvalQuery`]), [`coding::load`] (folders of
//!   `memory/*.md` and `prompts.jsonl`) and [`locomo::load`] (the `LoCoMo`
//!   benchmark's JSON, turned into memory files that the caller writes
//!   to a folder of its own: this crate never writes).
//! - [`Runner`]: a system under test. [`Memdir`] recalls through
//!   [`find_relevant_memories`](crate::find_relevant_memories), the path
//!   users get, with and without abstention; [`Floor`] is plain BM25
//!   ([`Bm25Floor`]) over every memory of the folder.
//! - [`Metrics`]: hit@1, hit@5, MRR over the top five, the share of
//!   answerable queries that got nothing, the share of no-memory queries
//!   that got something (false injection), and hit@5 before abstention.
//! - [`evaluate_dataset`] runs both systems and a floor with a top-score
//!   threshold calibrated on the no-memory queries; [`Evaluation::table`]
//!   prints it and [`Target`]s say what was met.
//!
//! The older top-1 measure ([`evaluate`], [`EvalReport`]) stays: a test
//! holds the bundled set's floor with it. `cargo xtask eval` prints all
//! of it.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use memdir_memtypes::read_regular_file;
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};
use serde::Deserialize;

use crate::{LocalRanker, RelevanceError};

pub mod coding;
mod dataset;
mod floor;
pub mod locomo;
mod metrics;
mod report;
mod run;
#[cfg(feature = "semantic")]
pub mod semantic;

pub use dataset::{Case, Dataset, Folder, Label, bundled};
pub use floor::{Bm25Floor, floor_terms};
pub use metrics::{Metrics, first_hit};
pub use report::{
    Evaluation, FLOOR_MAX_FALSE_INJECTION_PERCENT, Latency, Scores, Target, bundled_targets,
    evaluate_dataset, evaluate_dataset_with,
};
pub use run::{
    CaseResult, Floor, Memdir, Ranking, Runner, calibrate_threshold, run, with_threshold,
};

/// Errors of an evaluation beyond those of recall: a dataset folder that
/// cannot be listed, or a dataset whose content is not what its loader
/// expects.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// Recall, or reading a dataset file, failed.
    #[error(transparent)]
    Relevance(#[from] RelevanceError),
    /// A dataset folder cannot be listed.
    #[error("cannot list {}: {source}", path.display())]
    List {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A dataset file parses but does not hold what it should (a session
    /// without a date, an unknown question category).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The dataset file.
        path: PathBuf,
        /// What is wrong, and where in it.
        message: String,
    },
    /// The embedding model of a semantic system failed.
    #[error("{0}")]
    Model(String),
}

/// One labelled query.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct EvalQuery {
    /// A short identifier.
    pub id: String,
    /// The category it belongs to (`english`, `chinese`, …, `no-result`).
    pub category: String,
    /// The request text.
    pub query: String,
    /// The file name it should find first, or `None` when it should find
    /// nothing.
    pub expect: Option<String>,
}

/// A query file larger than this is refused rather than read (SPEC
/// R18.4): a dataset is hundreds of short lines, not megabytes.
pub const MAX_QUERIES_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a JSON-lines query file (a regular file of at most
/// [`MAX_QUERIES_BYTES`]); blank lines are skipped.
pub fn load_queries(path: &Path) -> Result<Vec<EvalQuery>, RelevanceError> {
    parse_queries(&read_text(path)?, path)
}

/// Parses JSON-lines queries; blank lines are skipped. `path` only names
/// the source in errors.
pub fn parse_queries(text: &str, path: &Path) -> Result<Vec<EvalQuery>, RelevanceError> {
    Ok(parse_jsonl(text, path)?
        .into_iter()
        .map(|(_, q)| q)
        .collect())
}

/// A dataset's text file: a regular file of at most [`MAX_QUERIES_BYTES`],
/// in UTF-8.
fn read_text(path: &Path) -> Result<String, RelevanceError> {
    let bytes = read_regular_file(path, MAX_QUERIES_BYTES)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        RelevanceError::Dataset {
            path: path.to_owned(),
            line: valid.split(|&b| b == b'\n').count(),
            message: "not UTF-8".to_owned(),
        }
    })
}

/// JSON lines, each with its 1-based line number; blank lines are skipped.
fn parse_jsonl<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<Vec<(usize, T)>, RelevanceError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map(|v| (i + 1, v))
                .map_err(|e| RelevanceError::Dataset {
                    path: path.to_owned(),
                    line: i + 1,
                    message: e.to_string(),
                })
        })
        .collect()
}

/// The results for one category.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CategoryScore {
    /// Queries in the category.
    pub total: usize,
    /// Queries answered right: the expected memory first, or nothing for a
    /// no-result query.
    pub correct: usize,
    /// Whether the category's queries expect nothing.
    pub abstain: bool,
}

/// The outcome of an evaluation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvalReport {
    /// Scores per category, by name.
    pub categories: BTreeMap<String, CategoryScore>,
    /// One line per wrong answer: id, query, expected and got.
    pub failures: Vec<String>,
}

impl EvalReport {
    /// Share of queries with an expected memory that found it first.
    #[must_use]
    pub fn top1_accuracy(&self) -> f64 {
        self.ratio(false)
    }

    /// Share of no-result queries that found nothing.
    #[must_use]
    pub fn abstain_accuracy(&self) -> f64 {
        self.ratio(true)
    }

    fn ratio(&self, abstain: bool) -> f64 {
        let (total, correct) = self
            .categories
            .values()
            .filter(|c| c.abstain == abstain)
            .fold((0, 0), |(t, c), s| (t + s.total, c + s.correct));
        if total == 0 {
            1.0
        } else {
            f64::from(u32::try_from(correct).unwrap_or(u32::MAX))
                / f64::from(u32::try_from(total).unwrap_or(u32::MAX))
        }
    }

    /// The report as a text table, one row per category and two totals.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<18} {:>7} {:>7} {:>9}  measure",
            "category", "queries", "correct", "accuracy"
        );
        let pct = |c: usize, t: usize| {
            if t == 0 {
                100.0
            } else {
                f64::from(u32::try_from(c).unwrap_or(0)) * 100.0
                    / f64::from(u32::try_from(t).unwrap_or(1))
            }
        };
        for (name, s) in &self.categories {
            let measure = if s.abstain { "abstain" } else { "top-1" };
            let _ = writeln!(
                out,
                "{name:<18} {:>7} {:>7} {:>8.1}%  {measure}",
                s.total,
                s.correct,
                pct(s.correct, s.total)
            );
        }
        let _ = writeln!(
            out,
            "{:<18} {:>25.1}%  top-1",
            "all lexical",
            self.top1_accuracy() * 100.0
        );
        let _ = writeln!(
            out,
            "{:<18} {:>25.1}%  abstain",
            "all no-result",
            self.abstain_accuracy() * 100.0
        );
        out
    }
}

/// Runs every query against the local ranker over `memories_dir`.
pub fn evaluate(memories_dir: &Path, queries: &[EvalQuery]) -> Result<EvalReport, RelevanceError> {
    let scan = scan_memory_dir(memories_dir, &ScanOptions::default(), &CancelToken::new())?;
    let ranker = LocalRanker::new(&scan.memories);
    let mut report = EvalReport::default();
    for q in queries {
        let got: Vec<&str> = ranker
            .rank(&q.query, 5)
            .iter()
            .map(|r| scan.memories[r.index].filename.as_str())
            .collect();
        let right = match &q.expect {
            Some(expect) => got.first() == Some(&expect.as_str()),
            None => got.is_empty(),
        };
        let score = report.categories.entry(q.category.clone()).or_default();
        score.total += 1;
        score.correct += usize::from(right);
        score.abstain = q.expect.is_none();
        if !right {
            report.failures.push(format!(
                "{} {:?}: expected {:?}, got {:?}",
                q.id, q.query, q.expect, got
            ));
        }
    }
    Ok(report)
}

/// The memory folder and the query file of a dataset folder laid out as
/// `memories/` and `queries.jsonl`.
#[must_use]
pub fn dataset_in(folder: &Path) -> (PathBuf, PathBuf) {
    (folder.join("memories"), folder.join("queries.jsonl"))
}
