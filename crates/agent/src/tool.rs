//! What the loop runs and who decides whether it may: the [`Tool`] and
//! [`CanUseTool`] traits, and the model behind the [`ChatModel`] trait.

use memdir_model::{ChatReply, ChatRequest, ModelClient, ModelError, ToolSpec};
use serde_json::Value;

use crate::cancel::Cancel;

/// The model a run talks to. [`ModelClient`] is one; an embedder with its
/// own client, or a test with a script, implements this (a closure of the
/// same signature does).
pub trait ChatModel: Send + Sync {
    /// One call: the conversation so far in, the model's next message out.
    fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError>;
}

impl ChatModel for ModelClient {
    fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        ModelClient::chat(self, request)
    }
}

impl<F> ChatModel for F
where
    F: Fn(&ChatRequest) -> Result<ChatReply, ModelError> + Send + Sync,
{
    fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        self(request)
    }
}

/// What a tool call gave back: the text the model reads, and whether it
/// failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The result, or the reason for the failure.
    pub content: String,
    /// The call failed; the model reads `content` as the reason.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    #[must_use]
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            is_error: false,
        }
    }

    /// A failure, with the reason the model should read.
    #[must_use]
    pub fn error(reason: impl Into<String>) -> Self {
        ToolOutput {
            content: reason.into(),
            is_error: true,
        }
    }
}

/// A tool the model may call.
///
/// The loop calls [`Tool::call`] only after the input passed the checks
/// (an object with the fields `spec().input_schema` requires) and
/// [`CanUseTool::check`] allowed it. Failures are [`ToolOutput::error`]s,
/// which the model reads and may react to; they do not end the run.
pub trait Tool: Send + Sync {
    /// The name, description and input schema the model is shown. The
    /// loop reads it once, when the [`Agent`](crate::Agent) is made.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool on `input`. A long tool checks `cancel` now and then.
    fn call(&self, input: &Value, cancel: &Cancel) -> ToolOutput;
}

/// The answer of a permission check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The call may run.
    Allow,
    /// The call may not run; the model reads the reason.
    Deny(String),
}

/// Decides, for each call, whether it may run: the place for rules such as
/// "writes only inside the memory folder" or "read-only shell commands".
/// A closure `Fn(&str, &Value) -> Verdict` is one.
pub trait CanUseTool: Send + Sync {
    /// Whether the tool `tool` may run with `input`.
    fn check(&self, tool: &str, input: &Value) -> Verdict;
}

impl<F> CanUseTool for F
where
    F: Fn(&str, &Value) -> Verdict + Send + Sync,
{
    fn check(&self, tool: &str, input: &Value) -> Verdict {
        self(tool, input)
    }
}

/// Allows every call of the agent's tools: for agents whose tools are
/// harmless by construction.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl CanUseTool for AllowAll {
    fn check(&self, _tool: &str, _input: &Value) -> Verdict {
        Verdict::Allow
    }
}
