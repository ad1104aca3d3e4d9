//! `memdir recall-index`: the persistent index recall ranks every memory
//! through — what it holds, a full refresh, a rebuild.

use std::io::{IsTerminal as _, Write as _};

use clap::Subcommand;
use memdir_ops::{Project, RecallIndexProgress, RecallIndexReport};

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum RecallIndexCommand {
    /// What the index holds: memories, folders watched, changes waiting
    /// for a merge, size, when every memory was last checked.
    #[command(after_help = "Example:\n  memdir recall-index status\n\n\
        JSON: {path, folder, exists, memories?, folders?, pending?, bytes?, sweptMs?}")]
    Status,
    /// Check the whole folder now: list every directory, stat every
    /// memory, index what changed, merge the segments once 64 changes
    /// wait; with an embedding model installed (`memdir model`), embed the
    /// memories it has not embedded yet, with progress. `recall` and the prompt hook run this in the background when
    /// the index asks for it (in a folder of over 5,000 memories, after
    /// another program changed it).
    #[command(after_help = "Example:\n  memdir recall-index refresh\n\n\
        JSON: {built, added, updated, removed, listed, swept, compacted, embedded}")]
    Refresh,
    /// Make the index anew from every memory file, with progress on a
    /// terminal. Never needed for correctness: a missing or damaged index
    /// is rebuilt by the next recall.
    #[command(after_help = "Example:\n  memdir recall-index rebuild\n\n\
        JSON: {built, added, updated, removed, listed, swept, compacted, embedded}")]
    Rebuild,
}

pub(crate) fn run(cmd: &RecallIndexCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    match cmd {
        RecallIndexCommand::Status => status(&project, global),
        RecallIndexCommand::Refresh => refresh(&project, global, false),
        RecallIndexCommand::Rebuild => refresh(&project, global, true),
    }
}

fn status(project: &Project, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let path = project.recall_index_path();
    let status = project.recall_index_status().map_err(ops_error)?;
    if global.json {
        let mut value = serde_json::json!({
            "path": path.display().to_string(),
            "exists": status.is_some(),
        });
        if let Some(s) = &status {
            value["folder"] = s.folder.display().to_string().into();
            value["memories"] = s.memories.into();
            value["folders"] = s.folders.into();
            value["pending"] = s.pending.into();
            value["bytes"] = s.bytes.into();
            value["sweptMs"] = s.swept_ms.into();
        }
        print_json(&value)?;
        return Ok(Outcome::Success);
    }
    let text = match status {
        None => format!(
            "no recall index yet ({}); the next recall builds it\n",
            path.display()
        ),
        Some(s) => format!(
            "{}\n  folder: {}\n  memories: {}\n  folders watched: {}\n  changes since the last merge: {}\n  size: {} KiB\n  every memory checked since: {}\n",
            s.path.display(),
            s.folder.display(),
            s.memories,
            s.folders,
            s.pending,
            s.bytes.div_ceil(1024),
            s.swept_ms.map_or_else(
                || "never".to_owned(),
                |ms| jiff::Timestamp::from_millisecond(ms)
                    .map_or_else(|_| ms.to_string(), |t| t.to_string())
            ),
        ),
    };
    print(&text)?;
    Ok(Outcome::Success)
}

fn refresh(project: &Project, global: &GlobalArgs, rebuild: bool) -> anyhow::Result<Outcome> {
    let mut progress = progress_line("indexing memories");
    let (report, notes) = project
        .refresh_recall_index(rebuild, &mut progress)
        .map_err(ops_error)?;
    for note in &notes {
        eprintln!("memdir: {note}");
    }
    // With an embedding model installed, the memories it has not embedded
    // yet: slow work (tens of milliseconds each), so it shows progress.
    let mut embedding_progress = progress_line("embedding memories");
    let (embedded, notes) = project
        .embed_recall_index(&mut embedding_progress)
        .map_err(ops_error)?;
    for note in &notes {
        eprintln!("memdir: {note}");
    }
    if global.json {
        let mut value = json(&report);
        value["embedded"] = embedded.into();
        print_json(&value)?;
    } else {
        let what = if report.built { "built" } else { "refreshed" };
        let embedded =
            embedded.map_or_else(String::new, |n| format!("; {n} embedded with the model"));
        print(&format!(
            "recall index {what}: {} added, {} updated, {} removed; {} folders listed, {} memories checked{}{embedded}\n",
            report.added,
            report.updated,
            report.removed,
            report.listed,
            report.swept,
            if report.compacted {
                "; segments merged"
            } else {
                ""
            },
        ))?;
    }
    Ok(Outcome::Success)
}

/// A progress line on a terminal's stderr, `WHAT: done/total`, ended once
/// all are done; nothing when stderr is not a terminal.
fn progress_line(what: &'static str) -> impl FnMut(RecallIndexProgress) {
    let show = std::io::stderr().is_terminal();
    move |p: RecallIndexProgress| {
        if show && p.total > 0 {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{what}: {}/{}", p.done, p.total);
            if p.done == p.total {
                let _ = writeln!(err);
            }
        }
    }
}

fn json(r: &RecallIndexReport) -> serde_json::Value {
    serde_json::json!({
        "built": r.built,
        "added": r.added,
        "updated": r.updated,
        "removed": r.removed,
        "listed": r.listed,
        "swept": r.swept,
        "compacted": r.compacted,
    })
}
