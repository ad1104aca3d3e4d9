//! Measuring recall on a labelled dataset: a folder of memories and a
//! JSON-lines file of queries, each naming the memory it should find or
//! `null` when nothing should be found. The caller names the dataset
//! ([`dataset_in`] gives the usual layout of a dataset folder); this crate
//! ships none in its library. Its own labelled set lives with its tests
//! (`tests/fixtures/recall-eval/`): `cargo xtask eval` prints its table
//! and a test holds its floor.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use memdir_memtypes::read_regular_file;
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};
use serde::Deserialize;

use crate::{LocalRanker, RelevanceError};

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
    let bytes = read_regular_file(path, MAX_QUERIES_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        RelevanceError::Dataset {
            path: path.to_owned(),
            line: valid.split(|&b| b == b'\n').count(),
            message: "not UTF-8".to_owned(),
        }
    })?;
    parse_queries(&text, path)
}

/// Parses JSON-lines queries; blank lines are skipped. `path` only names
/// the source in errors.
pub fn parse_queries(text: &str, path: &Path) -> Result<Vec<EvalQuery>, RelevanceError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| RelevanceError::Dataset {
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
