//! A tolerant reader of coding-agent transcripts (SPEC R12.7): the
//! reference agent's JSONL session files and plain Messages-API message
//! lists, read into one [`Transcript`] of [`Message`]s.
//!
//! - [`parse_jsonl`] — one JSON event per line, as the reference agent
//!   writes `<config>/projects/<slug>/<session>.jsonl`. A line that cannot
//!   be used (not UTF-8, not JSON, not an object, an unknown `type`, a
//!   missing `message`, …) is recorded in [`Transcript::skipped`] with its
//!   line number and a [`SkipReason`], never a failure of the whole file;
//!   a line kept with something left out (a mistyped field, a malformed
//!   block, a text over [`MAX_TEXT_BYTES`]) is recorded there too. Blank
//!   lines are not diagnostics.
//! - [`parse_messages`] — a `[{role, content}]` list, or `{"messages":
//!   [...]}`, with the same tolerance.
//! - [`parse`] picks the format from the bytes; [`read_transcript`] reads a
//!   file (regular files only, at most [`MAX_TRANSCRIPT_BYTES`]) and parses
//!   it.
//!
//! What the reader decides, once for every caller:
//!
//! - **One API response, one message.** The reference agent may write one
//!   response as several `assistant` lines sharing `message.id` (one per
//!   content block), each carrying the response's `usage`. Lines with the
//!   same id become one [`Message`] at the place of the first, its blocks
//!   in line order; the usage of an id is counted once, as the per-field
//!   maximum over its lines (counts only grow while a response streams, and
//!   the maximum does not depend on line order), then summed over ids into
//!   [`Transcript::usage`]. A line that repeats an earlier line's `uuid` is
//!   a repeated write and is skipped.
//! - **Compaction.** A `system` line of subtype `compact_boundary` becomes a
//!   [`Compaction`]; the `user` line after it that carries the summary is a
//!   message with [`Message::is_compact_summary`]. Messages before the
//!   boundary stay in [`Transcript::messages`];
//!   [`Transcript::since_last_compaction`] is what the model still sees.
//! - **Sidechains.** Subagent events (`isSidechain: true`) are kept, marked
//!   [`Message::is_sidechain`], and left out of
//!   [`Transcript::model_visible`]. Their tokens count in the usage: they
//!   were spent.
//! - **Tool results** arrive in `user` lines as [`Block::ToolResult`], their
//!   content flattened to text.
//!
//! ```
//! use memdir_transcript::{parse_jsonl, Role};
//!
//! let jsonl = br#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","message":{"role":"user","content":"Run the tests"}}
//! {"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Running them."}],"usage":{"input_tokens":10,"output_tokens":3}}}
//! {"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"cargo test"}}],"usage":{"input_tokens":10,"output_tokens":9}}}
//! not json
//! "#;
//! let transcript = parse_jsonl(jsonl);
//! assert_eq!(transcript.session_id.as_deref(), Some("s1"));
//! assert_eq!(transcript.messages.len(), 2);
//! let answer = &transcript.messages[1];
//! assert_eq!(answer.role, Role::Assistant);
//! assert_eq!(answer.text(), "Running them.");
//! assert_eq!(answer.tool_uses().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["Bash"]);
//! assert_eq!(transcript.usage.output_tokens, 9);
//! assert_eq!(transcript.skipped[0].line, 4);
//! assert_eq!(transcript.skipped[0].reason.code(), "not_json");
//! assert_eq!(transcript.messages_since(Some("u1")).len(), 1);
//! ```
//!
//! The shapes follow what users of the reference agent show of their
//! session files in public reports: the per-line fields and broken
//! `parentUuid` chains (<https://github.com/anthropics/claude-code/issues/22526>),
//! `usage` on `assistant` events (<https://github.com/anthropics/claude-code/issues/24348>),
//! `summary` lines with `leafUuid` (<https://github.com/anthropics/claude-code/issues/2597>),
//! the event types (<https://github.com/dagster-io/erk/issues/3657>),
//! sidechain lines (<https://github.com/S2thend/claude-code-history/issues/7>)
//! and the two records of a compaction with `compactMetadata` on disk
//! (<https://github.com/joshLong145/ambits/pull/24>,
//! <https://github.com/siteboon/claudecodeui/issues/1292>).

mod build;
mod content;
mod diagnostic;
mod excerpt;
mod jsonl;
mod list;
#[cfg(test)]
mod tests;

