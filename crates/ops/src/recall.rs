//! Recall with the configured selector: the local ranker, or a model when
//! one is asked for and configured, falling back to the local ranker with
//! a note saying why.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use memdir_model::{ModelClient, ModelConfig};
use memdir_relevance::index::{IndexStatus, Progress, RecallIndex, Reconciled};
use memdir_relevance::{Recall, RecallOptions, Selector, find_relevant_memories};
use memdir_scan::CancelToken;

use crate::{OpsError, Project, Scope};

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
    /// Rank with the installed embedding model too, when one is installed
    /// (`memdir recall`, the MCP server). Off for the prompt hook: loading
    /// the model costs more than its budget.
    pub semantic: bool,
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
    /// The recall index asks for a full reconciliation: a front end that
    /// can should run [`Project::refresh_recall_index`] in the background,
    /// as the prompt hook does with `memdir recall-index refresh`.
    pub index_refresh: bool,
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
        let index_refresh = recall.index_refresh_due;
        Ok(RecallOutcome {
            recall,
            notes,
            citations,
            citation_refresh,
            index_refresh,
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
        let index = self.recall_index_kept().then(|| self.recall_index_path());
        let embedding = if request.semantic && index.is_some() {
            self.embedding(&mut notes)
        } else {
            None
        };
        let options = RecallOptions {
            recent_tools: request.recent_tools.clone(),
            already_surfaced: request.surfaced.clone(),
            selector: client.as_ref().map_or(Selector::Local, Selector::Model),
            index: index.as_deref(),
            embedding: embedding
                .as_ref()
                .map(|m| m as &dyn memdir_relevance::Embedding),
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

impl Project {
    /// Where the recall index of the private memory folder (`team/`
    /// included) is kept: `<base>/memdir/recall/<folder slug>.sqlite`.
    #[must_use]
    pub fn recall_index_path(&self) -> PathBuf {
        let folder = self
            .folder(Scope::Private)
            .map_or_else(|_| self.resolution().base.to_string(), |f| f.to_string());
        self.resolution()
            .base
            .as_std_path()
            .join("memdir")
            .join("recall")
            .join(format!("{}.sqlite", memdir_paths::project_slug(&folder)))
    }

    /// Whether a recall index is kept: only under a base folder that
    /// exists, since recall does not create the agent's configuration
    /// folder. Without one, recall scans the folder.
    fn recall_index_kept(&self) -> bool {
        self.resolution().base.as_std_path().is_dir()
    }

    /// Opens the recall index of the private memory folder.
    fn open_recall_index(&self) -> Result<RecallIndex, OpsError> {
        let folder = self.folder(Scope::Private)?;
        Ok(RecallIndex::open(
            &self.recall_index_path(),
            folder.as_std_path(),
        )?)
    }

    /// Brings the recall index up to date with the whole folder: the
    /// directories that changed listed first, then every directory listed,
    /// every memory stat'ed, its segments merged when enough changed
    /// (`memdir recall-index refresh`, what a recall asks the front end to
    /// start in the background); with `rebuild`, made anew from every file
    /// (`memdir recall-index rebuild`). `progress` hears how many memories were read
    /// when files are read in bulk.
    pub fn refresh_recall_index(
        &self,
        rebuild: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Reconciled, Vec<String>), OpsError> {
        if !self.recall_index_kept() {
            return Err(OpsError::NoRecallIndex {
                base: self.resolution().base.clone().into_std_path_buf(),
            });
        }
        let folder = self.folder(Scope::Private)?;
        if let Err(source) = std::fs::read_dir(folder.as_std_path()) {
            // Nothing to index, and no index file made for nothing.
            return Err(memdir_relevance::index::IndexError::MemoryFolder {
                path: folder.into_std_path_buf(),
                source,
            }
            .into());
        }
        let mut index = self.open_recall_index()?;
        let report = if rebuild {
            index.rebuild(progress)?
        } else {
            index.refresh(progress)?
        };
        Ok((report, index.notes().to_vec()))
    }

    /// Embeds, with the installed model, every indexed memory that has no
    /// vector of it yet, sixteen at a time, each batch kept as it is done
    /// (a kill loses at most one); `progress` hears after each batch.
    /// Returns how many were embedded, `None` when no model is installed,
    /// and any notes.
    pub fn embed_recall_index(
        &self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Option<usize>, Vec<String>), OpsError> {
        let mut notes = Vec::new();
        if !self.recall_index_path().is_file() {
            return Ok((None, notes));
        }
        let Some(model) = self.embedding(&mut notes) else {
            return Ok((None, notes));
        };
        let mut index = self.open_recall_index()?;
        let embedded = index.embed_missing(&model, progress)?;
        Ok((Some(embedded), notes))
    }

    /// What the recall index holds, or `None` when there is none yet.
    pub fn recall_index_status(&self) -> Result<Option<IndexStatus>, OpsError> {
        if !self.recall_index_path().is_file() {
            return Ok(None);
        }
        Ok(Some(self.open_recall_index()?.status()?))
    }

    /// Brings the recall index up to date after the agent's own tool
    /// wrote `path` (the post-tool hook): when `path` is a memory file of
    /// the private folder (`team/` included), it is read again, which
    /// finds a rewrite in place at any folder size, and the index is
    /// reconciled as a recall would reconcile it, so that the next
    /// prompt's recall finds the folder as it was left and lists nothing.
    /// It may wait up to 20 ms for the folder's time to be trusted.
    /// Anything else, or a folder with no index yet (the next recall
    /// builds it), is left alone. Returns whether `path` was a memory.
    pub fn index_agent_write(&self, path: &Path) -> Result<bool, OpsError> {
        if !self.recall_index_path().is_file() {
            return Ok(false);
        }
        let folder = self.folder(Scope::Private)?;
        let Some(rel) = relative_memory(folder.as_std_path(), path) else {
            return Ok(false);
        };
        self.open_recall_index()?.settle_after_write(&[rel])?;
        Ok(true)
    }

    /// Tells the recall index that memdir wrote `files` (relative to the
    /// `scope` folder), so that the next recall finds them indexed. Called
    /// by the writers under the folder's lock; a cache, so a failure is
    /// only logged (the next recall's reconciliation finds the change).
    pub(crate) fn note_written(&self, scope: Scope, files: &[&str]) {
        if files.is_empty() || !self.recall_index_path().is_file() {
            return;
        }
        let (Ok(root), Ok(folder)) = (self.folder(Scope::Private), self.folder(scope)) else {
            return;
        };
        let Ok(prefix) = folder.strip_prefix(&root) else {
            return;
        };
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                if prefix.as_str().is_empty() {
                    (*f).to_owned()
                } else {
                    format!("{prefix}/{f}")
                }
            })
            .collect();
        let updated = self
            .open_recall_index()
            .and_then(|mut index| Ok(index.update_files(&names)?));
        if let Err(e) = updated {
            log::debug!("the recall index was not updated: {e}");
        }
    }
}

/// `path` relative to the memory `folder` (`/`-separated), when it names a
/// memory file inside it: taken as given, then with both resolved (the
/// agent may spell the folder through a link).
fn relative_memory(folder: &Path, path: &Path) -> Option<String> {
    let inside = |folder: &Path, path: &Path| -> Option<String> {
        let rel = path.strip_prefix(folder).ok()?;
        let parts: Vec<&str> = rel
            .components()
            .map(|c| match c {
                std::path::Component::Normal(name) => name.to_str(),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let name = parts.last()?;
        (memdir_scan::is_memory_name(name) && !parts.iter().any(|p| p.starts_with('.')))
            .then(|| parts.join("/"))
    };
    inside(folder, path).or_else(|| {
        let folder = std::fs::canonicalize(folder).ok()?;
        let parent = std::fs::canonicalize(path.parent()?).ok()?;
        inside(&folder, &parent.join(path.file_name()?))
    })
}

#[cfg(test)]
mod tests {
    use super::relative_memory;

    #[test]
    fn a_memory_path_is_named_from_its_folder() {
        let tmp = memdir_testkit::Folders::new();
        let folder = tmp.root.join("memory");
        std::fs::create_dir_all(folder.join("team")).unwrap();
        let rel = |p: &std::path::Path| relative_memory(&folder, p);
        let none: Option<String> = None;
        assert_eq!(rel(&folder.join("a.md")), Some("a.md".to_owned()));
        assert_eq!(rel(&folder.join("team/b.md")), Some("team/b.md".to_owned()));
        for not_a_memory in [
            folder.join("MEMORY.md"),
            folder.join("notes.txt"),
            folder.join(".conflicts/a.md"),
            tmp.root.join("a.md"),
        ] {
            assert_eq!(rel(&not_a_memory), none, "{}", not_a_memory.display());
        }
        assert_eq!(rel(&folder.join("team/../a.md")), Some("a.md".to_owned()));
        // The folder spelled through a link.
        #[cfg(unix)]
        {
            let link = tmp.root.join("link");
            std::os::unix::fs::symlink(&folder, &link).unwrap();
            assert_eq!(rel(&link.join("team/b.md")), Some("team/b.md".to_owned()));
        }
    }
}
