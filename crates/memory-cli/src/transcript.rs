//! `memdir transcript show`: a session transcript as memory extraction
//! reads it (SPEC R12.7) — its messages, what was skipped, its tokens.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Subcommand;
use memdir_transcript::{Message, Transcript, Usage, read_transcript};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum TranscriptCommand {
    /// Show a transcript as memdir reads it: one line per message (its line
    /// in the file, role, uuid, a preview of its text, the tools it calls),
    /// the compactions, every line not kept and why, and the token totals.
    ///
    /// FILE is the reference agent's session JSONL (one event per line,
    /// under ~/.claude/projects/<project>/) or a Messages-API message list
    /// ([{role, content}] or {"messages": [...]}). Broken lines are
    /// reported, never fatal: the exit status is 0 whenever FILE could be
    /// read.
    #[command(
        after_help = "Lines of one API response (assistant lines sharing message.id) are one \
        message, and its tokens count once. Sidechain (subagent) messages are marked; a \
        compaction is shown where it happened.\n\n\
        JSON: {sessionId, messages: [{uuid, role, text, toolUses: [{id, name}]}], \
        tokens: {inputTokens, outputTokens, cacheCreationInputTokens, cacheReadInputTokens}, \
        skipped: [{line, reason}]} — reason is a stable code (not_json, invalid_utf8, \
        unknown_type, text_capped, …).\n\n\
        Example:\n  \
        memdir transcript show ~/.claude/projects/-home-me-app/3f2c040e-….jsonl\n  \
        memdir transcript show messages.json --json"
    )]
    Show {
        /// The transcript file.
        /// A FILE that starts with '-' is taken as it is; put -- before one
        /// that looks like an option (`-- --json`).
        #[arg(allow_hyphen_values = true)]
        file: PathBuf,
    },
}

pub(crate) fn run(cmd: &TranscriptCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        TranscriptCommand::Show { file } => show(file, global.json),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ShowJson<'a> {
    session_id: Option<&'a str>,
    messages: Vec<MessageJson<'a>>,
    tokens: TokensJson,
    skipped: Vec<SkippedJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageJson<'a> {
    uuid: Option<&'a str>,
    role: &'static str,
    text: String,
    tool_uses: Vec<ToolUseJson<'a>>,
}

#[derive(Serialize)]
struct ToolUseJson<'a> {
    id: &'a str,
    name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(
    clippy::struct_field_names,
    reason = "the Messages API's names of the four counts"
)]
struct TokensJson {
    input_tokens: u64,
    output_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
}

#[derive(Serialize)]
struct SkippedJson {
    line: usize,
    reason: &'static str,
}

fn show(file: &Path, json: bool) -> anyhow::Result<Outcome> {
    let transcript = read_transcript(file)?;
    if json {
        print_json(&to_json(&transcript))?;
    } else {
        print(&render(&transcript))?;
    }
    Ok(Outcome::Success)
}

fn to_json(t: &Transcript) -> ShowJson<'_> {
    let u = t.usage;
    ShowJson {
        session_id: t.session_id.as_deref(),
        messages: t
            .messages
            .iter()
            .map(|m| MessageJson {
                uuid: m.uuid(),
                role: m.role.as_str(),
                text: m.text(),
                tool_uses: m
                    .tool_uses()
                    .map(|u| ToolUseJson {
                        id: &u.id,
                        name: &u.name,
                    })
                    .collect(),
            })
            .collect(),
        tokens: TokensJson {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
        },
        skipped: t
            .skipped
            .iter()
            .map(|s| SkippedJson {
                line: s.line,
                reason: s.reason.code(),
            })
            .collect(),
    }
}

/// How many characters of a message's text the one-line preview shows.
const PREVIEW_CHARS: usize = 72;

fn render(t: &Transcript) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "session {}: {} message{} ({} the model still sees)",
        t.session_id.as_deref().unwrap_or("(none)"),
        t.messages.len(),
        plural(t.messages.len()),
        t.model_visible_count()
    );
    for s in &t.summaries {
        let _ = writeln!(out, "summary (line {}): {}", s.line, preview(&s.text));
    }
    // Tool results name their call by id; show the tool's name instead.
    let tool_names: HashMap<&str, &str> = t
        .messages
        .iter()
        .flat_map(Message::tool_uses)
        .map(|u| (u.id.as_str(), u.name.as_str()))
        .collect();
    for (index, m) in t.messages.iter().enumerate() {
        for c in t.compactions.iter().filter(|c| c.first_message == index) {
            let _ = writeln!(out, "{}", compaction_line(c));
        }
        let _ = writeln!(out, "{}", message_line(m, &tool_names));
    }
    for c in t
        .compactions
        .iter()
        .filter(|c| c.first_message >= t.messages.len())
    {
        let _ = writeln!(out, "{}", compaction_line(c));
    }
    if !t.skipped.is_empty() {
        let _ = writeln!(out, "not kept ({}):", t.skipped.len());
        for s in &t.skipped {
            let _ = writeln!(out, "  {s}");
        }
    }
    let _ = write!(out, "tokens: {}", tokens(t.usage));
    out
}

fn message_line(m: &Message, tool_names: &HashMap<&str, &str>) -> String {
    let uuid: String = m.uuid().unwrap_or("-").chars().take(8).collect();
    let mut parts = Vec::new();
    if m.is_sidechain {
        parts.push("(sidechain)".to_owned());
    }
    if m.is_compact_summary {
        parts.push("(compact summary)".to_owned());
    }
    let text = m.text();
    if !text.is_empty() {
        parts.push(preview(&text));
    }
    let calls: Vec<&str> = m.tool_uses().map(|u| u.name.as_str()).collect();
    if !calls.is_empty() {
        parts.push(format!("[{}]", calls.join(", ")));
    }
    for r in m.tool_results() {
        let name = tool_names
            .get(r.tool_use_id.as_str())
            .copied()
            .unwrap_or(r.tool_use_id.as_str());
        let what = if r.is_error { "error" } else { "result" };
        parts.push(format!("[{what} of {name}: {}]", preview(&r.content)));
    }
    let line = format!(
        "{:>6}  {:<9}  {uuid:<8}  {}",
        m.line(),
        m.role.as_str(),
        parts.join(" ")
    );
    line.trim_end().to_owned()
}

fn compaction_line(c: &memdir_transcript::Compaction) -> String {
    let mut details = Vec::new();
    if let Some(trigger) = &c.trigger {
        details.push(trigger.clone());
    }
    if let Some(tokens) = c.pre_tokens {
        details.push(format!("{} tokens before", thousands(tokens)));
    }
    if c.is_sidechain {
        details.push("sidechain".to_owned());
    }
    let details = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join(", "))
    };
    format!(
        "{:>6}  -- compacted{details}; the model sees only what follows --",
        c.line
    )
}

/// The text on one line, cut to [`PREVIEW_CHARS`] characters.
fn preview(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= PREVIEW_CHARS {
        return folded;
    }
    let mut cut: String = folded.chars().take(PREVIEW_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn tokens(u: Usage) -> String {
    format!(
        "{} input, {} output, {} cache creation, {} cache read",
        thousands(u.input_tokens),
        thousands(u.output_tokens),
        thousands(u.cache_creation_input_tokens),
        thousands(u.cache_read_input_tokens)
    )
}

/// `12345` as `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
