//! Systems that read an embedding model ([`memdir_embed::Embedder`]),
//! measured beside the lexical ranker in the same run: the model's cosine
//! alone, and the local ranker's scores fused with it.
//!
//! Each memory's vector is of its name, description and body, computed
//! once per folder and shared by every runner made from one
//! [`SemanticCache`]. The fused score of a memory is its BM25 score over
//! the best one's, plus [`FUSION_WEIGHT`] times its cosine with the
//! query: both legs rank every memory, so one that shares no word with
//! the query can still come first.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use memdir_embed::{Embedder, cosine};
use memdir_memtypes::{parse_memory, read_regular_file};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

use super::EvalError;
use super::run::{Ranking, Runner};
use crate::{LocalRanker, MAX_RELEVANT, Thresholds};

/// The weight of the cosine against the best-normalised BM25 score, chosen
/// among 0.5, 1, 2 and 3 on the coding set and the `LoCoMo` development
/// split (hit@5 before abstention: 0.914–0.917 and 0.629–0.661 across
/// them; 2 keeps both near their best).
pub const FUSION_WEIGHT: f64 = 2.0;

/// The largest memory read for its vector.
const MAX_MEMORY_BYTES: u64 = 4 << 20;

/// One folder, ready: its memories, their lexical index and vectors.
struct Prepared {
    names: Vec<String>,
    ranker: LocalRanker,
    vectors: Vec<Vec<f32>>,
}

/// The vectors of each folder's memories, computed once for every runner
/// that shares the cache.
#[derive(Clone)]
pub struct SemanticCache {
    model: Rc<Embedder>,
    folders: Rc<RefCell<HashMap<PathBuf, Rc<Prepared>>>>,
}

impl std::fmt::Debug for SemanticCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SemanticCache")
            .field("folders", &self.folders.borrow().len())
            .finish_non_exhaustive()
    }
}

impl SemanticCache {
    /// A cache over `model`.
    #[must_use]
    pub fn new(model: Embedder) -> Self {
        SemanticCache {
            model: Rc::new(model),
            folders: Rc::default(),
        }
    }

    fn prepared(&self, folder: &Path) -> Result<Rc<Prepared>, EvalError> {
        if let Some(p) = self.folders.borrow().get(folder) {
            return Ok(Rc::clone(p));
        }
        let options = ScanOptions {
            max_files: usize::MAX,
            ..ScanOptions::default()
        };
        let mut scan = scan_memory_dir(folder, &options, &CancelToken::new())
            .map_err(crate::RelevanceError::from)?;
        scan.remove_superseded();
        let mut texts = Vec::with_capacity(scan.memories.len());
        for m in &scan.memories {
            let bytes = read_regular_file(m.file_path.as_std_path(), MAX_MEMORY_BYTES)
                .map_err(crate::RelevanceError::from)?;
            let parsed = parse_memory(&bytes);
            texts.push(format!(
                "{}\n{}\n{}",
                parsed.header.name.unwrap_or_default(),
                parsed.header.description.unwrap_or_default(),
                parsed.body
            ));
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self
            .model
            .embed_batch(&refs)
            .map_err(|e| EvalError::Model(e.to_string()))?;
        let prepared = Rc::new(Prepared {
            names: scan.memories.iter().map(|m| m.filename.clone()).collect(),
            ranker: LocalRanker::new(&scan.memories),
            vectors,
        });
        self.folders
            .borrow_mut()
            .insert(folder.to_owned(), Rc::clone(&prepared));
        Ok(prepared)
    }

    /// The model's cosine alone: top five by cosine, never abstaining.
    #[must_use]
    pub fn cosine_alone(&self) -> Semantic {
        Semantic {
            cache: self.clone(),
            fused: false,
        }
    }

    /// The local ranker's scores fused with the cosine, behind the local
    /// ranker's abstention.
    #[must_use]
    pub fn fused(&self) -> Semantic {
        Semantic {
            cache: self.clone(),
            fused: true,
        }
    }
}

/// A runner over a [`SemanticCache`].
#[derive(Debug, Clone)]
pub struct Semantic {
    cache: SemanticCache,
    fused: bool,
}

impl Semantic {
    /// The top five for `query`, and whether the local ranker's
    /// abstention lets a memory through.
    fn rank(&self, folder: &Path, query: &str) -> Result<(Vec<String>, bool), EvalError> {
        let p = self.cache.prepared(folder)?;
        let q = self
            .cache
            .model
            .embed(query)
            .map_err(|e| EvalError::Model(e.to_string()))?;
        let mut scores: Vec<f64> = p.vectors.iter().map(|v| f64::from(cosine(v, &q))).collect();
        let mut needed = true;
        if self.fused {
            for s in &mut scores {
                *s *= FUSION_WEIGHT;
            }
            let scored = p.ranker.score_query(query);
            needed =
                crate::abstain::Features::of(query, &scored).need() >= Thresholds::default().need;
            if let Some(best) = scored.ranked.first().map(|r| r.score).filter(|b| *b > 0.0) {
                for r in &scored.ranked {
                    scores[r.index] += r.score / best;
                }
            }
        }
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let files = order
            .into_iter()
            .take(MAX_RELEVANT)
            .map(|i| p.names[i].clone())
            .collect();
        Ok((files, needed))
    }
}

impl Runner for Semantic {
    fn prepare(&mut self, folder: &Path) -> Result<(), EvalError> {
        self.cache.prepared(folder).map(|_| ())
    }

    fn recall(&mut self, folder: &Path, query: &str) -> Result<Ranking, EvalError> {
        let (files, needed) = self.rank(folder, query)?;
        Ok(Ranking {
            files: if needed { files } else { Vec::new() },
            top_score: None,
        })
    }

    fn before_abstention(
        &mut self,
        folder: &Path,
        query: &str,
    ) -> Result<Option<Vec<String>>, EvalError> {
        self.rank(folder, query).map(|(files, _)| Some(files))
    }
}
