//! Which memories a request needs (SPEC R6): a local ranker that works
//! offline for English and CJK text and abstains when unsure, and a model
//! selector that falls back to it.
//!
//! - [`find_relevant_memories`] — scan the folder, drop memories already
//!   shown, let the selector choose, return at most five
//!   ([`RelevantMemory`]), with the selector that answered, any selector
//!   diagnostics and the scan's diagnostics ([`Recall`]).
//! - [`LocalRanker`] — BM25 over name, description and file name, with the
//!   body as weaker evidence, over any [`corpus::Corpus`]; NFKC and case
//!   folding, English stemming, bigrams over Han, kana and Hangul.
//!   [`LocalRanker::for_query`] indexes one query's terms only, which is
//!   what a request does.
//! - [`abstain`] — "when unsure, leave it out": whether a request needs a
//!   memory at all, from the best match's strength and coverage and the
//!   prompt's own signals (a general-knowledge question, the team, pasted
//!   text), by a logistic model fitted on labelled prompts
//!   (`examples/fit_abstention.rs` repeats the fit and prints its
//!   cross-validated trade-off); [`Thresholds`] hold its threshold.
//! - [`Selector::Model`] — a side query over the manifest through
//!   [`memdir_model::ModelClient`]; bad names are filtered and any failure
//!   falls back to the local ranker with a diagnostic, never an error.
//! - [`eval`] — the recall evaluation behind `cargo xtask eval`: memdir's
//!   recall beside a plain BM25 floor on labelled datasets (`LoCoMo`, the
//!   coding set, this crate's own), per group, with targets.
//!
//! ```
//! use std::collections::HashSet;
//! use memdir_relevance::{find_relevant_memories, RecallOptions, Selector};
//! use memdir_scan::CancelToken;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("staging-deploys.md"),
//!     "---\nname: staging-deploys\ndescription: Staging deploys go through the release channel\ntype: project\n---\n",
//! )?;
//! let recall = find_relevant_memories("how do I deploy to staging?", dir.path(), &CancelToken::new(), &RecallOptions::default())?;
//! assert_eq!(recall.memories.len(), 1);
//! let none = find_relevant_memories("recipe for banana bread", dir.path(), &CancelToken::new(), &RecallOptions::default())?;
//! assert!(none.memories.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod abstain;
pub mod corpus;
pub mod eval;
pub mod index;
mod indexed;
mod local;
mod select_model;
mod tokenize;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;
use memdir_model::ModelClient;
use memdir_scan::{CancelToken, MemoryHeader, ScanOptions, scan_memory_dir};

pub use local::{
    FUSE_FROM, FUSED_RELATIVE_CUT, FUSION_WEIGHT, LocalRanker, Ranked, Scored, Thresholds,
    apply_thresholds, fuse, is_redundant_tool_doc, order_by_score, score_all, score_query,
};
pub use tokenize::tokenize;

/// At most this many memories are recalled for one request.
pub const MAX_RELEVANT: usize = 5;

/// A memory chosen for a request (SPEC R6.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelevantMemory {
    /// The memory file (UTF-8: the scan skips names that are not).
    pub path: Utf8PathBuf,
    /// Its path relative to the memory folder.
    pub filename: String,
    /// Its modification time, milliseconds since the Unix epoch.
    pub mtime_ms: i64,
}

/// Which selector chooses.
#[derive(Debug, Clone, Copy, Default)]
pub enum Selector<'a> {
    /// The local ranker (SPEC R6.4 b): offline, the default.
    #[default]
    Local,
    /// A model side query (SPEC R6.4 a), falling back to the local ranker.
    Model(&'a ModelClient),
}

/// Which selector produced a recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorUsed {
    /// The local ranker, as asked.
    Local,
    /// The model.
    Model,
    /// The local ranker, because the model failed (see the diagnostics).
    LocalFallback,
}

