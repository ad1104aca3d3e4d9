//! A small restricted tool-using agent for memdir's background work
//! (memory extraction, session-notes updates, log distillation): a model,
//! a fixed set of tools, a permission check on every call, and hard limits
//! on turns and tokens.
//!
//! - [`Agent`] — made from a [`ChatModel`] (a [`ModelClient`], or an
//!   embedder's own client), [`Tool`]s, a [`CanUseTool`] check and an
//!   [`AgentConfig`]; [`Agent::run`] returns a [`RunReport`]: the whole
//!   conversation, the turns, how it ended ([`Stop`]), the tokens and a
//!   [`ToolCallRecord`] for every call.
//! - [`Cancel`] — a shared flag that stops a run from another thread.
//! - The conversation values ([`Message`], [`ContentBlock`], [`ToolSpec`],
//!   …) are `memdir-model`'s, re-exported here.
//!
//! # What a run does
//!
//! - A *turn* is one model call. Before each call the run stops if the
//!   [`Cancel`] flag is raised ([`Stop::Cancelled`]), if the tokens used so
//!   far (input and output, as the server counted them) reached
//!   [`AgentConfig::token_budget`] ([`Stop::TokenBudget`]), or if
//!   [`AgentConfig::max_turns`] calls were made ([`Stop::TurnLimit`]). So
//!   at most `max_turns` requests ever reach the model.
//! - The model's reply is appended to the conversation as an assistant
//!   message. A refusal, a reply cut off at the token limit, or a full
//!   context window ends the run ([`Stop::Refusal`], [`Stop::MaxTokens`],
//!   [`Stop::ContextWindowExceeded`]); a failed call ends it with
//!   [`Stop::Model`] (the client has retried what can be retried).
//! - Every tool call of the reply is answered, one after another in the
//!   order the model wrote them; the results go back as one user message,
//!   in that order. For each call: with the flag raised, the call does not
//!   run; a name the agent has no tool for gets `no tool named …`; input
//!   that could not be read, is not a JSON object, or lacks a field the
//!   tool's schema requires gets the reason; then [`CanUseTool::check`]
//!   decides, and a denial's reason is what the model reads; only then
//!   does the tool run. All of these are `is_error` results the model
//!   sees and can react to; none ends the run. The checker therefore only
//!   ever sees objects with the required fields.
//! - The tool calls of the last allowed turn are answered too (a memory
//!   extractor's writes happen in its last turn), and then the run stops
//!   with [`Stop::TurnLimit`].
//! - A reply without tool calls ends the run ([`Stop::EndTurn`]), except
//!   `pause_turn`, after which the run calls again with the paused reply
//!   in the conversation.
//!
//! Errors are values: [`Agent::new`] returns an [`AgentError`] for tools or
//! limits that cannot work, and a run never fails or panics (a panicking
//! tool is a failed call).
//!
//! # Example: an embedder's own tool and model
//!
//! ```
//! use memdir_agent::{
//!     Agent, AgentConfig, AllowAll, Cancel, ChatReply, ChatRequest, ContentBlock, Message,
//!     ModelError, Stop, StopReason, Tool, ToolOutput, ToolSpec, Usage,
//! };
//! use serde_json::{Value, json};
//!
//! /// Tells the time, always the same.
//! struct Clock;
//!
//! impl Tool for Clock {
//!     fn spec(&self) -> ToolSpec {
//!         ToolSpec {
//!             name: "clock".to_owned(),
//!             description: "The current time.".to_owned(),
//!             input_schema: json!({"type": "object", "properties": {}}),
//!         }
//!     }
//!     fn call(&self, _input: &Value, _cancel: &Cancel) -> ToolOutput {
//!         ToolOutput::ok("12:00")
//!     }
//! }
//!
//! // A scripted model: first it asks for the clock, then it answers.
//! let model = |request: &ChatRequest| -> Result<ChatReply, ModelError> {
//!     let usage = Usage { input_tokens: 10, output_tokens: 5 };
//!     Ok(if request.messages.len() == 1 {
//!         let call = ContentBlock::ToolUse {
//!             id: "c1".to_owned(),
//!             name: "clock".to_owned(),
//!             input: json!({}),
//!         };
//!         ChatReply::new(vec![call], StopReason::ToolUse, usage)
//!     } else {
//!         ChatReply::new(vec![ContentBlock::text("It is noon.")], StopReason::EndTurn, usage)
//!     })
//! };
//!
//! let agent = Agent::new(
//!     Box::new(model),
//!     vec![Box::new(Clock)],
//!     Box::new(AllowAll),
//!     AgentConfig::new("Answer briefly."),
//! )?;
//! let report = agent.run(vec![Message::user("What time is it?")], &Cancel::new());
//! assert!(matches!(report.stop, Stop::EndTurn));
//! assert_eq!(report.turns, 2);
//! assert_eq!(report.final_text(), "It is noon.");
//! assert_eq!(report.usage.total(), 30);
//! # Ok::<(), memdir_agent::AgentError>(())
//! ```
//!
//! With a real model, pass `Box::new(ModelClient::new(config)?)`.
//!
//! Modules depend one way: `cancel` and `error` on nothing of the crate;
//! `input` on nothing; `tool` on `cancel`; `run` on all of them.

mod cancel;
mod error;
mod input;
mod run;
mod tool;

pub use cancel::Cancel;
pub use error::AgentError;
pub use memdir_model::{
    ChatReply, ChatRequest, ContentBlock, Message, ModelClient, ModelError, Role, StopReason,
    ToolSpec, Usage,
};
pub use run::{
    Agent, AgentConfig, DEFAULT_MAX_TOKENS_PER_CALL, DEFAULT_MAX_TURNS, RunReport, Stop,
    ToolCallOutcome, ToolCallRecord,
};
pub use tool::{AllowAll, CanUseTool, ChatModel, Tool, ToolOutput, Verdict};

/// The README's example is compiled as a doctest, so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
