//! Systems that read an embedding model ([`memdir_embed::Embedder`]),
//! measured beside the lexical ranker in the same run: the model's cosine
//! alone, and the local ranker's scores fused with it.
//!
//! Each memory's vector is of its name, description and body, computed
//! once per folder and shared by every runner made from one
//! [`SemanticCache`]. The fused ranking is [`fuse`](crate::fuse)'s; it
//! abstains by [`SemanticFeatures::need`](crate::abstain::SemanticFeatures::need),
//! which reads the cosines beside the lexical signals.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use memdir_embed::{Embedder, cosine};
use memdir_memtypes::read_regular_file;
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

use super::EvalError;
use super::report::{Evaluation, Scores, Target};
use super::run::{Ranking, Runner};
use crate::abstain::{Features, SEMANTIC_NEED_THRESHOLD, nearest, no_need_prompts};
use crate::{FUSED_RELATIVE_CUT, LocalRanker, MAX_RELEVANT, Vectors, fuse, order_by_score};

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
    /// The vectors of [`no_need_prompts`], once embedded.
    no_need: Rc<RefCell<Option<Vectors>>>,
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
            no_need: Rc::default(),
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
            texts.push(crate::index::text_of(&bytes));
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

    /// The cosine of the query vector `q` with the nearest of
    /// [`no_need_prompts`].
    pub fn no_need(&self, q: &[f32]) -> Result<f64, EvalError> {
        let bank = match self.no_need.borrow().as_ref() {
            Some(bank) => Vectors::clone(bank),
            None => Vectors::new(
                self.model
                    .embed_batch(no_need_prompts())
                    .map_err(|e| EvalError::Model(e.to_string()))?,
            ),
        };
        *self.no_need.borrow_mut() = Some(Vectors::clone(&bank));
        Ok(nearest(q, &bank))
    }

    /// The model's vector of `text`.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, EvalError> {
        self.model
            .embed(text)
            .map_err(|e| EvalError::Model(e.to_string()))
    }

    /// The cosine of `query` with each memory of `folder`, by file name.
    pub fn cosines(&self, folder: &Path, query: &str) -> Result<HashMap<String, f64>, EvalError> {
        let p = self.prepared(folder)?;
        let q = self
            .model
            .embed(query)
            .map_err(|e| EvalError::Model(e.to_string()))?;
        Ok(p.names
            .iter()
            .zip(&p.vectors)
            .map(|(name, v)| (name.clone(), f64::from(cosine(v, &q))))
            .collect())
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
    /// The top five for `query`, and whether the abstention (with the
    /// cosines' signals, for the fused ranking) lets a memory through.
    fn rank(&self, folder: &Path, query: &str) -> Result<(Vec<String>, bool), EvalError> {
        let p = self.cache.prepared(folder)?;
        let q = self
            .cache
            .model
            .embed(query)
            .map_err(|e| EvalError::Model(e.to_string()))?;
        let cosines: Vec<f64> = p.vectors.iter().map(|v| f64::from(cosine(v, &q))).collect();
        if !self.fused {
            let order = order_by_score(&cosines);
            let files = order
                .into_iter()
                .take(MAX_RELEVANT)
                .map(|i| p.names[i].clone())
                .collect();
            return Ok((files, true));
        }
        let scored = p.ranker.score_query(query);
        let fused = fuse(&scored, &cosines);
        let order = order_by_score(&fused);
        let best = order.first().map_or(0.0, |&i| fused[i]);
        let no_need = self.cache.no_need(&q)?;
        let needed = Features::of(query, &scored)
            .with_cosines(&cosines, order.first().copied(), no_need)
            .need()
            >= SEMANTIC_NEED_THRESHOLD;
        let files = order
            .into_iter()
            .take_while(|&i| fused[i] >= best * FUSED_RELATIVE_CUT)
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

/// The name of the model's cosine alone in an evaluation's rows.
pub const ALONE: &str = "model cosine alone";
/// The name of memdir's ranking fused with the model.
pub const FUSED: &str = "memdir fused with the model";

fn fused(e: &Evaluation) -> Option<&Scores> {
    e.others.iter().find(|(n, _)| n == FUSED).map(|(_, s)| s)
}

/// The targets the fused system is held to on `LoCoMo`: hit@5 at least
/// 0.65 and MRR at least 0.50. None when the evaluation has no fused row.
#[must_use]
pub fn locomo_targets(e: &Evaluation) -> Vec<Target> {
    let Some(f) = fused(e) else {
        return Vec::new();
    };
    vec![
        Target::at_least(&format!("{FUSED}: hit@5"), f.all.hit_at_5(), 0.65),
        Target::at_least(&format!("{FUSED}: MRR"), f.all.mrr(), 0.50),
    ]
}

/// The targets the fused system is held to on the coding set: hit@5 at
/// least 0.90 on answerable prompts with false injection at most 10%,
/// hit@5 at least 0.70 on the paraphrase prompts, and no kind of prompt
/// worse than memdir's lexical recall by more than 0.02.
#[must_use]
pub fn coding_targets(e: &Evaluation) -> Vec<Target> {
    let Some(f) = fused(e) else {
        return Vec::new();
    };
    let paraphrase = f
        .groups
        .get("kind paraphrase")
        .and_then(super::Metrics::hit_at_5);
    // The largest drop in hit@5 of any kind against lexical recall.
    let worst = f
        .groups
        .iter()
        .filter(|(g, _)| g.starts_with("kind "))
        .filter_map(|(g, m)| {
            let lexical = e.memdir.groups.get(g)?.hit_at_5()?;
            Some((g.clone(), lexical - m.hit_at_5()?))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let drop = worst.as_ref().map(|(_, d)| *d);
    vec![
        Target::at_least(
            &format!("{FUSED}: hit@5 (answerable)"),
            f.all.hit_at_5(),
            0.90,
        ),
        Target::at_most_percent(
            &format!("{FUSED}: false injection (no-memory)"),
            f.all.false_injection(),
            0.10,
        ),
        Target::at_least(&format!("{FUSED}: hit@5 (paraphrase)"), paraphrase, 0.70),
        Target {
            what: format!(
                "{FUSED}: no kind's hit@5 below lexical recall's by more than 0.02 (worst: {})",
                worst.as_ref().map_or("-", |(g, _)| g.as_str())
            ),
            value: drop,
            percent: false,
            met: drop.is_some_and(|d| d <= 0.02),
        },
    ]
}
