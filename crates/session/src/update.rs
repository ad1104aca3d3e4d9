//! One update of a session's notes (SPEC R11.5): decide, create the notes
//! from the template, let a restricted agent edit them, record the
//! watermark.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memdir_agent::{
    Agent, AgentConfig, Cancel, ChatModel, ContentBlock, Message, Role, Stop, ToolCallOutcome,
};
use memdir_transcript::Transcript;

use crate::edit::{EditTool, NotesOnly};
use crate::markdown::{bare, is_description, split};
use crate::{
    Customization, MAX_SECTION_LENGTH, MAX_TOTAL_SESSION_MEMORY_TOKENS, SessionError, SessionFiles,
    SessionMemoryConfig, TranscriptView, Trigger, Watermark, estimate_tokens,
    should_extract_memory,
};

/// The turn budget of an update: the edits, and a turn to fix a refused one.
pub const MAX_UPDATE_TURNS: u32 = 3;
/// The most characters of conversation an update shows the model; older
/// messages beyond it are left out (and counted).
pub const MAX_CONVERSATION_CHARS: usize = 100_000;

/// How an update runs.
#[derive(Debug, Clone, Default)]
pub struct UpdateOptions {
    /// The thresholds.
    pub config: SessionMemoryConfig,
    /// Run whatever the thresholds say.
    pub force: bool,
    /// The template and instructions.
    pub customization: Customization,
}

/// What an update did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpdateOutcome {
    /// Whether the agent ran.
    pub ran: bool,
    /// Whether the notes file changed (created from the template, or
    /// edited).
    pub updated: bool,
    /// Why it ran or did not, in words.
    pub reason: String,
    /// What the thresholds said.
    pub trigger: Trigger,
    /// The notes file.
    pub notes: PathBuf,
    /// The watermark now recorded (the new one after a run that did not
    /// fail, else the previous one).
    pub watermark: Option<Watermark>,
    /// Model calls made.
    pub turns: u32,
    /// How the run ended (`end_turn`, `turn_limit`, `model error: …`).
    pub stop: Option<String>,
    /// Whether the run failed (no watermark was recorded, so the next
    /// update is due again).
    pub failed: bool,
    /// Edits that landed.
    pub edits: u32,
    /// Tool calls refused: the tool and the reason the model read.
    pub refused: Vec<(String, String)>,
    /// Custom files that could not be used.
    pub warnings: Vec<String>,
}

/// Brings the notes of `files` up to date with the transcript at
/// `transcript`, when [`should_extract_memory`] says it is time (or
/// always, with [`UpdateOptions::force`]).
///
/// The notes file is created from the template when missing. The agent has
/// one tool, Edit, on the notes file alone (any other tool or file is
/// refused with a reason it reads), at most [`MAX_UPDATE_TURNS`] turns, and
/// an edit that would break the template is refused with the file left as
/// it was. Writes are atomic, and the whole update holds a lock beside the
/// notes: an update that finds another under way does not run. After a run
/// that did not fail the watermark is recorded.
pub fn update_session_notes(
    files: &SessionFiles,
    transcript: &Path,
    model: Box<dyn ChatModel>,
    options: &UpdateOptions,
) -> Result<UpdateOutcome, SessionError> {
    let read = memdir_transcript::read_transcript(transcript)?;
    let view = TranscriptView::of(&read);
    let last = files.load_watermark()?;
    let trigger = should_extract_memory(&view, last.as_ref(), &options.config);
    let mut outcome = UpdateOutcome {
        ran: false,
        updated: false,
        reason: trigger.to_string(),
        trigger,
        notes: files.notes().to_owned(),
        watermark: last,
        turns: 0,
        stop: None,
        failed: false,
        edits: 0,
        refused: Vec::new(),
        warnings: options.customization.warnings.clone(),
    };
    if !trigger.should_update() && !options.force {
        return Ok(outcome);
    }
    if options.force && !trigger.should_update() {
        outcome.reason = format!("forced ({trigger})");
    }
    files.create_folder()?;
    let Some(_lock) = files.try_lock()? else {
        "not now: another update of this session is under way".clone_into(&mut outcome.reason);
        return Ok(outcome);
    };
    let template = &options.customization.template;
    let (before, created) = if let Some(notes) = files.read_notes()? {
        template
            .check(&notes)
            .map_err(|source| SessionError::OffTemplate {
                path: files.notes().to_owned(),
                source,
            })?;
        (notes, false)
    } else {
        files.write_notes(template.text())?;
        (template.text().to_owned(), true)
    };
    let stop = run_agent(files, &read, &before, model, options, &mut outcome)?;
    let after = files.read_notes()?;
    outcome.updated = created || after.as_deref() != Some(before.as_str());
    let (stop, failed) = (stop.describe(), stop.is_failure());
    outcome.stop = Some(stop.clone());
    outcome.failed = failed;
    if failed {
        outcome.reason = format!("{}; the run failed: {stop}", outcome.reason);
        return Ok(outcome);
    }
    let mark = Watermark::new(&view, jiff::Timestamp::now().to_string());
    files.save_watermark(&mark)?;
    outcome.watermark = Some(mark);
    Ok(outcome)
}

