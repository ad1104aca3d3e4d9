//! `memdir recall`: the memories a request needs, with their age.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use memdir_memtypes::{memory_age, memory_freshness_note, memory_freshness_text, unix_millis};
use memdir_model::{ModelClient, ModelConfig};
use memdir_relevance::{RecallOptions, Selector, find_relevant_memories};
use memdir_scan::CancelToken;
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "JSON: [{path, filename, mtimeMs, age, freshness}] (freshness is the \
    <system-reminder> note for memories older than a day, else empty)\n\n\
    The local selector needs no network. The model selector reads MEMDIR_MODEL_BACKEND, \
    ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL or OPENAI_BASE_URL / OPENAI_API_KEY and MEMDIR_MODEL; \
    without them, or when the model fails, the local selector answers and a note says why."
)]
pub(crate) struct RecallArgs {
    /// The request to find memories for. A QUERY that starts with '-' is
    /// taken as it is (`recall '-v flag'`); put -- before one that looks
    /// like an option (`recall -- --json`).
    #[arg(allow_hyphen_values = true)]
    query: String,
    /// A memory already shown in this conversation (its path, or its name
    /// relative to the memory folder); may be repeated.
    #[arg(long = "surfaced", value_name = "FILE")]
    surfaced: Vec<PathBuf>,
    /// A tool the agent used recently: reference memories that merely
    /// document it are skipped, warnings about it are kept; may be repeated.
    #[arg(long = "recent-tool", value_name = "TOOL")]
    recent_tools: Vec<String>,
    /// Who chooses.
    #[arg(long, value_enum, default_value_t = SelectorArg::Local)]
    selector: SelectorArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SelectorArg {
    /// The offline lexical ranker.
    Local,
    /// A model side query, falling back to the local ranker.
    Model,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecallJson {
    path: String,
    filename: String,
    mtime_ms: i64,
    age: String,
    freshness: String,
}

pub(crate) fn run(args: &RecallArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let resolution = global.resolve()?;
    let client = match args.selector {
        SelectorArg::Local => None,
        SelectorArg::Model => model_client(),
    };
    let options = RecallOptions {
        recent_tools: args.recent_tools.clone(),
        already_surfaced: args.surfaced.iter().cloned().collect::<HashSet<_>>(),
        selector: client.as_ref().map_or(Selector::Local, Selector::Model),
    };
    let recall = find_relevant_memories(
        &args.query,
        resolution.auto_mem_path.as_std_path(),
        &CancelToken::new(),
        &options,
    )?;
    for d in &recall.diagnostics {
        eprintln!("memdir: note: {d}");
    }
    if !recall.scan_diagnostics.is_empty() {
        // One line, not one per file: recall runs in hooks, on every request.
        eprintln!(
            "memdir: note: {} memory files were skipped or read with trouble; `memdir list` names them",
            recall.scan_diagnostics.len()
        );
    }
    let now = unix_millis(std::time::SystemTime::now());
    if global.json {
        let rows: Vec<RecallJson> = recall
            .memories
            .iter()
            .map(|m| RecallJson {
                path: m.path.display().to_string(),
                filename: m.filename.clone(),
                mtime_ms: m.mtime_ms,
                age: memory_age(m.mtime_ms, now),
                freshness: memory_freshness_note(m.mtime_ms, now),
            })
            .collect();
        print_json(&rows)?;
    } else if recall.memories.is_empty() {
        eprintln!("memdir: no memory is relevant enough to recall");
    } else {
        let mut out = String::new();
        for m in &recall.memories {
            let _ = writeln!(
                out,
                "{} ({})",
                m.path.display(),
                memory_age(m.mtime_ms, now)
            );
            let text = memory_freshness_text(m.mtime_ms, now);
            if !text.is_empty() {
                let _ = writeln!(out, "  {text}");
            }
        }
        print(&out)?;
    }
    Ok(Outcome::Success)
}

/// The configured model, or `None` with a note saying why the local
/// selector answers instead.
fn model_client() -> Option<ModelClient> {
    let config = ModelConfig::from_lookup(|k| std::env::var(k).ok().filter(|v| !v.is_empty()));
    let result = match config {
        Ok(Some(config)) => ModelClient::new(config).map(Some),
        Ok(None) => Ok(None),
        Err(e) => Err(e),
    };
    match result {
        Ok(Some(client)) => Some(client),
        Ok(None) => {
            eprintln!(
                "memdir: note: no model is configured (set ANTHROPIC_API_KEY, or OPENAI_BASE_URL and MEMDIR_MODEL); used the local selector"
            );
            None
        }
        Err(e) => {
            eprintln!(
                "memdir: note: model configuration is invalid ({e}); used the local selector"
            );
            None
        }
    }
}
