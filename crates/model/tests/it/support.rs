//! Shared test inputs: a key, a query with memdir's selection schema,
//! client configurations pointing at a scripted server, and model replies
//! in each backend's format.

use std::time::Duration;

use memdir_model::{Backend, ModelClient, ModelConfig, SideQuery};
use memdir_testkit::Reply;
use serde_json::{Value, json};

/// An API key that must never show up in output.
pub(crate) const KEY: &str = "sk-test-4f1c2a9e8b7d6c5a";

/// The schema of the relevance selector's answer.
pub(crate) fn selection_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "selected_memories": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        },
        "required": ["selected_memories"],
        "additionalProperties": false,
    })
}

/// A side query asking for a selection.
pub(crate) fn query() -> SideQuery {
    SideQuery {
        system: "Select the memories useful for the request.".to_owned(),
        user: "Request: fix the flaky test\n- testing.md: how tests run".to_owned(),
        schema_name: "memory_selection".to_owned(),
        schema: selection_schema(),
        max_tokens: 256,
    }
}

/// A configuration for a scripted server; the timeout is generous so that
/// only the timeout tests time out.
pub(crate) fn config(backend: Backend, url: &str, key: Option<&str>) -> ModelConfig {
    let model = match backend {
        Backend::Anthropic => "claude-sonnet-4-6",
        Backend::OpenAiCompatible => "local-model",
    };
    let mut config = ModelConfig::new(backend, url, key.map(str::to_owned), model);
    config.timeout = Duration::from_secs(10);
    config
}

/// An Anthropic client with [`KEY`].
pub(crate) fn anthropic(url: &str) -> ModelClient {
    ModelClient::new(config(Backend::Anthropic, url, Some(KEY))).unwrap()
}

/// An OpenAI-compatible client for `{url}/v1` with [`KEY`].
pub(crate) fn openai(url: &str) -> ModelClient {
    let base = format!("{url}/v1");
    ModelClient::new(config(Backend::OpenAiCompatible, &base, Some(KEY))).unwrap()
}

/// A Messages API reply whose text is `text`.
pub(crate) fn anthropic_reply(text: &str, stop_reason: &str) -> Reply {
    Reply::json(
        200,
        &json!({
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 9},
        }),
    )
}

/// An Anthropic error reply.
pub(crate) fn anthropic_error(status: u16, error_type: &str, message: &str) -> Reply {
    Reply::json(
        status,
        &json!({
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": "req_011",
        }),
    )
}

/// A chat-completions reply whose message content is `content`.
pub(crate) fn openai_reply(content: &str) -> Reply {
    Reply::json(
        200,
        &json!({
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "local-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }],
        }),
    )
}

/// The answer used in success cases, as text.
pub(crate) const ANSWER: &str = r#"{"selected_memories": ["testing.md"]}"#;
