//! The Anthropic Messages API wire format: `POST {base}/v1/messages` with
//! structured output through `output_config.format` for side queries, and
//! `tools`, `tool_use` and `tool_result` blocks for conversations.
//!
//! Shapes: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>
//! and <https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls>.

use serde_json::{Map, Value, json};

use crate::chat::{ChatReply, ChatRequest, ContentBlock, Message, Role, StopReason, Usage};
use crate::config::ModelConfig;
use crate::error::ModelError;
use crate::query::{SideQuery, WireRequest};
use crate::reply::parse_model_json;

/// The API version this client speaks.
const API_VERSION: &str = "2023-06-01";

/// The endpoint and headers every request has.
fn wire(config: &ModelConfig, body: Value) -> WireRequest {
    let mut headers = vec![
        ("anthropic-version", API_VERSION.to_owned()),
        ("content-type", "application/json".to_owned()),
    ];
    if let Some(key) = &config.api_key {
        headers.push(("x-api-key", key.clone()));
    }
    WireRequest {
        url: format!("{}/v1/messages", config.base()),
        headers,
        body,
    }
}

/// The request for a side query.
pub(crate) fn request(config: &ModelConfig, query: &SideQuery) -> WireRequest {
    wire(
        config,
        json!({
            "model": config.model,
            "max_tokens": query.max_tokens,
            "system": query.system,
            "messages": [{"role": "user", "content": query.user}],
            "output_config": {
                "format": {"type": "json_schema", "schema": query.schema},
            },
        }),
    )
}

/// The request for one call of a conversation: non-streaming, `system`
/// and `tools` left out when empty, every message's content as a list of
/// blocks.
pub(crate) fn chat_request(config: &ModelConfig, chat: &ChatRequest) -> WireRequest {
    let mut body = Map::new();
    body.insert("model".to_owned(), json!(config.model));
    body.insert("max_tokens".to_owned(), json!(chat.max_tokens));
    if !chat.system.is_empty() {
        body.insert("system".to_owned(), json!(chat.system));
    }
    let messages: Vec<Value> = chat.messages.iter().map(message).collect();
    body.insert("messages".to_owned(), Value::Array(messages));
    if !chat.tools.is_empty() {
        let tools: Vec<Value> = chat
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.input_schema,
                })
            })
            .collect();
        body.insert("tools".to_owned(), Value::Array(tools));
    }
    wire(config, Value::Object(body))
}

/// One message on the wire.
fn message(message: &Message) -> Value {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content: Vec<Value> = message.content.iter().map(block).collect();
    json!({"role": role, "content": content})
}

/// One content block on the wire.
fn block(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::ToolUse { id, name, input } => {
            // An invalid-input marker comes from another backend's reply;
            // the Messages API wants an object, and an empty one is the
            // closest to "no readable input".
            let input = if crate::chat::tool_input_error(input).is_some() {
                json!({})
            } else {
                input.clone()
            };
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => json!({
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": content,
            "is_error": is_error,
        }),
        ContentBlock::Raw(block) => block.clone(),
    }
}

/// A conversation reply: `text` and `tool_use` blocks of `content` (other
/// kinds kept as [`ContentBlock::Raw`]), the stop reason and the usage. A missing stop reason
/// is inferred from the blocks: tool use when there are tool calls.
pub(crate) fn parse_chat_reply(reply: &Value) -> Result<ChatReply, ModelError> {
    let blocks = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::malformed("the reply has no content array"))?;
    let mut content = Vec::with_capacity(blocks.len());
    for (index, block) in blocks.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).ok_or_else(|| {
                    ModelError::malformed(format!("content[{index}] is a text block without text"))
                })?;
                content.push(ContentBlock::text(text));
            }
            Some("tool_use") => {
                let field = |name: &str| {
                    block
                        .get(name)
                        .and_then(Value::as_str)
                        .filter(|value| !value.is_empty())
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            ModelError::malformed(format!(
                                "content[{index}] is a tool_use block without {name}"
                            ))
                        })
                };
                content.push(ContentBlock::ToolUse {
                    id: field("id")?,
                    name: field("name")?,
                    // The agent decides what to do with input that is not
                    // an object; absent input is null, which it refuses.
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                });
            }
            _ => content.push(ContentBlock::Raw(block.clone())),
        }
    }
    let stop_reason = match reply.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn" | "stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("pause_turn") => StopReason::PauseTurn,
        Some("refusal") => StopReason::Refusal,
        Some("model_context_window_exceeded") => StopReason::ContextWindowExceeded,
        Some(other) => StopReason::Other(other.to_owned()),
        None if content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. })) =>
        {
            StopReason::ToolUse
        }
        None => StopReason::EndTurn,
    };
    Ok(ChatReply::new(
        content,
        stop_reason,
        Usage::from_reply(reply, "input_tokens", "output_tokens"),
    ))
}

