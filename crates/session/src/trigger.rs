//! When the notes are brought up to date (SPEC R11.1, R11.2): the
//! thresholds, the token estimate, and [`should_extract_memory`].

use memdir_transcript::{Block, Message, Role, Transcript};
use serde::{Deserialize, Serialize};

/// The most tokens one section of the notes should hold.
pub const MAX_SECTION_LENGTH: usize = 2_000;
/// The most tokens the whole notes file should hold.
pub const MAX_TOTAL_SESSION_MEMORY_TOKENS: usize = 12_000;

/// The thresholds of [`should_extract_memory`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionMemoryConfig {
    /// The context size, in tokens, before the first notes are written.
    pub minimum_message_tokens_to_init: u64,
    /// The growth of the context, in tokens, since the last update before
    /// the next one.
    pub minimum_tokens_between_update: u64,
    /// The tool calls since the last update that make a moment to update
    /// even while the model is still calling tools.
    pub tool_calls_between_updates: u64,
}

impl Default for SessionMemoryConfig {
    fn default() -> Self {
        SessionMemoryConfig {
            minimum_message_tokens_to_init: 10_000,
            minimum_tokens_between_update: 5_000,
            tool_calls_between_updates: 3,
        }
    }
}

/// The rough token count of a text: its characters divided by four.
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count() / 4
}

/// What [`should_extract_memory`] needs to know of a transcript.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TranscriptView {
    /// The size of the context the model has now, in tokens.
    pub context_tokens: u64,
    /// The main thread's tool calls over the whole transcript (compacted
    /// parts included, so the count only grows).
    pub tool_calls: u64,
    /// Whether the last assistant turn the model still sees called a
    /// tool; `None` when there is no assistant turn.
    pub last_turn_called_tools: Option<bool>,
}

impl TranscriptView {
    /// The view of `transcript`. The context size is the real one when the
    /// transcript records usage: the input (cached or not) and output
    /// tokens of the last assistant response since the last compaction.
    /// Without usage it is estimated, [`estimate_tokens`] over the messages
    /// the model still sees.
    #[must_use]
    pub fn of(transcript: &Transcript) -> Self {
        let visible: Vec<&Message> = transcript.model_visible().collect();
        let real = visible
            .iter()
            .rev()
            .filter(|m| m.role == Role::Assistant)
            .find_map(|m| m.usage)
            .map(|u| u.total());
        let context_tokens = real.unwrap_or_else(|| {
            let chars: usize = visible.iter().map(|m| message_chars(m)).sum();
            (chars / 4) as u64
        });
        let tool_calls = transcript
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.is_sidechain)
            .map(|m| m.tool_uses().count() as u64)
            .sum();
        let last_turn_called_tools = visible
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.tool_uses().next().is_some());
        TranscriptView {
            context_tokens,
            tool_calls,
            last_turn_called_tools,
        }
    }
}

fn message_chars(message: &Message) -> usize {
    message
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.chars().count(),
            Block::ToolUse(t) => t.name.chars().count() + t.input.to_string().chars().count(),
            Block::ToolResult(r) => r.content.chars().count(),
            _ => 0,
        })
        .sum()
}

/// Where the last update left off: recorded after each successful update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Watermark {
    /// The context size, in tokens, when the notes were last updated.
    pub tokens: u64,
    /// [`TranscriptView::tool_calls`] at that time.
    pub tool_calls: u64,
    /// When (RFC 3339).
    pub updated_at: String,
}

impl Watermark {
    /// The watermark of `view`, recorded at `updated_at`.
    #[must_use]
    pub fn new(view: &TranscriptView, updated_at: impl Into<String>) -> Self {
        Watermark {
            tokens: view.context_tokens,
            tool_calls: view.tool_calls,
            updated_at: updated_at.into(),
        }
    }
}

