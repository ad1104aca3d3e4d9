//! Blocking access to a language model for memdir: side queries (one
//! system prompt and one user message in, one schema-checked JSON value
//! out) and the single calls of a tool-use conversation.
//!
//! - [`ModelConfig`] — which backend ([`Backend`]), where, with which key
//!   and model; [`ModelConfig::from_lookup`] reads it from environment
//!   variables, and "nothing configured" is `Ok(None)`, a normal state.
//! - [`ModelClient`] — sends a [`SideQuery`] to the Anthropic Messages API
//!   or to any OpenAI-compatible chat-completions endpoint, asks for
//!   structured output matching the query's JSON schema, retries briefly
//!   when the server says so, and validates the reply against the schema
//!   whatever the server claims to have honoured.
//! - [`ModelClient::chat`] — one call of a tool-use conversation: a
//!   [`ChatRequest`] (system prompt, [`Message`]s of [`ContentBlock`]s,
//!   [`ToolSpec`]s) in, a [`ChatReply`] (text and tool calls, a
//!   [`StopReason`], [`Usage`]) out, over either backend's wire format.
//!   The loop that runs tools and calls again lives above this crate
//!   (`memdir-agent`).
//! - [`ModelError`] — every way a call can fail, with the HTTP status and
//!   the server's error type where there is one. No error message and no
//!   `Debug` output ever shows the API key.
//!
//! # Environment variables
//!
//! | Variable | Meaning |
//! |---|---|
//! | `MEMDIR_MODEL_BACKEND` | `anthropic` or `openai`; any other value is an error |
//! | `ANTHROPIC_API_KEY` | key for the Anthropic API; when set, and no backend is named, Anthropic is used |
//! | `ANTHROPIC_BASE_URL` | default `https://api.anthropic.com` |
//! | `OPENAI_API_KEY` | key for an OpenAI-compatible server; optional, local servers need none |
//! | `OPENAI_BASE_URL` | default `https://api.openai.com/v1` |
//! | `MEMDIR_MODEL` | model name; default `claude-sonnet-4-6` for Anthropic, required for OpenAI-compatible |
//! | `MEMDIR_MODEL_TIMEOUT_MS` | whole-request timeout in milliseconds, default 30000 |
//!
//! Without `MEMDIR_MODEL_BACKEND`, a set `ANTHROPIC_API_KEY` picks
//! Anthropic; otherwise a set `OPENAI_BASE_URL` or `OPENAI_API_KEY` picks
//! the OpenAI-compatible backend; otherwise no model is configured. Empty
//! values count as unset.
//!
//! ```
//! use memdir_model::{Backend, ModelConfig, ModelError};
//!
//! // Nothing set: no model, and that is not an error.
//! assert!(ModelConfig::from_lookup(|_| None)?.is_none());
//!
//! // A local OpenAI-compatible server.
//! let config = ModelConfig::from_lookup(|name| match name {
//!     "OPENAI_BASE_URL" => Some("http://127.0.0.1:8080/v1".to_owned()),
//!     "MEMDIR_MODEL" => Some("qwen3-8b".to_owned()),
//!     _ => None,
//! })?
//! .ok_or(ModelError::NotConfigured)?;
//! assert_eq!(config.backend, Backend::OpenAiCompatible);
//! assert_eq!(config.api_key, None);
//! # Ok::<(), ModelError>(())
//! ```
//!
//! The HTTP exchange itself (timeout, proxy rule, retries honouring
//! `retry-after`, URLs cleaned of credentials in errors) is
//! [`memdir_http`]'s; nothing here reads or writes files.
//!
//! Wire formats: the Messages API's tool use
//! (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>,
//! <https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls>)
//! and chat-completions function calling
//! (<https://developers.openai.com/api/docs/guides/function-calling>).
//!
//! Modules depend one way: `query`, `chat` and `error` on nothing of the crate;
//! `config`, `reply` and `schema` on `error` (and `reply`); the backends
//! `anthropic` and `openai` on those; `client` on all of them.

mod anthropic;
mod chat;
mod client;
mod config;
mod error;
mod openai;
mod query;
mod reply;
mod schema;

pub use chat::{
    ChatReply, ChatRequest, ContentBlock, Message, Role, StopReason, TOOL_INPUT_ERROR_KEY,
    ToolSpec, Usage, tool_input_error,
};
pub use client::ModelClient;
pub use config::{
    Backend, DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL, DEFAULT_MAX_RETRIES,
    DEFAULT_OPENAI_BASE_URL, DEFAULT_TIMEOUT, ENV_ANTHROPIC_API_KEY, ENV_ANTHROPIC_BASE_URL,
    ENV_BACKEND, ENV_MODEL, ENV_OPENAI_API_KEY, ENV_OPENAI_BASE_URL, ENV_TIMEOUT_MS, ModelConfig,
};
pub use error::ModelError;
pub use query::SideQuery;
