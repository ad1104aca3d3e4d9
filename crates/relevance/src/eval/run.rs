//! Running a system over a dataset: the [`Runner`]s (memdir's recall and
//! the BM25 floor) and the threshold a floor is given for a fair
//! comparison with a system that abstains.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memdir_scan::CancelToken;

use super::EvalError;
use super::dataset::{Dataset, Label};
use super::floor::Bm25Floor;
use crate::{MAX_RELEVANT, RecallOptions, find_relevant_memories};

/// What a system returned for one query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// File names relative to the folder, best first, at most five.
    pub files: Vec<String>,
    /// The best score, for a system that scores (the floor).
    pub top_score: Option<f64>,
}

/// A system under evaluation.
pub trait Runner {
    /// Gets ready to answer queries over `folder` (builds an index); not
    /// counted in the latency.
    fn prepare(&mut self, folder: &Path) -> Result<(), EvalError> {
        let _ = folder;
        Ok(())
    }

    /// What the system returns for `query` over `folder`.
    fn recall(&mut self, folder: &Path, query: &str) -> Result<Ranking, EvalError>;

    /// Its ranking before abstention, for a system that abstains; `None`
    /// when it never does (then [`Runner::recall`]'s is the same).
    fn before_abstention(
        &mut self,
        folder: &Path,
        query: &str,
    ) -> Result<Option<Vec<String>>, EvalError> {
        let _ = (folder, query);
        Ok(None)
    }
}

/// memdir's recall through [`find_relevant_memories`], over the folder on
/// disk, with the default options (local ranker, abstaining); before
/// abstention is the same call with [`RecallOptions::abstain`] off.
#[derive(Debug, Clone, Copy, Default)]
pub struct Memdir;

impl Memdir {
    fn files(folder: &Path, query: &str, abstain: bool) -> Result<Vec<String>, EvalError> {
        let options = RecallOptions {
            abstain,
            ..RecallOptions::default()
        };
        let recall = find_relevant_memories(query, folder, &CancelToken::new(), &options)?;
        Ok(recall.memories.into_iter().map(|m| m.filename).collect())
    }
}

impl Runner for Memdir {
    fn recall(&mut self, folder: &Path, query: &str) -> Result<Ranking, EvalError> {
        Ok(Ranking {
            files: Memdir::files(folder, query, true)?,
            top_score: None,
        })
    }

    fn before_abstention(
        &mut self,
        folder: &Path,
        query: &str,
    ) -> Result<Option<Vec<String>>, EvalError> {
        Memdir::files(folder, query, false).map(Some)
    }
}

/// The plain BM25 floor ([`Bm25Floor`]) over every memory of the folder:
/// top five, no threshold. Each folder is indexed once.
#[derive(Debug, Clone, Default)]
pub struct Floor {
    indexes: HashMap<PathBuf, Bm25Floor>,
}

impl Floor {
    /// How many memories the index of `folder` holds (0 before
    /// [`Runner::prepare`]).
    #[must_use]
    pub fn memories(&self, folder: &Path) -> usize {
        self.indexes.get(folder).map_or(0, Bm25Floor::len)
    }
}

impl Runner for Floor {
    fn prepare(&mut self, folder: &Path) -> Result<(), EvalError> {
        if !self.indexes.contains_key(folder) {
            let index = Bm25Floor::index_folder(folder)?;
            self.indexes.insert(folder.to_owned(), index);
        }
        Ok(())
    }

    fn recall(&mut self, folder: &Path, query: &str) -> Result<Ranking, EvalError> {
        self.prepare(folder)?;
        let hits = self.indexes[folder].search(query, MAX_RELEVANT);
        Ok(Ranking {
            top_score: hits.first().map(|h| h.1),
            files: hits.into_iter().map(|h| h.0).collect(),
        })
    }
}

/// What one query got.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseResult {
    /// The system's answer.
    pub ranking: Ranking,
    /// Its ranking before abstention.
    pub before: Vec<String>,
    /// How long [`Runner::recall`] took.
    pub elapsed: Duration,
}

