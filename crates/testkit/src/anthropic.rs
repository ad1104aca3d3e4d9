//! Replies in the Anthropic Messages API's wire format, for a
//! [`ScriptedServer`](crate::ScriptedServer) that plays a model's turns.

use std::fmt::Write as _;

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

/// The same answer as [`message`], streamed as server-sent events (what a
/// client asking with `"stream": true` reads): `message_start`, each block
/// as a start, one delta and a stop, `message_delta` with `stop_reason`,
/// `message_stop`.
#[must_use]
pub fn streamed(content: &Value, stop_reason: &str) -> Reply {
    let mut events = vec![json!({
        "type": "message_start",
        "message": {
            "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 120, "output_tokens": 1}
        }
    })];
    for (index, block) in content.as_array().into_iter().flatten().enumerate() {
        let (start, delta) = if block["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": 30}
    }));
    events.push(json!({"type": "message_stop"}));
    let mut body = String::new();
    for e in &events {
        let _ = write!(
            body,
            "event: {}\ndata: {e}\n\n",
            e["type"].as_str().unwrap_or("")
        );
    }
    Reply::text(200, &body).header("content-type", "text/event-stream")
}
