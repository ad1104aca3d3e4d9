//! The loop: call the model, answer its tool calls, call again, until it
//! is done or a limit is reached.

use std::panic::{AssertUnwindSafe, catch_unwind};

use memdir_model::{
    ChatRequest, ContentBlock, Message, ModelError, Role, StopReason, ToolSpec, Usage,
};
use serde_json::Value;

use crate::cancel::Cancel;
use crate::error::AgentError;
use crate::input;
use crate::tool::{CanUseTool, ChatModel, Tool, ToolOutput, Verdict};

/// The turn limit unless [`AgentConfig::max_turns`] says otherwise: memory
/// extraction's budget.
pub const DEFAULT_MAX_TURNS: u32 = 5;
/// The output limit of one call unless
/// [`AgentConfig::max_tokens_per_call`] says otherwise.
pub const DEFAULT_MAX_TOKENS_PER_CALL: u32 = 4096;
/// The longest tool name model servers accept.
const MAX_TOOL_NAME: usize = 64;

/// How a run is bounded and instructed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentConfig {
    /// The system prompt of every call.
    pub system: String,
    /// The most model calls of a run, at least 1.
    pub max_turns: u32,
    /// The most tokens the model may write in one call, at least 1.
    pub max_tokens_per_call: u32,
    /// Input and output tokens together, as the server counts them, after
    /// which no further call is made; `None` for no limit besides the
    /// turns.
    pub token_budget: Option<u64>,
}

impl AgentConfig {
    /// A configuration with `system` and the default limits: at most
    /// [`DEFAULT_MAX_TURNS`] calls of at most
    /// [`DEFAULT_MAX_TOKENS_PER_CALL`] tokens each, no token budget.
    #[must_use]
    pub fn new(system: impl Into<String>) -> Self {
        AgentConfig {
            system: system.into(),
            max_turns: DEFAULT_MAX_TURNS,
            max_tokens_per_call: DEFAULT_MAX_TOKENS_PER_CALL,
            token_budget: None,
        }
    }
}

/// How a run ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without asking for a tool.
    EndTurn,
    /// The last allowed turn was made and the model was not done (it
    /// asked for tools, whose calls were answered, or paused); no further
    /// call was made.
    TurnLimit,
    /// The tokens used reached [`AgentConfig::token_budget`] before a
    /// call.
    TokenBudget,
    /// The [`Cancel`] flag was raised.
    Cancelled,
    /// The model declined.
    Refusal,
    /// The model's reply was cut off at
    /// [`AgentConfig::max_tokens_per_call`]; tool calls in it were not
    /// run.
    MaxTokens,
    /// The conversation filled the model's context window.
    ContextWindowExceeded,
    /// A model call failed (after the client's own retries).
    Model(ModelError),
}

/// What became of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolCallOutcome {
    /// The tool ran; `is_error` is its own verdict.
    Ran {
        /// The tool reported a failure (or panicked).
        is_error: bool,
    },
    /// [`CanUseTool::check`] refused it.
    Denied {
        /// The reason, which the model read.
        reason: String,
    },
    /// The agent has no tool of that name.
    Unknown,
    /// The input was unreadable, not an object, or lacked a required
    /// field.
    BadInput {
        /// The reason, which the model read.
        reason: String,
    },
    /// The run was cancelled before the call could run.
    Cancelled,
}

/// One tool call the model made, and what became of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// The turn (model call) that asked for it, from 1.
    pub turn: u32,
    /// The call's id.
    pub id: String,
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The input, as the model wrote it.
    pub input: Value,
    /// What became of it.
    pub outcome: ToolCallOutcome,
}

/// Everything a run did.
#[derive(Debug)]
#[non_exhaustive]
pub struct RunReport {
    /// The whole conversation: the messages the run started with, then
    /// each reply of the model and each message of tool results.
    pub messages: Vec<Message>,
    /// The model calls made, failed ones included.
    pub turns: u32,
    /// How the run ended.
    pub stop: Stop,
    /// The tokens of every call, added up.
    pub usage: Usage,
    /// Every tool call the model made, in order.
    pub tool_calls: Vec<ToolCallRecord>,
}

