//! What a side query is, and the HTTP request a backend makes of it. The
//! backends build [`WireRequest`]s from a [`SideQuery`]; the client sends
//! them. This module depends on no other module of the crate.

use serde_json::Value;

/// One structured-output question to the model: instructions, a message,
/// and the JSON schema the answer must match.
#[derive(Debug, Clone, PartialEq)]
pub struct SideQuery {
    /// The system prompt.
    pub system: String,
    /// The user message.
    pub user: String,
    /// A name for the schema, sent to OpenAI-compatible servers and shown
    /// in errors; keep to letters, digits, `_` and `-`, at most 64, which
    /// is what OpenAI-compatible servers accept.
    pub schema_name: String,
    /// The JSON schema the reply must match. Servers may enforce it; the
    /// client always checks it (see [`ModelError::SchemaMismatch`]).
    ///
    /// [`ModelError::SchemaMismatch`]: crate::ModelError::SchemaMismatch
    pub schema: Value,
    /// The most tokens the model may produce.
    pub max_tokens: u32,
}

/// An HTTP request as a backend builds it.
pub(crate) struct WireRequest {
    /// The endpoint.
    pub(crate) url: String,
    /// Header names (lowercase) and values.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The JSON body.
    pub(crate) body: Value,
}
