//! `memdir extract`: one memory-extraction run over a transcript.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use memdir_ops::ExtractRequest;
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "\
Reads the messages of the transcript that are new since this session's last run, and lets a \
restricted agent (at most 5 model calls; Read, Grep, Glob, read-only Bash, and Edit/Write only \
inside the memory folder) save what is worth keeping. A run of the same session already under way \
takes this request when it ends (\"queued\").

The model comes from the environment: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL), or \
OPENAI_BASE_URL / OPENAI_API_KEY with MEMDIR_MODEL; MEMDIR_MODEL_TIMEOUT_MS bounds each call. \
Without one, the command says so and writes nothing (exit 1).

State (the cursor, the throttle, the pending request) lives under <base>/memdir/extract/.

Examples:
  memdir extract --transcript ~/.claude/projects/-home-me-app/5f1c….jsonl
  memdir extract --transcript conversation.json --session review-1 --json

JSON: {ran, reason, reasons, saved: [path], turns, notice, refused: [{tool, reason}], stop, session}")]
pub(crate) struct ExtractArgs {
    /// The transcript: the reference agent's JSONL, or a JSON list of
    /// Messages-API messages.
    #[arg(long, value_name = "FILE")]
    transcript: PathBuf,
    /// The session the run belongs to [default: the transcript's sessionId,
    /// else its file name].
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Run every N completed turns (the throttle).
    #[arg(long, value_name = "N", default_value_t = 1)]
    every: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RefusedJson {
    tool: String,
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtractJson {
    ran: bool,
    reason: String,
    reasons: Vec<String>,
    saved: Vec<String>,
    turns: u32,
    notice: Option<String>,
    refused: Vec<RefusedJson>,
    stop: Option<String>,
    session: String,
}

pub(crate) fn run(args: &ExtractArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let report = project
        .extract_memories(&ExtractRequest {
            transcript: args.transcript.clone(),
            session: args.session.clone(),
            every_n_turns: Some(args.every.max(1)),
        })
        .map_err(ops_error)?;
    let outcome = &report.outcome;
    let failed = outcome.failed;
    if global.json {
        print_json(&ExtractJson {
            ran: outcome.ran,
            reason: outcome.reasons.join("; "),
            reasons: outcome.reasons.clone(),
            saved: outcome
                .saved
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            turns: outcome.turns,
            notice: outcome.notice.clone(),
            refused: outcome
                .refused
                .iter()
                .map(|(tool, reason)| RefusedJson {
                    tool: tool.clone(),
                    reason: reason.clone(),
                })
                .collect(),
            stop: outcome.stop.clone(),
            session: report.session.clone(),
        })?;
    } else {
        let mut text = String::new();
        for reason in &outcome.reasons {
            let _ = writeln!(text, "{reason}");
        }
        for (tool, reason) in &outcome.refused {
            let _ = writeln!(text, "refused {tool}: {reason}");
        }
        match &outcome.notice {
            Some(notice) => {
                let _ = writeln!(text, "{notice}");
            }
            None if outcome.ran => {
                let _ = writeln!(text, "nothing saved");
            }
            None => {}
        }
        if outcome.ran {
            let _ = writeln!(
                text,
                "{} model call{}{}",
                outcome.turns,
                if outcome.turns == 1 { "" } else { "s" },
                outcome
                    .stop
                    .as_deref()
                    .map(|s| format!(", ended: {s}"))
                    .unwrap_or_default()
            );
        }
        print(&text)?;
    }
    Ok(if failed {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}