use std::path::Path;

pub use diagnostic::{SkipReason, Skipped};
pub use excerpt::{MAX_EXCERPT_TOOL_CHARS, excerpt, session_file_stem};
pub use jsonl::parse_jsonl;
pub use list::parse_messages;

use memdir_memtypes::{ReadError, read_regular_file};

/// The largest transcript file [`read_transcript`] reads: 256 MiB. Long
/// sessions reach tens of megabytes; a file past this is refused rather
/// than read into memory.
pub const MAX_TRANSCRIPT_BYTES: u64 = 256 * 1024 * 1024;

/// The most bytes kept of one text: a text block, a tool result's content,
/// a string inside a tool call's input. A longer one is cut (at a
/// character boundary) and the cut is recorded as
/// [`SkipReason::TextCapped`].
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// Why a transcript file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TranscriptError {
    /// The file is missing, unreadable, not a regular file (a folder, a
    /// FIFO, a device) or over [`MAX_TRANSCRIPT_BYTES`].
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// A transcript as read: its messages, their token usage, and what was
/// not kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    /// The first `sessionId` of a kept line (a message list has none).
    pub session_id: Option<String>,
    /// The messages in file order (merged lines at the place of the first).
    pub messages: Vec<Message>,
    /// The token usage of every response, each counted once.
    pub usage: Usage,
    /// The compaction boundaries, in file order.
    pub compactions: Vec<Compaction>,
    /// The `summary` lines (session titles the agent wrote).
    pub summaries: Vec<Summary>,
    /// Every line, or part of one, that was not kept, in line order.
    pub skipped: Vec<Skipped>,
}

impl Transcript {
    /// The messages after the one that has `uuid` (any of its lines'
    /// uuids): what a cursor that considered that message has not seen.
    /// `None` gives every message; so does a uuid that is not in the
    /// transcript, since a lost cursor should reconsider rather than miss
    /// messages.
    #[must_use]
    pub fn messages_since(&self, uuid: Option<&str>) -> &[Message] {
        let Some(uuid) = uuid else {
            return &self.messages;
        };
        match self
            .messages
            .iter()
            .position(|m| m.uuids.iter().any(|u| u == uuid))
        {
            Some(i) => &self.messages[i + 1..],
            None => &self.messages,
        }
    }

    /// The messages from the last main-thread compaction on (its summary
    /// first); every message when there was none.
    #[must_use]
    pub fn since_last_compaction(&self) -> &[Message] {
        let start = self
            .compactions
            .iter()
            .rev()
            .find(|c| !c.is_sidechain)
            .map_or(0, |c| c.first_message.min(self.messages.len()));
        &self.messages[start..]
    }

    /// The messages the model of the main thread still has in its context:
    /// those since the last compaction, without sidechain (subagent) ones.
    pub fn model_visible(&self) -> impl Iterator<Item = &Message> {
        self.since_last_compaction()
            .iter()
            .filter(|m| !m.is_sidechain)
    }

    /// How many messages [`Transcript::model_visible`] yields.
    #[must_use]
    pub fn model_visible_count(&self) -> usize {
        self.model_visible().count()
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The user, or the agent's harness speaking for them (tool results,
    /// a compaction summary).
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// `user` or `assistant`, as the Messages API spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message: one user turn, or one model response (however many lines
/// it was written as).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its content, in order.
    pub blocks: Vec<Block>,
    /// The uuids of its lines, in order (a line without one adds none).
    pub uuids: Vec<String>,
    /// The `parentUuid` of its first line.
    pub parent_uuid: Option<String>,
    /// The API response id (`message.id`) its lines share.
    pub message_id: Option<String>,
    /// The `timestamp` of its first line, as written (ISO 8601).
    pub timestamp: Option<String>,
    /// The response's token usage, when its lines carried one.
    pub usage: Option<Usage>,
    /// Whether it belongs to a subagent's conversation (`isSidechain`).
    pub is_sidechain: bool,
    /// Whether it is the summary that replaced the conversation at a
    /// compaction (`isCompactSummary`).
    pub is_compact_summary: bool,
    /// The 1-based lines it was read from, in order.
    pub lines: Vec<usize>,
}

impl Message {
    /// The uuid of its first line.
    #[must_use]
    pub fn uuid(&self) -> Option<&str> {
        self.uuids.first().map(String::as_str)
    }