/// Runs every query of `dataset` through `runner`, in
/// [`Dataset::cases`]'s order.
pub fn run(dataset: &Dataset, runner: &mut dyn Runner) -> Result<Vec<CaseResult>, EvalError> {
    let mut results = Vec::new();
    for folder in &dataset.folders {
        runner.prepare(&folder.path)?;
        for case in &folder.cases {
            let start = Instant::now();
            let ranking = runner.recall(&folder.path, &case.query)?;
            let elapsed = start.elapsed();
            let before = match runner.before_abstention(&folder.path, &case.query)? {
                Some(before) => before,
                None => ranking.files.clone(),
            };
            results.push(CaseResult {
                ranking,
                before,
                elapsed,
            });
        }
    }
    Ok(results)
}

/// The lowest top-score threshold that keeps false injection at most
/// `max_percent`% on the no-memory queries: with `scores` the best score
/// each no-memory query got (0 when it got nothing), a system answering
/// only when its best score is above the threshold answers at most that
/// share of them. `None` when there are no no-memory queries to
/// calibrate on.
#[must_use]
pub fn calibrate_threshold(scores: &[f64], max_percent: usize) -> Option<f64> {
    if scores.is_empty() {
        return None;
    }
    let mut sorted = scores.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    // At most this many may be answered: those above the next score.
    let allowed = scores.len() * max_percent.min(100) / 100;
    Some(sorted.get(allowed).copied().unwrap_or(0.0).max(0.0))
}

/// `result` as a system would give it that answers only when its best
/// score is above `threshold`; the ranking before abstention is kept.
#[must_use]
pub fn with_threshold(result: &CaseResult, threshold: f64) -> CaseResult {
    let keep = result.ranking.top_score.is_some_and(|s| s > threshold);
    CaseResult {
        ranking: if keep {
            result.ranking.clone()
        } else {
            Ranking::default()
        },
        ..result.clone()
    }
}

/// The best score each no-memory query of `dataset` got in `results`.
pub(super) fn no_memory_scores(dataset: &Dataset, results: &[CaseResult]) -> Vec<f64> {
    dataset
        .cases()
        .zip(results)
        .filter(|(c, _)| c.label == Label::NoMemory)
        .map(|(_, r)| r.ranking.top_score.unwrap_or(0.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(top: Option<f64>) -> CaseResult {
        CaseResult {
            ranking: Ranking {
                files: top.map(|_| vec!["a.md".to_owned()]).unwrap_or_default(),
                top_score: top,
            },
            before: vec!["a.md".to_owned()],
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn the_threshold_lets_through_at_most_the_share_asked() {
        // Twenty no-memory queries: 15% is three of them.
        let scores: Vec<f64> = (1..=20).map(f64::from).collect();
        let t = calibrate_threshold(&scores, 15).unwrap();
        assert!((t - 17.0).abs() < 1e-12, "{t}");
        assert_eq!(scores.iter().filter(|&&s| s > t).count(), 3);
        // Ties at the threshold are all refused: fewer, never more.
        let tied = [5.0, 5.0, 5.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let t = calibrate_threshold(&tied, 15).unwrap();
        assert_eq!(tied.iter().filter(|&&s| s > t).count(), 0);
        // When most got nothing, anything with a score may answer.
        assert_eq!(
            calibrate_threshold(&[3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 15),
            Some(0.0)
        );
        assert_eq!(calibrate_threshold(&[], 15), None);
        assert_eq!(calibrate_threshold(&[2.0, 1.0], 100), Some(0.0));
    }

    #[test]
    fn a_thresholded_result_keeps_its_ranking_before_abstention() {
        let above = with_threshold(&scored(Some(3.0)), 2.0);
        assert_eq!(above.ranking.files, ["a.md"]);
        let below = with_threshold(&scored(Some(2.0)), 2.0);
        assert!(below.ranking.files.is_empty());
        assert_eq!(below.before, ["a.md"]);
        assert!(with_threshold(&scored(None), 0.0).ranking.files.is_empty());
    }
}