impl Stop {
    /// How the run ended, as a short word a report can carry
    /// (`end_turn`, `turn_limit`, …; `model error: <error>` for a failed
    /// call).
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Stop::EndTurn => "end_turn".to_owned(),
            Stop::TurnLimit => "turn_limit".to_owned(),
            Stop::TokenBudget => "token_budget".to_owned(),
            Stop::Cancelled => "cancelled".to_owned(),
            Stop::Refusal => "refusal".to_owned(),
            Stop::MaxTokens => "max_tokens".to_owned(),
            Stop::ContextWindowExceeded => "context_window_exceeded".to_owned(),
            Stop::Model(e) => format!("model error: {e}"),
        }
    }

    /// Whether the run did not get to finish its work: cancelled, or a
    /// model call failed. The limits and the model's own choices to stop
    /// are not failures.
    #[must_use]
    pub fn is_failure(&self) -> bool {
        matches!(self, Stop::Cancelled | Stop::Model(_))
    }
}

impl RunReport {
    /// The text of the tool result that answered the call `id`.
    #[must_use]
    pub fn tool_result(&self, id: &str) -> Option<&str> {
        self.messages
            .iter()
            .flat_map(|m| &m.content)
            .find_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    ..
                } if tool_use_id == id => Some(content.as_str()),
                _ => None,
            })
    }

    /// The text of the last assistant message, empty when there is none.
    #[must_use]
    pub fn final_text(&self) -> String {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::text)
            .unwrap_or_default()
    }
}