    /// The line it starts on.
    #[must_use]
    pub fn line(&self) -> usize {
        self.lines.first().copied().unwrap_or_default()
    }

    /// Its text blocks, joined by a blank line.
    #[must_use]
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }

    /// The tool calls it makes.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.blocks.iter().filter_map(|b| match b {
            Block::ToolUse(t) => Some(t),
            _ => None,
        })
    }

    /// The tool results it carries.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult> {
        self.blocks.iter().filter_map(|b| match b {
            Block::ToolResult(t) => Some(t),
            _ => None,
        })
    }
}

/// One content block of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Block {
    /// Text (at most [`MAX_TEXT_BYTES`]).
    Text(String),
    /// A tool call by the model.
    ToolUse(ToolUse),
    /// A tool's answer, sent back in a user message.
    ToolResult(ToolResult),
    /// A block kept only by its type (`thinking`, `image`, `document`, …):
    /// nothing the reader's callers use is in it.
    Other {
        /// The block's `type`.
        kind: String,
    },
}

/// A tool call (`tool_use` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUse {
    /// The call's id, which its result names.
    pub id: String,
    /// The tool's name (`Bash`, `Write`, …).
    pub name: String,
    /// The call's input as written (`null` when absent), every string in it
    /// at most [`MAX_TEXT_BYTES`].
    pub input: serde_json::Value,
}

/// A tool's answer (`tool_result` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The id of the call it answers.
    pub tool_use_id: String,
    /// Its content as text: a string as it is, text blocks joined by a
    /// newline (other blocks, such as images, left out); at most
    /// [`MAX_TEXT_BYTES`].
    pub content: String,
    /// Whether the tool reported an error.
    pub is_error: bool,
}

/// Token counts of the Messages API's `usage` (absent counts are 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens not read from or written to the cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every count, added (saturating).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// The per-field maximum of two readings of the same response.
    #[must_use]
    fn max(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.max(other.input_tokens),
            output_tokens: self.output_tokens.max(other.output_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .max(other.cache_creation_input_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .max(other.cache_read_input_tokens),
        }
    }

    /// The per-field sum of two responses' usage (saturating).
    #[must_use]
    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            cache_creation_input_tokens: self
                .cache_creation_input_tokens
                .saturating_add(other.cache_creation_input_tokens),
            cache_read_input_tokens: self
                .cache_read_input_tokens
                .saturating_add(other.cache_read_input_tokens),
        }
    }
}

/// A compaction boundary: the conversation before it was replaced by a
/// summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// The boundary's 1-based line.
    pub line: usize,
    /// The boundary line's uuid.
    pub uuid: Option<String>,
    /// `manual` or `auto`, when recorded.
    pub trigger: Option<String>,
    /// The context's size in tokens before compaction, when recorded.
    pub pre_tokens: Option<u64>,
    /// Whether it compacted a subagent's conversation.
    pub is_sidechain: bool,
    /// The index in [`Transcript::messages`] of the first message after
    /// the boundary (`messages.len()` when none follows).
    pub first_message: usize,
}

/// A `summary` line: a title the agent wrote for a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Its 1-based line.
    pub line: usize,
    /// The summary text.
    pub text: String,
    /// The uuid of the last message it summarises (`leafUuid`).
    pub leaf_uuid: Option<String>,
}

/// Parses a transcript in either format: a JSON array, or an object with a
/// `messages` array, is a message list ([`parse_messages`]); anything else
/// is read as JSONL ([`parse_jsonl`]).
#[must_use]
pub fn parse(bytes: &[u8]) -> Transcript {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    if let Some(&(b'[' | b'{')) = start.map(|i| &bytes[i])
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
        && (value.is_array()
            || value
                .get("messages")
                .is_some_and(serde_json::Value::is_array))
    {
        return parse_messages(&value);
    }
    parse_jsonl(bytes)
}

/// Reads a transcript file and parses it with [`parse`].
///
/// Only a regular file is read (a FIFO or a device is refused without
/// waiting on it), and at most [`MAX_TRANSCRIPT_BYTES`].
pub fn read_transcript(path: &Path) -> Result<Transcript, TranscriptError> {
    let bytes = read_regular_file(path, MAX_TRANSCRIPT_BYTES)?;
    let transcript = parse(&bytes);
    log::debug!(
        "{}: {} messages, {} lines or parts skipped",
        path.display(),
        transcript.messages.len(),
        transcript.skipped.len()
    );
    Ok(transcript)
}
