//! `memdir log`: one timestamped bullet in today's daily log.

use clap::Args;
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "\
Appends `- HH:MM — TEXT` (local time) to today's log, <auto>/logs/YYYY/MM/YYYY-MM-DD.md, under \
the memory folder's lock, so that concurrent writers lose nothing. Line breaks in TEXT become \
spaces. `memdir dream` later folds the logs into topic files and MEMORY.md.

Examples:
  memdir log 'the staging deploy needs VPN access'
  memdir log --json decided to keep the SQLite backend

JSON: {path}")]
pub(crate) struct LogArgs {
    /// What to note; several words are joined with spaces.
    #[arg(value_name = "TEXT", required = true, num_args = 1..)]
    text: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogJson {
    path: String,
}

pub(crate) fn run(args: &LogArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let logged = project
        .append_log(&args.text.join(" "))
        .map_err(ops_error)?;
    if global.json {
        print_json(&LogJson {
            path: logged.path.to_string(),
        })?;
    } else {
        print(&format!("{}\n", logged.path))?;
    }
    Ok(Outcome::Success)
}
