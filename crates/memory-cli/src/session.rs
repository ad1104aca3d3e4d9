//! `memdir session update|show|compact-view`: a session's notes (SPEC
//! R11), the file that keeps what a long conversation learned when its
//! context is compacted.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use memdir_ops::{SessionUpdateRequest, SessionWatermark};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// Bring a session's notes up to date with its transcript, when it is
    /// time (or always, with --force).
    #[command(after_help = "\
It is time when the context has grown enough — 10,000 tokens for the first notes, then 5,000 more \
since the last update (real usage from the transcript, else characters / 4) — and either 3 tool \
calls were made since the last update or the last turn made none. Otherwise nothing runs and no \
model is called.

An update creates the notes from the template when missing and lets a restricted agent (at most 3 \
model calls) change them with one tool: Edit of the notes file. Any other tool or file is refused, \
and so is an edit that changes, removes, adds or moves a `# ` heading or the italic line under it; \
the model reads why. Afterwards the token watermark is recorded under <base>/memdir/session/.

The notes: <project>/.claude/session-memory/session-<ID>.md. A custom template and instructions \
replace the defaults when present: <base>/session-memory/config/template.md and prompt.md \
(<base> is ~/.claude, or CLAUDE_CONFIG_DIR).

The model comes from the environment: ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL), or \
OPENAI_BASE_URL / OPENAI_API_KEY with MEMDIR_MODEL. Without one, the command says so and writes \
nothing (exit 1). A failed run exits 1 and records no watermark.

Examples:
  memdir session update --transcript ~/.claude/projects/-home-me-app/5f1c….jsonl --session 5f1c…
  memdir session update --transcript t.jsonl --session review-1 --force --json

JSON: {ran, updated, reason, path, notes (the same path), watermark: {tokens, toolCalls, updatedAt} | null, turns, \
edits, stop, refused: [{tool, reason}], warnings}")]
    Update(UpdateArgs),
    /// Print a session's notes as they are (the file's path goes to
    /// stderr).
    #[command(after_help = "\
Examples:
  memdir session show --session 5f1c2d9e-aaaa-4bbb-8ccc-000000000001
  memdir session show --session 5f1c… --json

JSON: {path, content}. No notes yet: one line on stderr, exit 1.")]
    Show(SessionArgs),
    /// Print a session's notes as compaction injects them: each section
    /// cut to 8,000 characters (2,000 tokens) at a line boundary, headings
    /// and their descriptions kept.
    #[command(
        name = "compact-view",
        after_help = "\
When something was cut, a note on stderr says so.

Example:
  memdir session compact-view --session 5f1c… --json

JSON: {path, truncatedContent, wasTruncated}"
    )]
    CompactView(SessionArgs),
}

#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// The transcript: the reference agent's JSONL, or a JSON list of
    /// Messages-API messages.
    #[arg(long, value_name = "FILE")]
    transcript: PathBuf,
    /// The session whose notes these are (its id names the notes file).
    #[arg(long, value_name = "ID")]
    session: String,
    /// Update even when the thresholds say it is not yet time.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SessionArgs {
    /// The session whose notes to show.
    #[arg(long, value_name = "ID")]
    session: String,
}

pub(crate) fn run(cmd: &SessionCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        SessionCommand::Update(args) => update(args, global),
        SessionCommand::Show(args) => show(args, global),
        SessionCommand::CompactView(args) => compact_view(args, global),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RefusedJson<'a> {
    tool: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UpdateJson<'a> {
    ran: bool,
    updated: bool,
    reason: &'a str,
    /// The notes file (SPEC's name for it).
    path: String,
    /// The notes file, as well (this command's first name for it).
    notes: String,
    watermark: Option<&'a SessionWatermark>,
    turns: u32,
    edits: u32,
    stop: Option<&'a str>,
    refused: Vec<RefusedJson<'a>>,
    warnings: &'a [String],
}

fn update(args: &UpdateArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let outcome = project
        .update_session_notes(&SessionUpdateRequest {
            transcript: args.transcript.clone(),
            session: args.session.clone(),
            force: args.force,
        })
        .map_err(ops_error)?;
    for warning in &outcome.warnings {
        eprintln!("memdir: warning: {warning}");
    }
    if global.json {
        print_json(&UpdateJson {
            ran: outcome.ran,
            updated: outcome.updated,
            reason: &outcome.reason,
            path: outcome.notes.display().to_string(),
            notes: outcome.notes.display().to_string(),
            watermark: outcome.watermark.as_ref(),
            turns: outcome.turns,
            edits: outcome.edits,
            stop: outcome.stop.as_deref(),
            refused: outcome
                .refused
                .iter()
                .map(|(tool, reason)| RefusedJson { tool, reason })
                .collect(),
            warnings: &outcome.warnings,
        })?;
    } else {
        let mut text = format!("{}\n", outcome.reason);
        for (tool, reason) in &outcome.refused {
            let _ = writeln!(text, "refused {tool}: {reason}");
        }
        if outcome.ran {
            let _ = writeln!(
                text,
                "{} {}: {} edit{} in {} model call{}{}",
                if outcome.updated {
                    "updated"
                } else {
                    "unchanged"
                },
                outcome.notes.display(),
                outcome.edits,
                if outcome.edits == 1 { "" } else { "s" },
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
    Ok(if outcome.failed {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShowJson<'a> {
    path: String,
    content: &'a str,
}

/// Writes `text` to stdout exactly as it is.
fn print_exact(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

fn show(args: &SessionArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let notes = project.session_notes(&args.session).map_err(ops_error)?;
    if global.json {
        print_json(&ShowJson {
            path: notes.path.display().to_string(),
            content: &notes.content,
        })?;
    } else {
        eprintln!("memdir: {}", notes.path.display());
        print_exact(&notes.content)?;
    }
    Ok(Outcome::Success)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactJson<'a> {
    path: String,
    truncated_content: &'a str,
    was_truncated: bool,
}

fn compact_view(args: &SessionArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let view = project
        .session_notes_for_compact(&args.session)
        .map_err(ops_error)?;
    if global.json {
        print_json(&CompactJson {
            path: view.path.display().to_string(),
            truncated_content: &view.notes.truncated_content,
            was_truncated: view.notes.was_truncated,
        })?;
    } else {
        if view.notes.was_truncated {
            eprintln!(
                "memdir: note: sections of {} were cut to 8,000 characters",
                view.path.display()
            );
        }
        print_exact(&view.notes.truncated_content)?;
    }
    Ok(Outcome::Success)
}