/// The answer of [`should_extract_memory`], with its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trigger {
    /// No notes yet, and the context is below the first threshold.
    BelowInitThreshold {
        /// The context's size.
        tokens: u64,
        /// The threshold.
        needed: u64,
    },
    /// The context has not grown enough since the last update.
    TooLittleGrowth {
        /// The growth.
        growth: u64,
        /// The threshold.
        needed: u64,
    },
    /// Enough tokens, but the model is in the middle of its work (its last
    /// turn called a tool) and has made too few tool calls since.
    MidWork {
        /// Tool calls since the last update.
        tool_calls: u64,
        /// The threshold.
        needed: u64,
    },
    /// Update: enough tokens and enough tool calls.
    ToolCalls {
        /// Tool calls since the last update.
        tool_calls: u64,
    },
    /// Update: enough tokens, and the last turn called no tool (a natural
    /// break).
    NaturalBreak,
}

impl Trigger {
    /// Whether the notes should be updated now.
    #[must_use]
    pub fn should_update(self) -> bool {
        matches!(self, Trigger::ToolCalls { .. } | Trigger::NaturalBreak)
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::BelowInitThreshold { tokens, needed } => write!(
                f,
                "not yet: the context has {tokens} tokens; the first notes are written at {needed}"
            ),
            Trigger::TooLittleGrowth { growth, needed } => write!(
                f,
                "not yet: the context grew {growth} tokens since the last update; the next is due at {needed}"
            ),
            Trigger::MidWork { tool_calls, needed } => write!(
                f,
                "not yet: the model is mid-work with {tool_calls} tool calls since the last update (an update waits for {needed}, or a turn without tool calls)"
            ),
            Trigger::ToolCalls { tool_calls } => write!(
                f,
                "due: enough new context and {tool_calls} tool calls since the last update"
            ),
            Trigger::NaturalBreak => write!(
                f,
                "due: enough new context, and the last turn called no tool"
            ),
        }
    }
}

/// Whether the notes should be updated now (SPEC R11.2).
///
/// The token threshold is always required: with no notes yet
/// (`last == None`) the context must hold
/// [`SessionMemoryConfig::minimum_message_tokens_to_init`] tokens; after an
/// update it must have grown by
/// [`SessionMemoryConfig::minimum_tokens_between_update`] since `last`. A
/// context smaller than at the last update was compacted since, and all of
/// it counts as growth. Then either enough tool calls were made since the
/// last update, or the last assistant turn called no tool.
///
/// ```
/// use memdir_session::{SessionMemoryConfig, TranscriptView, Trigger, should_extract_memory};
///
/// let config = SessionMemoryConfig::default();
/// let view = TranscriptView { context_tokens: 12_000, tool_calls: 1, last_turn_called_tools: Some(false) };
/// assert_eq!(should_extract_memory(&view, None, &config), Trigger::NaturalBreak);
/// let small = TranscriptView { context_tokens: 9_000, ..view };
/// assert!(!should_extract_memory(&small, None, &config).should_update());
/// ```
#[must_use]
pub fn should_extract_memory(
    view: &TranscriptView,
    last: Option<&Watermark>,
    config: &SessionMemoryConfig,
) -> Trigger {
    let tool_calls = match last {
        None => {
            if view.context_tokens < config.minimum_message_tokens_to_init {
                return Trigger::BelowInitThreshold {
                    tokens: view.context_tokens,
                    needed: config.minimum_message_tokens_to_init,
                };
            }
            view.tool_calls
        }
        Some(mark) => {
            let growth = if view.context_tokens >= mark.tokens {
                view.context_tokens - mark.tokens
            } else {
                view.context_tokens
            };
            if growth < config.minimum_tokens_between_update {
                return Trigger::TooLittleGrowth {
                    growth,
                    needed: config.minimum_tokens_between_update,
                };
            }
            view.tool_calls.saturating_sub(mark.tool_calls)
        }
    };
    if tool_calls >= config.tool_calls_between_updates {
        Trigger::ToolCalls { tool_calls }
    } else if view.last_turn_called_tools == Some(false) {
        Trigger::NaturalBreak
    } else {
        Trigger::MidWork {
            tool_calls,
            needed: config.tool_calls_between_updates,
        }
    }
}

#[cfg(test)]
mod tests;