/// A restricted tool-using agent: one model, a fixed set of tools, a
/// permission check, and limits. See the [crate documentation](crate) for
/// what a run does.
pub struct Agent {
    model: Box<dyn ChatModel>,
    tools: Vec<Box<dyn Tool>>,
    specs: Vec<ToolSpec>,
    can_use: Box<dyn CanUseTool>,
    config: AgentConfig,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
        f.debug_struct("Agent")
            .field("tools", &names)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent after checking its tools (unique names the servers accept,
    /// object schemas) and limits (at least one turn and one token).
    pub fn new(
        model: Box<dyn ChatModel>,
        tools: Vec<Box<dyn Tool>>,
        can_use: Box<dyn CanUseTool>,
        config: AgentConfig,
    ) -> Result<Agent, AgentError> {
        if config.max_turns == 0 {
            return Err(AgentError::InvalidConfig {
                setting: "max_turns",
                reason: "must be at least 1",
            });
        }
        if config.max_tokens_per_call == 0 {
            return Err(AgentError::InvalidConfig {
                setting: "max_tokens_per_call",
                reason: "must be at least 1",
            });
        }
        let specs: Vec<ToolSpec> = tools.iter().map(|tool| tool.spec()).collect();
        for (index, spec) in specs.iter().enumerate() {
            let name_ok = (1..=MAX_TOOL_NAME).contains(&spec.name.len())
                && spec
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !name_ok {
                return Err(AgentError::InvalidToolName {
                    name: spec.name.clone(),
                });
            }
            if !spec.input_schema.is_object() {
                return Err(AgentError::InvalidToolSchema {
                    name: spec.name.clone(),
                });
            }
            if specs[..index].iter().any(|s| s.name == spec.name) {
                return Err(AgentError::DuplicateTool {
                    name: spec.name.clone(),
                });
            }
        }
        Ok(Agent {
            model,
            tools,
            specs,
            can_use,
            config,
        })
    }

    /// The configuration the agent was made with.
    #[must_use]
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// Runs the conversation `messages` (usually one user message) until
    /// the model is done or a limit is reached. Nothing here fails or
    /// panics: how the run ended is [`RunReport::stop`].
    #[must_use]
    pub fn run(&self, messages: Vec<Message>, cancel: &Cancel) -> RunReport {
        let mut report = RunReport {
            messages,
            turns: 0,
            stop: Stop::EndTurn,
            usage: Usage::default(),
            tool_calls: Vec::new(),
        };
        report.stop = self.drive(&mut report, cancel);
        log::debug!(
            "agent run ended after {} turns and {} tokens: {:?}",
            report.turns,
            report.usage.total(),
            report.stop
        );
        report
    }

    /// The loop itself; returns how it ended.
    fn drive(&self, report: &mut RunReport, cancel: &Cancel) -> Stop {
        loop {
            if cancel.is_cancelled() {
                return Stop::Cancelled;
            }
            if self
                .config
                .token_budget
                .is_some_and(|budget| report.usage.total() >= budget)
            {
                return Stop::TokenBudget;
            }
            if report.turns >= self.config.max_turns {
                return Stop::TurnLimit;
            }
            // The conversation moves into the request and back, so that
            // it is not copied for every call.
            let request = ChatRequest {
                system: self.config.system.clone(),
                messages: std::mem::take(&mut report.messages),
                tools: self.specs.clone(),
                max_tokens: self.config.max_tokens_per_call,
            };
            let result = self.model.chat(&request);
            report.messages = request.messages;
            report.turns += 1;
            let reply = match result {
                Ok(reply) => reply,
                Err(error) => {
                    log::warn!("agent turn {} failed: {error}", report.turns);
                    return Stop::Model(error);
                }
            };
            report.usage += reply.usage;
            let calls: Vec<(String, String, Value)> = reply
                .content
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::ToolUse { id, name, input } => {
                        Some((id.clone(), name.clone(), input.clone()))
                    }
                    _ => None,
                })
                .collect();
            if !reply.content.is_empty() {
                report.messages.push(Message::assistant(reply.content));
            }
            match reply.stop_reason {
                StopReason::Refusal => return Stop::Refusal,
                StopReason::MaxTokens => return Stop::MaxTokens,
                StopReason::ContextWindowExceeded => return Stop::ContextWindowExceeded,
                _ => {}
            }
            if calls.is_empty() {
                if reply.stop_reason == StopReason::PauseTurn {
                    continue;
                }
                return Stop::EndTurn;
            }
            let turn = report.turns;
            let results: Vec<ContentBlock> = calls
                .into_iter()
                .map(|(id, name, input)| {
                    let (outcome, output) = self.answer(&name, &input, cancel);
                    report.tool_calls.push(ToolCallRecord {
                        turn,
                        id: id.clone(),
                        name,
                        input,
                        outcome,
                    });
                    ContentBlock::ToolResult {
                        tool_use_id: id,
                        content: output.content,
                        is_error: output.is_error,
                    }
                })
                .collect();
            report.messages.push(Message {
                role: Role::User,
                content: results,
            });
        }
    }

    /// Decides and runs one call: an unknown tool, then bad input, then
    /// the permission check, each answered with an error the model reads;
    /// then the tool. A panicking tool is a failed call, not a failed run.
    fn answer(&self, name: &str, input: &Value, cancel: &Cancel) -> (ToolCallOutcome, ToolOutput) {
        if cancel.is_cancelled() {
            return (
                ToolCallOutcome::Cancelled,
                ToolOutput::error("the run was cancelled before this call"),
            );
        }
        let Some(index) = self.specs.iter().position(|spec| spec.name == name) else {
            return (
                ToolCallOutcome::Unknown,
                ToolOutput::error(format!("no tool named `{name}`")),
            );
        };
        if let Err(problem) = input::check(input, &self.specs[index].input_schema) {
            let reason = problem.to_string();
            return (
                ToolCallOutcome::BadInput {
                    reason: reason.clone(),
                },
                ToolOutput::error(reason),
            );
        }
        if let Verdict::Deny(reason) = self.can_use.check(name, input) {
            return (
                ToolCallOutcome::Denied {
                    reason: reason.clone(),
                },
                ToolOutput::error(reason),
            );
        }
        let tool = &self.tools[index];
        let output =
            catch_unwind(AssertUnwindSafe(|| tool.call(input, cancel))).unwrap_or_else(|_| {
                log::error!("tool `{name}` panicked");
                ToolOutput::error(format!("tool `{name}` failed unexpectedly"))
            });
        (
            ToolCallOutcome::Ran {
                is_error: output.is_error,
            },
            output,
        )
    }
}

#[cfg(test)]
mod tests;
