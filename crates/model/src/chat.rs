//! The values of a tool-use conversation, independent of any wire format:
//! messages made of content blocks, the tools offered, one request and one
//! reply. The backends translate them to and from their JSON; this module
//! depends on no other module of the crate.

use std::ops::{Add, AddAssign};

use serde_json::{Value, json};

/// Who wrote a message. The system prompt is not a message: it is
/// [`ChatRequest::system`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The caller: prompts and tool results.
    User,
    /// The model: text and tool calls.
    Assistant,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// The model asks for a tool to be run.
    ToolUse {
        /// The call's id, which its [`ContentBlock::ToolResult`] names.
        id: String,
        /// The tool's name, as offered in [`ToolSpec::name`].
        name: String,
        /// The tool's input as the model wrote it. Usually an object; a
        /// server that sent arguments that are not JSON gives an
        /// [invalid input marker](tool_input_error) here instead.
        input: Value,
    },
    /// The answer to a [`ContentBlock::ToolUse`], sent in a user message.
    ToolResult {
        /// The id of the call this answers.
        tool_use_id: String,
        /// What the tool returned, or why it did not run.
        content: String,
        /// The call failed or was refused; the model reads `content` as
        /// the reason.
        is_error: bool,
    },
    /// A block of a kind this crate does not model (Anthropic `thinking`,
    /// `server_tool_use`, …), kept as the server sent it so that it goes
    /// back unchanged when the conversation continues, as the Messages API
    /// asks for `pause_turn` and thinking. The OpenAI-compatible format
    /// has no such blocks and leaves it out.
    Raw(Value),
}

impl ContentBlock {
    /// A [`ContentBlock::Text`].
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// What it says, in order.
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message of one text block.
    #[must_use]
    pub fn user(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }

    /// An assistant message of the given blocks.
    #[must_use]
    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Message {
            role: Role::Assistant,
            content,
        }
    }

    /// The text blocks, joined.
    #[must_use]
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by; servers accept letters, digits, `_`
    /// and `-`, at most 64.
    pub name: String,
    /// What the tool does and when to use it, for the model.
    pub description: String,
    /// A JSON schema of the input object.
    pub input_schema: Value,
}

/// One call of a tool-use conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The system prompt; empty sends none.
    pub system: String,
    /// The conversation so far, starting with a user message.
    pub messages: Vec<Message>,
    /// The tools offered; empty offers none.
    pub tools: Vec<ToolSpec>,
    /// The most tokens the model may produce in this reply.
    pub max_tokens: u32,
}

/// Why the model stopped producing its reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// It finished its answer (Anthropic `end_turn`, OpenAI `stop`).
    EndTurn,
    /// It waits for the results of its tool calls (Anthropic `tool_use`,
    /// OpenAI `tool_calls`).
    ToolUse,
    /// It reached [`ChatRequest::max_tokens`] (Anthropic `max_tokens`,
    /// OpenAI `length`).
    MaxTokens,
    /// The server paused a long turn; sending the conversation again, with
    /// this reply in it, lets it continue (Anthropic `pause_turn`).
    PauseTurn,
    /// It declined to answer (Anthropic `refusal`, an OpenAI `refusal`
    /// message or `content_filter`).
    Refusal,
    /// The conversation filled the model's context window (Anthropic
    /// `model_context_window_exceeded`).
    ContextWindowExceeded,
    /// Any other reason, as the server named it.
    Other(String),
}

/// Tokens a call consumed, as the server counted them; zero where it did
/// not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Usage {
    /// Tokens read: the system prompt, tools and messages.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

impl Usage {
    /// Input and output tokens together.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// The counts of a reply's `usage` object, under the backend's names
    /// for them; a missing count is 0.
    pub(crate) fn from_reply(reply: &Value, input: &str, output: &str) -> Usage {
        let count = |name: &str| {
            reply
                .get("usage")
                .and_then(|u| u.get(name))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        Usage {
            input_tokens: count(input),
            output_tokens: count(output),
        }
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_add(other.input_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// The model's answer to one [`ChatRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ChatReply {
    /// Text, tool calls and other blocks ([`ContentBlock::Raw`]), in the
    /// order the model wrote them.
    pub content: Vec<ContentBlock>,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// What the call consumed.
    pub usage: Usage,
}

impl ChatReply {
    /// A reply, for model clients other than [`ModelClient`] and for tests.
    ///
    /// [`ModelClient`]: crate::ModelClient
    #[must_use]
    pub fn new(content: Vec<ContentBlock>, stop_reason: StopReason, usage: Usage) -> Self {
        ChatReply {
            content,
            stop_reason,
            usage,
        }
    }
}

/// The key of the marker object that stands for tool input the server sent
/// in a form that is not JSON (see [`tool_input_error`]).
pub const TOOL_INPUT_ERROR_KEY: &str = "$memdir_tool_input_error";

/// The marker put in [`ContentBlock::ToolUse::input`] when the server's
/// arguments could not be read: `{"$memdir_tool_input_error": {"reason",
/// "raw"}}`. The raw text is sent back as it came when the conversation
/// continues.
pub(crate) fn invalid_tool_input(reason: &str, raw: &str) -> Value {
    json!({ TOOL_INPUT_ERROR_KEY: {"reason": reason, "raw": raw} })
}

/// The raw arguments text of an invalid input marker.
pub(crate) fn invalid_tool_input_raw(input: &Value) -> Option<&str> {
    input.get(TOOL_INPUT_ERROR_KEY)?.get("raw")?.as_str()
}

/// Why a tool call's input could not be read, when `input` is the marker a
/// backend puts in place of arguments that are not JSON; `None` for any
/// other input. A tool-use loop answers such a call with an `is_error`
/// result carrying this reason, so that the model can try again.
///
/// ```
/// use memdir_model::tool_input_error;
/// use serde_json::json;
///
/// assert_eq!(tool_input_error(&json!({"path": "a.md"})), None);
/// ```
#[must_use]
pub fn tool_input_error(input: &Value) -> Option<&str> {
    let marker = input.as_object().filter(|object| object.len() == 1)?;
    marker.get(TOOL_INPUT_ERROR_KEY)?.get("reason")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_round_trips_and_nothing_else_is_one() {
        let marker = invalid_tool_input("expected value at line 1", "{path: a}");
        assert_eq!(tool_input_error(&marker), Some("expected value at line 1"));
        assert_eq!(invalid_tool_input_raw(&marker), Some("{path: a}"));
        assert_eq!(tool_input_error(&json!({"reason": "x"})), None);
        assert_eq!(tool_input_error(&json!("text")), None);
        // A model's own input that happens to use the key, next to other
        // fields, is input, not a marker.
        let mixed = json!({TOOL_INPUT_ERROR_KEY: {"reason": "r"}, "path": "a"});
        assert_eq!(tool_input_error(&mixed), None);
    }

    #[test]
    fn usage_adds_up_without_overflow() {
        let mut usage = Usage {
            input_tokens: 3,
            output_tokens: 4,
        };
        usage += Usage {
            input_tokens: 10,
            output_tokens: 1,
        };
        assert_eq!(usage.total(), 18);
        let huge = Usage {
            input_tokens: u64::MAX,
            output_tokens: 1,
        };
        assert_eq!(huge.total(), u64::MAX);
    }

    #[test]
    fn message_text_joins_only_text_blocks() {
        let message = Message::assistant(vec![
            ContentBlock::text("a"),
            ContentBlock::ToolUse {
                id: "t".to_owned(),
                name: "n".to_owned(),
                input: json!({}),
            },
            ContentBlock::text("b"),
        ]);
        assert_eq!(message.text(), "ab");
    }
}
