//! `memdir dream`: the daily logs not yet distilled, folded into topic
//! files and MEMORY.md by a restricted agent.

use std::fmt::Write as _;

use clap::Args;
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "\
Reads the daily logs (<auto>/logs/YYYY/MM/YYYY-MM-DD.md) that no dream has read yet, or that grew \
since, and lets a restricted agent (at most 5 model calls; Read, Grep, Glob, read-only Bash, and \
Edit/Write only inside the memory folder) fold them into topic files; each memory written gets \
its line in MEMORY.md. With no new logs, no model is called. The logs read are recorded under \
<base>/memdir/dream/ after a run that did not fail.

The model comes from the environment, as for `memdir extract`. Without one, the command says so \
and reads nothing (exit 1).

Examples:
  memdir dream
  memdir dream --json

JSON: {ran, saved: [path], logsRead: [path], reason, turns, stop}")]
pub(crate) struct DreamArgs {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DreamJson {
    ran: bool,
    saved: Vec<String>,
    logs_read: Vec<String>,
    reason: String,
    turns: u32,
    stop: Option<String>,
}

pub(crate) fn run(_args: &DreamArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let report = project.dream().map_err(ops_error)?;
    let outcome = &report.outcome;
    let paths = |list: &[std::path::PathBuf]| -> Vec<String> {
        list.iter().map(|p| p.display().to_string()).collect()
    };
    if global.json {
        print_json(&DreamJson {
            ran: outcome.ran,
            saved: paths(&outcome.saved),
            logs_read: paths(&outcome.logs_read),
            reason: outcome.reason.clone(),
            turns: outcome.turns,
            stop: outcome.stop.clone(),
        })?;
    } else {
        let mut text = format!("{}\n", outcome.reason);
        for (tool, reason) in &outcome.refused {
            let _ = writeln!(text, "refused {tool}: {reason}");
        }
        for path in &outcome.saved {
            let _ = writeln!(text, "saved {}", path.display());
        }
        if outcome.ran && outcome.saved.is_empty() {
            let _ = writeln!(text, "nothing saved");
        }
        print(&text)?;
    }
    Ok(if outcome.failed {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}
