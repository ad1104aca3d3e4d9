//! Replies in the Anthropic Messages API's wire format, for a
//! [`ScriptedServer`](crate::ScriptedServer) that plays a model's turns.

use serde_json::{Value, json};

use crate::Reply;

/// A 200 answer: one assistant message with `content` (a JSON array of
/// blocks) and `stop_reason`, with a small usage.
#[must_use]
pub fn message(content: &Value, stop_reason: &str) -> Reply {
    Reply::json(
        200,
        &json!({
            "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
            "content": content, "stop_reason": stop_reason, "stop_sequence": null,
            "usage": {"input_tokens": 120, "output_tokens": 30}
        }),
    )
}

/// A `tool_use` block.
#[must_use]
pub fn tool_use(id: &str, name: &str, input: &Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// A final answer of plain text (`end_turn`).
#[must_use]
pub fn text(text: &str) -> Reply {
    message(&json!([{"type": "text", "text": text}]), "end_turn")
}
