//! Recall with the configured selector: the local ranker, or a model when
//! one is asked for and configured, falling back to the local ranker with
//! a note saying why.

use std::collections::HashSet;
use std::path::PathBuf;

use memdir_model::{ModelClient, ModelConfig};
use memdir_relevance::{Recall, RecallOptions, Selector, find_relevant_memories};
use memdir_scan::CancelToken;

use crate::{OpsError, Project};

/// Which selector a front end asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SelectorChoice {
    /// The offline lexical ranker.
    #[default]
    Local,
    /// A model side query, configured from the environment, falling back
    /// to the local ranker.
    Model,
}

/// One recall request.
#[derive(Debug, Clone, Default)]
pub struct RecallRequest {
    /// What the user asked.
    pub query: String,
    /// Memories already shown in this conversation (paths, or names
    /// relative to the memory folder).
    pub surfaced: HashSet<PathBuf>,
    /// Tools the agent used recently.
    pub recent_tools: Vec<String>,
    /// Who chooses.
    pub selector: SelectorChoice,
    /// How long the citation check may take; `None` is the default
    /// ([`memdir_citations::DEFAULT_BUDGET`]). `MEMDIR_CITATIONS_BUDGET_MS`
    /// overrides both.
    pub citations_budget: Option<std::time::Duration>,
}

/// A recall and what a front end should tell the user about it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RecallOutcome {
    /// The memories chosen, and the diagnostics of the selector and scan.
    pub recall: Recall,
    /// Why the selector asked for did not answer (no model configured, an
    /// invalid configuration), one line each.
    pub notes: Vec<String>,
    /// For each of `recall.memories` (same order), what it cites that no
    /// longer holds in the project (``cites `src/x.rs`, which does not
    /// exist now``), or `None`; from one bounded check of them all.
    pub citations: Vec<Option<String>>,
    /// The citation cache asks for a refresh (some identifier was left
    /// unsettled, or settled by an old verdict): a front end that can
    /// should run [`Project::refresh_citation_cache`] in the background,
    /// as the hooks do with `memdir verify --cache-only`.
    pub citation_refresh: bool,
}

impl Project {
    /// The memories `request` needs from the private memory folder.
    pub fn recall(&self, request: &RecallRequest) -> Result<RecallOutcome, OpsError> {
        let (recall, notes) = self.choose(request)?;
        let files: Vec<&std::path::Path> = recall
            .memories
            .iter()
            .map(|m| m.path.as_std_path())
            .collect();
        let (citations, citation_refresh) = self.cited_notes(&files, request.citations_budget);
        Ok(RecallOutcome {
            recall,
            notes,
            citations,
            citation_refresh,
        })
    }

    /// The memories `request` needs, chosen by the selector asked for, and
    /// the notes saying why another selector answered; no memory is read
    /// past what the selector reads.
    pub(crate) fn choose(
        &self,
        request: &RecallRequest,
    ) -> Result<(Recall, Vec<String>), OpsError> {
        let mut notes = Vec::new();
        let client = match request.selector {
            SelectorChoice::Local => None,
            SelectorChoice::Model => self.model_client(&mut notes),
        };
        let options = RecallOptions {
            recent_tools: request.recent_tools.clone(),
            already_surfaced: request.surfaced.clone(),
            selector: client.as_ref().map_or(Selector::Local, Selector::Model),
            ..RecallOptions::default()
        };
        let folder = self.folder(crate::Scope::Private)?;
        let recall = find_relevant_memories(
            &request.query,
            folder.as_std_path(),
            &CancelToken::new(),
            &options,
        )?;
        Ok((recall, notes))
    }

    /// The model configured in the environment, or `None` with a note
    /// saying why the local selector answers instead.
    fn model_client(&self, notes: &mut Vec<String>) -> Option<ModelClient> {
        let config = ModelConfig::from_lookup(|k| self.env().var(k).map(str::to_owned));
        match config.and_then(|c| c.map(ModelClient::new).transpose()) {
            Ok(Some(client)) => Some(client),
            Ok(None) => {
                notes.push(
                    "no model is configured (set ANTHROPIC_API_KEY, or OPENAI_BASE_URL and MEMDIR_MODEL); used the local selector"
                        .to_owned(),
                );
                None
            }
            Err(e) => {
                notes.push(format!(
                    "model configuration is invalid ({e}); used the local selector"
                ));
                None
            }
        }
    }
}