impl SelectorUsed {
    /// `local`, `model` or `local-fallback`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SelectorUsed::Local => "local",
            SelectorUsed::Model => "model",
            SelectorUsed::LocalFallback => "local-fallback",
        }
    }
}

/// The inputs of a recall besides the query and the folder.
#[derive(Debug, Clone)]
pub struct RecallOptions<'a> {
    /// Tools the agent used recently: reference memories that merely
    /// document them are not recalled, warnings about them are.
    pub recent_tools: Vec<String>,
    /// Memories already shown in this conversation (full paths or paths
    /// relative to the folder), which are not recalled again.
    pub already_surfaced: HashSet<PathBuf>,
    /// The selector.
    pub selector: Selector<'a>,
    /// Whether the local ranker abstains when unsure (its [`Thresholds`]);
    /// `true` by default. Without it the local ranker returns its best
    /// [`MAX_RELEVANT`] by score, however weak: what the evaluation
    /// measures as the ranking before abstention. The model selector
    /// ignores it.
    pub abstain: bool,
    /// The folder's persistent recall index ([`index`]), where the local
    /// ranker reads every memory's terms without reading the files; `None`
    /// scans the folder instead. An index that cannot be used (busy being
    /// built, its folder not writable) falls back to the scan.
    pub index: Option<&'a Path>,
    /// An embedding model whose vectors the index holds
    /// ([`index::RecallIndex::embed_missing`]): the local ranker then fuses
    /// its scores with the model's cosines ([`fuse`]) and abstains by
    /// [`abstain::SemanticFeatures::need`]. Only with an index; memories
    /// without a vector yet rank by their words alone.
    pub embedding: Option<&'a dyn Embedding>,
}

/// Unit vectors of one model, shared.
pub type Vectors = std::sync::Arc<Vec<Vec<f32>>>;

/// An embedding model as recall reads it ([`RecallOptions::embedding`]).
/// The model itself is another crate's (`memdir-embed`); this crate only
/// compares vectors.
pub trait Embedding: std::fmt::Debug {
    /// Names the model: vectors are compared only with vectors of the same
    /// model.
    fn model_id(&self) -> &str;

    /// The unit vectors of `texts`, in their order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;

    /// The vectors of [`abstain::no_need_prompts`], in their order, which
    /// the abstention compares every query with. Embedded on each call
    /// unless the implementation keeps them (a model's are the same for
    /// the life of the model).
    fn no_need_vectors(&self) -> Result<Vectors, String> {
        self.embed(abstain::no_need_prompts())
            .map(std::sync::Arc::new)
    }
}

impl Default for RecallOptions<'_> {
    fn default() -> Self {
        RecallOptions {
            recent_tools: Vec::new(),
            already_surfaced: HashSet::new(),
            selector: Selector::Local,
            abstain: true,
            index: None,
            embedding: None,
        }
    }
}

/// The outcome of a recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recall {
    /// The memories chosen, most relevant first, at most [`MAX_RELEVANT`].
    pub memories: Vec<RelevantMemory>,
    /// Which selector answered.
    pub selector: SelectorUsed,
    /// What went wrong with the selector (a failed model call), one line
    /// each. Never a reason for the recall itself to fail.
    pub diagnostics: Vec<String>,
    /// Files the scan skipped or read with trouble.
    pub scan_diagnostics: Vec<memdir_scan::ScanDiagnostic>,
    /// The recall index asks for a full reconciliation: a front end that
    /// can should run one in the background (`memdir recall-index
    /// refresh`), as the prompt hook does.
    pub index_refresh_due: bool,
}