/// The model's JSON from a successful reply: the `text` blocks of
/// `content`, joined, parsed. `stop_reason` `refusal` is a refusal and
/// `max_tokens` explains unparsable text.
pub(crate) fn parse_reply(reply: &Value) -> Result<Value, ModelError> {
    let stop_reason = reply.get("stop_reason").and_then(Value::as_str);
    let content = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::malformed("the reply has no content array"))?;
    let text: String = content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    if stop_reason == Some("refusal") {
        let explanation = Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        return Err(ModelError::Refused { explanation });
    }
    parse_model_json(&text, stop_reason == Some("max_tokens"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ToolSpec;
    use crate::config::Backend;

    fn config() -> ModelConfig {
        ModelConfig::new(
            Backend::Anthropic,
            "https://api.anthropic.com",
            Some("k".to_owned()),
            "claude-sonnet-4-6",
        )
    }

    fn weather_tool() -> ToolSpec {
        ToolSpec {
            name: "get_weather".to_owned(),
            description: "Get the current weather in a given location".to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            }),
        }
    }

    /// The documented tool-use exchange: a question, the model's
    /// `tool_use`, its `tool_result` (one of them failed).
    #[test]
    fn a_conversation_becomes_the_documented_request() {
        let chat = ChatRequest {
            system: "Be brief.".to_owned(),
            messages: vec![
                Message::user("What's the weather like in San Francisco?"),
                Message::assistant(vec![
                    ContentBlock::text("I'll check."),
                    ContentBlock::ToolUse {
                        id: "toolu_01A09q90qw90lq917835lq9".to_owned(),
                        name: "get_weather".to_owned(),
                        input: json!({"location": "San Francisco, CA"}),
                    },
                ]),
                Message {
                    role: Role::User,
                    content: vec![ContentBlock::ToolResult {
                        tool_use_id: "toolu_01A09q90qw90lq917835lq9".to_owned(),
                        content: "ConnectionError: the weather service is unavailable".to_owned(),
                        is_error: true,
                    }],
                },
            ],
            tools: vec![weather_tool()],
            max_tokens: 1024,
        };
        let request = chat_request(&config(), &chat);
        assert_eq!(request.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            request.body,
            json!({
                "model": "claude-sonnet-4-6",
                "max_tokens": 1024,
                "system": "Be brief.",
                "messages": [
                    {"role": "user", "content": [
                        {"type": "text", "text": "What's the weather like in San Francisco?"},
                    ]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "I'll check."},
                        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                         "name": "get_weather", "input": {"location": "San Francisco, CA"}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                         "content": "ConnectionError: the weather service is unavailable",
                         "is_error": true},
                    ]},
                ],
                "tools": [{
                    "name": "get_weather",
                    "description": "Get the current weather in a given location",
                    "input_schema": {
                        "type": "object",
                        "properties": {"location": {"type": "string"}},
                        "required": ["location"],
                    },
                }],
            })
        );
    }

    #[test]
    fn raw_blocks_go_back_as_they_came() {
        let thinking = json!({"type": "thinking", "thinking": "plan", "signature": "sig"});
        let reply = json!({"content": [thinking.clone()], "stop_reason": "pause_turn"});
        let parsed = parse_chat_reply(&reply).unwrap();
        assert_eq!(parsed.stop_reason, StopReason::PauseTurn);
        let chat = ChatRequest {
            system: String::new(),
            messages: vec![Message::user("go"), Message::assistant(parsed.content)],
            tools: Vec::new(),
            max_tokens: 10,
        };
        let body = chat_request(&config(), &chat).body;
        assert_eq!(body["messages"][1]["content"], json!([thinking]));
    }

    #[test]
    fn empty_system_and_tools_are_left_out() {
        let chat = ChatRequest {
            system: String::new(),
            messages: vec![Message::user("hi")],
            tools: Vec::new(),
            max_tokens: 10,
        };
        let body = chat_request(&config(), &chat).body;
        assert_eq!(body.get("system"), None);
        assert_eq!(body.get("tools"), None);
    }

    /// The documented reply of a tool-using turn.
    #[test]
    fn a_tool_use_reply_is_read() {
        let reply = json!({
            "id": "msg_01Aq9w938a90dw8q",
            "type": "message",
            "model": "claude-sonnet-4-6",
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "…", "signature": "s"},
                {"type": "text", "text": "I'll check the current weather in San Francisco for you."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
                 "input": {"location": "San Francisco, CA", "unit": "celsius"}},
            ],
            "usage": {"input_tokens": 472, "output_tokens": 91},
        });
        let parsed = parse_chat_reply(&reply).unwrap();
        assert_eq!(
            parsed,
            ChatReply::new(
                vec![
                    ContentBlock::Raw(
                        json!({"type": "thinking", "thinking": "…", "signature": "s"})
                    ),
                    ContentBlock::text("I'll check the current weather in San Francisco for you."),
                    ContentBlock::ToolUse {
                        id: "toolu_01A09q90qw90lq917835lq9".to_owned(),
                        name: "get_weather".to_owned(),
                        input: json!({"location": "San Francisco, CA", "unit": "celsius"}),
                    },
                ],
                StopReason::ToolUse,
                Usage {
                    input_tokens: 472,
                    output_tokens: 91
                },
            )
        );
    }

    #[test]
    fn every_documented_stop_reason_is_mapped() {
        let check = |wire: Value, expected: StopReason| {
            let reply = json!({"content": [], "stop_reason": wire});
            assert_eq!(
                parse_chat_reply(&reply).unwrap().stop_reason,
                expected,
                "{wire}"
            );
        };
        check(json!("end_turn"), StopReason::EndTurn);
        check(json!("stop_sequence"), StopReason::EndTurn);
        check(json!("tool_use"), StopReason::ToolUse);
        check(json!("max_tokens"), StopReason::MaxTokens);
        check(json!("pause_turn"), StopReason::PauseTurn);
        check(json!("refusal"), StopReason::Refusal);
        check(
            json!("model_context_window_exceeded"),
            StopReason::ContextWindowExceeded,
        );
        check(
            json!("something_new"),
            StopReason::Other("something_new".to_owned()),
        );
        check(Value::Null, StopReason::EndTurn);
    }

    #[test]
    fn input_that_is_not_an_object_is_passed_on_for_the_caller_to_refuse() {
        let reply = json!({
            "content": [
                {"type": "tool_use", "id": "t1", "name": "read", "input": "a.md"},
                {"type": "tool_use", "id": "t2", "name": "read"},
            ],
        });
        let parsed = parse_chat_reply(&reply).unwrap();
        assert_eq!(
            parsed.stop_reason,
            StopReason::ToolUse,
            "inferred from the blocks"
        );
        let inputs: Vec<&Value> = parsed
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse { input, .. } => Some(input),
                _ => None,
            })
            .collect();
        assert_eq!(inputs, [&json!("a.md"), &Value::Null]);
        assert_eq!(parsed.usage, Usage::default());
    }

    #[test]
    fn broken_blocks_are_malformed() {
        for reply in [
            json!({"stop_reason": "end_turn"}),
            json!({"content": [{"type": "text"}]}),
            json!({"content": [{"type": "tool_use", "name": "read", "input": {}}]}),
            json!({"content": [{"type": "tool_use", "id": "t", "input": {}}]}),
        ] {
            let err = parse_chat_reply(&reply).unwrap_err();
            assert!(
                matches!(err, ModelError::MalformedResponse { .. }),
                "{reply}: {err}"
            );
        }
    }

    #[test]
    fn text_blocks_are_joined_and_other_blocks_skipped() {
        let reply = json!({
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "{\"a\":"},
                {"type": "text", "text": " 1}"},
            ],
            "stop_reason": "end_turn",
        });
        assert_eq!(parse_reply(&reply).unwrap(), json!({"a": 1}));
    }

    #[test]
    fn missing_content_is_malformed() {
        let err = parse_reply(&json!({"stop_reason": "end_turn"})).unwrap_err();
        assert!(matches!(err, ModelError::MalformedResponse { .. }), "{err}");
    }
}
