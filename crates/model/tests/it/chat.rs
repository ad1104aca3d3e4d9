//! One call of a tool-use conversation through the client: the endpoint and
//! headers of each backend, the reply read back, and the key kept out of
//! errors. The loop over many calls is tested in `memdir-agent`.

use memdir_model::{ChatRequest, ContentBlock, Message, ModelError, StopReason, ToolSpec, Usage};
use memdir_testkit::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::{KEY, anthropic, anthropic_error, openai};

fn chat() -> ChatRequest {
    ChatRequest {
        system: "List the folder.".to_owned(),
        messages: vec![Message::user("What is in the memory folder?")],
        tools: vec![ToolSpec {
            name: "ls".to_owned(),
            description: "List a folder.".to_owned(),
            input_schema: json!({"type": "object", "properties": {"dir": {"type": "string"}}}),
        }],
        max_tokens: 300,
    }
}

#[test]
fn anthropic_chat_reads_a_tool_call() {
    let server = ScriptedServer::start(vec![Reply::json(
        200,
        &json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"dir": "."}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 30, "output_tokens": 8},
        }),
    )]);
    let reply = anthropic(server.url()).chat(&chat()).unwrap();
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    assert_eq!(
        reply.content,
        [ContentBlock::ToolUse {
            id: "toolu_1".to_owned(),
            name: "ls".to_owned(),
            input: json!({"dir": "."}),
        }]
    );
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 30,
            output_tokens: 8
        }
    );
    let request = server.only_request();
    assert_eq!(request.target, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.json()["tools"][0]["name"], "ls");
    assert_eq!(request.json().get("stream"), None, "non-streaming");
}

#[test]
fn openai_chat_reads_text() {
    let server = ScriptedServer::start(vec![Reply::json(
        200,
        &json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "local-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Two files."},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43},
        }),
    )]);
    let reply = openai(server.url()).chat(&chat()).unwrap();
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
    assert_eq!(reply.content, [ContentBlock::text("Two files.")]);
    assert_eq!(reply.usage.total(), 43);
    let request = server.only_request();
    assert_eq!(request.target, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.json()["tools"][0]["type"], "function");
}

#[test]
fn chat_errors_do_not_show_an_echoed_key() {
    let server = ScriptedServer::start(vec![anthropic_error(
        401,
        "authentication_error",
        &format!("invalid x-api-key {KEY}"),
    )]);
    let err = anthropic(server.url()).chat(&chat()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Http { status: 401, .. }),
        "{err:?}"
    );
    for text in [err.to_string(), format!("{err:?}")] {
        assert!(!text.contains(KEY), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
}

#[test]
fn chat_reply_that_is_not_the_format_is_malformed() {
    let server = ScriptedServer::start(vec![Reply::json(200, &json!({"choices": []}))]);
    let err = openai(server.url()).chat(&chat()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
}