/// Runs the agent over the notes `before` and records its calls in
/// `outcome`; returns how it ended.
fn run_agent(
    files: &SessionFiles,
    transcript: &Transcript,
    before: &str,
    model: Box<dyn ChatModel>,
    options: &UpdateOptions,
    outcome: &mut UpdateOutcome,
) -> Result<Stop, SessionError> {
    let template = &options.customization.template;
    let notes_path = files.notes().display().to_string();
    let mut config = AgentConfig::new(system_prompt(&notes_path));
    config.max_turns = MAX_UPDATE_TURNS;
    let agent = Agent::new(
        model,
        vec![Box::new(EditTool {
            files: Arc::new(files.clone()),
            template: Arc::new(template.clone()),
        })],
        Box::new(NotesOnly {
            notes: files.notes().to_owned(),
        }),
        config,
    )?;
    let user = user_message(
        transcript,
        before,
        &notes_path,
        &options.customization.prompt,
    );
    let report = agent.run(
        vec![Message {
            role: Role::User,
            content: vec![ContentBlock::Text { text: user }],
        }],
        &Cancel::new(),
    );
    outcome.ran = true;
    outcome.turns = report.turns;
    for call in &report.tool_calls {
        match &call.outcome {
            ToolCallOutcome::Ran { is_error: false } => outcome.edits += 1,
            ToolCallOutcome::Denied { reason } | ToolCallOutcome::BadInput { reason } => {
                outcome.refused.push((call.name.clone(), reason.clone()));
            }
            ToolCallOutcome::Unknown => outcome.refused.push((
                call.name.clone(),
                format!(
                    "no tool named {}; only Edit of the notes file is allowed",
                    call.name
                ),
            )),
            ToolCallOutcome::Ran { is_error: true } => outcome.refused.push((
                call.name.clone(),
                report.tool_result(&call.id).unwrap_or_default().to_owned(),
            )),
            _ => {}
        }
    }
    Ok(report.stop)
}

fn system_prompt(notes_path: &str) -> String {
    format!(
        "You maintain the session notes of a coding session in one markdown file, {notes_path}. \
         You read the conversation you are given and record what matters in the notes with the \
         Edit tool, the only tool you have. You never answer the conversation itself."
    )
}

/// Each section's size against its limit, and the total against the
/// file's.
#[must_use]
pub fn section_sizes(notes: &str) -> String {
    let parsed = split(notes);
    let mut text = format!(
        "Section sizes (about four characters per token; each section at most {MAX_SECTION_LENGTH} tokens):\n"
    );
    for section in &parsed.sections {
        let body: String = section
            .lines
            .iter()
            .enumerate()
            .filter(|(i, l)| !(*i == 0 && is_description(l)))
            .map(|(_, l)| *l)
            .collect();
        let tokens = estimate_tokens(&body);
        let _ = write!(
            text,
            "- {}: {tokens} tokens",
            bare(section.heading).trim_start_matches('#').trim()
        );
        if tokens > MAX_SECTION_LENGTH {
            text.push_str(" — over the limit: condense it");
        }
        text.push('\n');
    }
    let total = estimate_tokens(notes);
    let _ = write!(
        text,
        "Total: {total} of {MAX_TOTAL_SESSION_MEMORY_TOKENS} tokens"
    );
    if total > MAX_TOTAL_SESSION_MEMORY_TOKENS {
        text.push_str(" — over the limit: condense the longest sections first");
    }
    text.push('\n');
    text
}

fn user_message(transcript: &Transcript, notes: &str, notes_path: &str, prompt: &str) -> String {
    let instructions = prompt
        .replace("{{notes_path}}", notes_path)
        .replace("{{max_section_tokens}}", &MAX_SECTION_LENGTH.to_string())
        .replace(
            "{{max_total_tokens}}",
            &MAX_TOTAL_SESSION_MEMORY_TOKENS.to_string(),
        );
    let mut text = memdir_transcript::excerpt(
        transcript.model_visible(),
        "conversation",
        MAX_CONVERSATION_CHARS,
    );
    let _ = write!(
        text,
        "\n\n{instructions}\n\n<current_notes path=\"{notes_path}\">\n{notes}\n</current_notes>\n\n{}",
        section_sizes(notes)
    );
    text
}
