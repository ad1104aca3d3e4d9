//! `memdir recall`: the memories a request needs, with their age.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use memdir_memtypes::{memory_age, memory_freshness_note, memory_freshness_text, unix_millis};
use memdir_ops::{RecallRequest, SelectorChoice};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "JSON: [{path, filename, mtimeMs, age, freshness, citations?}] (freshness is the \
    <system-reminder> note for memories older than a day, else empty; citations names what the \
    memory cites that no longer holds in the project, absent when all holds)\n\n\
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
    #[serde(skip_serializing_if = "Option::is_none")]
    citations: Option<String>,
}

pub(crate) fn run(args: &RecallArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let request = RecallRequest {
        query: args.query.clone(),
        surfaced: args.surfaced.iter().cloned().collect::<HashSet<_>>(),
        recent_tools: args.recent_tools.clone(),
        selector: match args.selector {
            SelectorArg::Local => SelectorChoice::Local,
            SelectorArg::Model => SelectorChoice::Model,
        },
        citations_budget: None,
        semantic: true,
    };
    let outcome = project.recall(&request).map_err(ops_error)?;
    if outcome.index_refresh {
        // The index asks for a full reconciliation (in a large folder, the
        // listing a recall leaves): it runs on after this command.
        let env = memdir_paths::Environment::from_process();
        if let Err(e) =
            crate::hook::spawn_detached(&project, global, &env, &["recall-index", "refresh"])
        {
            eprintln!("memdir: note: {e:#}");
        }
    }
    for note in &outcome.notes {
        eprintln!("memdir: note: {note}");
    }
    let recall = &outcome.recall;
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
            .zip(&outcome.citations)
            .map(|(m, cited)| RecallJson {
                path: m.path.to_string(),
                filename: m.filename.clone(),
                mtime_ms: m.mtime_ms,
                age: memory_age(m.mtime_ms, now),
                freshness: memory_freshness_note(m.mtime_ms, now),
                citations: cited.clone(),
            })
            .collect();
        print_json(&rows)?;
    } else if recall.memories.is_empty() {
        eprintln!("memdir: no memory is relevant enough to recall");
    } else {
        let mut out = String::new();
        for (m, cited) in recall.memories.iter().zip(&outcome.citations) {
            let _ = writeln!(out, "{} ({})", m.path, memory_age(m.mtime_ms, now));
            let text = memory_freshness_text(m.mtime_ms, now);
            if !text.is_empty() {
                let _ = writeln!(out, "  {text}");
            }
            if let Some(cited) = cited {
                let _ = writeln!(out, "  Checked against the project's files: {cited}.");
            }
        }
        print(&out)?;
    }
    Ok(Outcome::Success)
}