/// Errors of recall: only a memory folder that cannot be scanned at all, or
/// a dataset that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RelevanceError {
    /// The memory folder cannot be scanned.
    #[error(transparent)]
    Scan(#[from] memdir_scan::ScanError),
    /// A dataset file cannot be read: missing, not a regular file, or over
    /// its size limit.
    #[error(transparent)]
    Read(#[from] memdir_memtypes::ReadError),
    /// A line of an evaluation dataset is not a valid query.
    #[error("{}:{line}: {message}", path.display())]
    Dataset {
        /// The dataset file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// Finds the memories `query` needs (SPEC R6.2): scan, drop what was
/// already surfaced, select, at most [`MAX_RELEVANT`]. A memory folder that
/// does not exist yet holds no memories and is not an error. With
/// [`RecallOptions::index`], the local ranker reads the index instead of
/// scanning (SPEC R6.6).
pub fn find_relevant_memories(
    query: &str,
    memory_dir: &Path,
    cancel: &CancelToken,
    options: &RecallOptions<'_>,
) -> Result<Recall, RelevanceError> {
    let mut diagnostics = Vec::new();
    if let (Some(db), Selector::Local) = (options.index, options.selector)
        && memory_dir.is_dir()
    {
        match indexed::select(query, memory_dir, db, options) {
            Ok(recall) => return Ok(recall),
            Err(index::IndexError::Busy { .. }) => {}
            Err(e) => diagnostics.push(match std::error::Error::source(&e) {
                Some(cause) => format!("{e} ({cause}); scanned the folder instead"),
                None => format!("{e}; scanned the folder instead"),
            }),
        }
    }
    let scan = match scan_memory_dir(
        memory_dir,
        &ScanOptions {
            max_files: usize::MAX,
            ..ScanOptions::default()
        },
        cancel,
    ) {
        Ok(scan) => scan,
        Err(e) if e.is_not_found() => {
            return Ok(Recall {
                memories: Vec::new(),
                selector: SelectorUsed::Local,
                diagnostics,
                scan_diagnostics: Vec::new(),
                index_refresh_due: false,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let mut scan = scan;
    // A replaced memory is never offered (its replacement is).
    scan.remove_superseded();
    let scan_diagnostics = scan.diagnostics;
    let candidates: Vec<MemoryHeader> = scan
        .memories
        .into_iter()
        .filter(|m| {
            !options.already_surfaced.contains(m.file_path.as_std_path())
                && !options.already_surfaced.contains(Path::new(&m.filename))
        })
        .collect();

    let (chosen, selector) = match options.selector {
        Selector::Local => (
            local_select(query, &candidates, options),
            SelectorUsed::Local,
        ),
        Selector::Model(client) => {
            match select_model::select(
                client,
                query,
                &candidates,
                &options.recent_tools,
                MAX_RELEVANT,
            ) {
                Ok(chosen) => (chosen, SelectorUsed::Model),
                Err(e) => {
                    diagnostics.push(format!(
                        "model selector failed ({e}); used the local ranker"
                    ));
                    (
                        local_select(query, &candidates, options),
                        SelectorUsed::LocalFallback,
                    )
                }
            }
        }
    };
    let memories = chosen
        .into_iter()
        .map(|i| {
            let m = &candidates[i];
            RelevantMemory {
                path: m.file_path.clone(),
                filename: m.filename.clone(),
                mtime_ms: m.mtime_ms,
            }
        })
        .collect();
    Ok(Recall {
        memories,
        selector,
        diagnostics,
        scan_diagnostics,
        index_refresh_due: false,
    })
}

/// The local ranker's choice, without reference memories that merely
/// document a recently used tool. The index holds this query's terms only:
/// a recall runs once per request, and indexing every word of the folder
/// would be most of its cost. Without abstention the thresholds are not
/// applied: the best by score, however weak.
fn local_select(
    query: &str,
    candidates: &[MemoryHeader],
    options: &RecallOptions<'_>,
) -> Vec<usize> {
    let ranker = LocalRanker::for_query(candidates, query, Thresholds::default());
    let ranked = if options.abstain {
        ranker.rank(query, candidates.len())
    } else {
        ranker.score_all(query)
    };
    ranked
        .into_iter()
        .map(|r| r.index)
        .filter(|&i| !is_redundant_tool_doc(&candidates[i], &options.recent_tools))
        .take(MAX_RELEVANT)
        .collect()
}
