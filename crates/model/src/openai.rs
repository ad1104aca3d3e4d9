//! The chat-completions wire format of OpenAI-compatible servers, hosted
//! or local: `POST {base}/chat/completions` with `response_format`
//! `json_schema` for side queries, and `tools`, assistant `tool_calls` and
//! `tool` messages for conversations.
//!
//! Shapes: <https://developers.openai.com/api/docs/guides/function-calling>.

use serde_json::{Map, Value, json};

use crate::chat::{
    ChatReply, ChatRequest, ContentBlock, Message, Role, StopReason, Usage, invalid_tool_input,
    invalid_tool_input_raw, tool_input_error,
};
use crate::config::ModelConfig;
use crate::error::ModelError;
use crate::query::{SideQuery, WireRequest};
use crate::reply::parse_model_json;

/// What a failed tool result's content starts with: chat completions have
/// no error flag, so the text says it.
pub(crate) const TOOL_ERROR_PREFIX: &str = "Error: ";

/// The endpoint and headers every request has.
fn wire(config: &ModelConfig, body: Value) -> WireRequest {
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = &config.api_key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    WireRequest {
        url: format!("{}/chat/completions", config.base()),
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
            "messages": [
                {"role": "system", "content": query.system},
                {"role": "user", "content": query.user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": query.schema_name,
                    "schema": query.schema,
                    "strict": true,
                },
            },
        }),
    )
}

/// The request for one call of a conversation. The system prompt is the
/// first message; a user message's tool results become `tool` messages,
/// in order, followed by a `user` message for its text if it has any; an
/// assistant message's tool calls become `tool_calls` with the input as a
/// JSON string.
pub(crate) fn chat_request(config: &ModelConfig, chat: &ChatRequest) -> WireRequest {
    let mut messages = Vec::with_capacity(chat.messages.len() + 1);
    if !chat.system.is_empty() {
        messages.push(json!({"role": "system", "content": chat.system}));
    }
    for message in &chat.messages {
        match message.role {
            Role::User => user_messages(message, &mut messages),
            Role::Assistant => messages.push(assistant_message(message)),
        }
    }
    let mut body = Map::new();
    body.insert("model".to_owned(), json!(config.model));
    body.insert("max_tokens".to_owned(), json!(chat.max_tokens));
    body.insert("messages".to_owned(), Value::Array(messages));
    if !chat.tools.is_empty() {
        let tools: Vec<Value> = chat
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.input_schema,
                    },
                })
            })
            .collect();
        body.insert("tools".to_owned(), Value::Array(tools));
    }
    wire(config, Value::Object(body))
}

/// The wire messages of one user message: its tool results first, since
/// they must follow the assistant message that asked for them, then its
/// text.
fn user_messages(message: &Message, out: &mut Vec<Value>) {
    let mut text = String::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text: part } => text.push_str(part),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                let content = if *is_error {
                    format!("{TOOL_ERROR_PREFIX}{content}")
                } else {
                    content.clone()
                };
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": content}));
            }
            // A user message has no tool calls, and this format has no
            // other blocks: there is nothing to send.
            ContentBlock::ToolUse { .. } | ContentBlock::Raw(_) => {}
        }
    }
    if !text.is_empty() {
        out.push(json!({"role": "user", "content": text}));
    }
}

/// The wire message of one assistant message: its text as `content`
/// (`null` when it only calls tools) and its calls as `tool_calls`, the
/// arguments as the JSON string the server sent, unreadable ones included.
fn assistant_message(message: &Message) -> Value {
    let text = message.text();
    let calls: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolUse { id, name, input } => {
                let arguments = invalid_tool_input_raw(input)
                    .filter(|_| tool_input_error(input).is_some())
                    .map_or_else(|| input.to_string(), str::to_owned);
                Some(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }))
            }
            _ => None,
        })
        .collect();
    let mut wire = Map::new();
    wire.insert("role".to_owned(), json!("assistant"));
    let content = if text.is_empty() && !calls.is_empty() {
        Value::Null
    } else {
        Value::String(text)
    };
    wire.insert("content".to_owned(), content);
    if !calls.is_empty() {
        wire.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    Value::Object(wire)
}

/// A conversation reply from `choices[0]`: the text (a `refusal` becomes
/// the text of a [`StopReason::Refusal`]), the tool calls with their
/// arguments parsed, `finish_reason` mapped, `usage` counted.
///
/// Arguments that are not JSON become an [invalid input
/// marker](crate::tool_input_error); arguments sent as an object, as some
/// compatible servers do, are taken as they are; a call without an id gets
/// `call_<index>` so that its result can name it.
pub(crate) fn parse_chat_reply(reply: &Value) -> Result<ChatReply, ModelError> {
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ModelError::malformed("the reply has no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| ModelError::malformed("the first choice has no message"))?;
    let mut content = Vec::new();
    let refusal = message
        .get("refusal")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let text = match (refusal, message.get("content")) {
        (Some(refusal), _) => refusal.to_owned(),
        (None, Some(Value::String(text))) => text.clone(),
        (None, Some(Value::Array(parts))) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    };
    if !text.is_empty() {
        content.push(ContentBlock::text(text));
    }
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(calls)) => calls.as_slice(),
        Some(_) => return Err(ModelError::malformed("tool_calls is not an array")),
    };
    for (index, call) in calls.iter().enumerate() {
        content.push(tool_call(index, call)?);
    }
    let has_calls = !calls.is_empty();
    let stop_reason = if refusal.is_some() {
        StopReason::Refusal
    } else {
        // Some local servers say `stop` (or nothing) when the message
        // calls tools; the calls still wait for their results.
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("stop") | None if has_calls => StopReason::ToolUse,
            Some("stop") | None => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
        }
    };
    Ok(ChatReply::new(
        content,
        stop_reason,
        Usage::from_reply(reply, "prompt_tokens", "completion_tokens"),
    ))
}

/// One entry of `tool_calls` as a [`ContentBlock::ToolUse`].
fn tool_call(index: usize, call: &Value) -> Result<ContentBlock, ModelError> {
    let function = call
        .get("function")
        .ok_or_else(|| ModelError::malformed(format!("tool_calls[{index}] has no function")))?;
    let name = function
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            ModelError::malformed(format!("tool_calls[{index}] has no function name"))
        })?;
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(|| format!("call_{index}"), str::to_owned);
    let input = match function.get("arguments") {
        Some(Value::String(raw)) if raw.trim().is_empty() => json!({}),
        Some(Value::String(raw)) => serde_json::from_str(raw).unwrap_or_else(|e| {
            invalid_tool_input(&format!("the arguments are not valid json ({e})"), raw)
        }),
        None | Some(Value::Null) => json!({}),
        Some(other) => other.clone(),
    };
    Ok(ContentBlock::ToolUse {
        id,
        name: name.to_owned(),
        input,
    })
}

/// The model's JSON from a successful reply: `choices[0].message.content`
/// parsed, after a `refusal` check. Content given as a list of text parts,
/// as a few servers do, is joined.
pub(crate) fn parse_reply(reply: &Value) -> Result<Value, ModelError> {
    let choice = reply
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| ModelError::malformed("the reply has no choices"))?;
    let message = choice
        .get("message")
        .ok_or_else(|| ModelError::malformed("the first choice has no message"))?;
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str) {
        return Err(ModelError::Refused {
            explanation: Some(refusal.trim().to_owned()).filter(|r| !r.is_empty()),
        });
    }
    let text = match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => return Err(ModelError::malformed("the message has no text content")),
    };
    let truncated = choice.get("finish_reason").and_then(Value::as_str) == Some("length");
    parse_model_json(&text, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ToolSpec;
    use crate::config::Backend;

    fn config() -> ModelConfig {
        ModelConfig::new(
            Backend::OpenAiCompatible,
            "http://127.0.0.1:8080/v1",
            None,
            "local-model",
        )
    }

    fn tool_use(id: &str, name: &str, input: Value) -> ContentBlock {
        ContentBlock::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input,
        }
    }

    fn tool_result(id: &str, content: &str, is_error: bool) -> ContentBlock {
        ContentBlock::ToolResult {
            tool_use_id: id.to_owned(),
            content: content.to_owned(),
            is_error,
        }
    }

    /// The documented function-calling exchange: `tools` of type
    /// `function`, the assistant's `tool_calls` with string arguments, one
    /// `tool` message per result.
    #[test]
    fn a_conversation_becomes_the_documented_request() {
        let chat = ChatRequest {
            system: "Be brief.".to_owned(),
            messages: vec![
                Message::user("What's the weather like in Paris and Bogotá?"),
                Message::assistant(vec![
                    tool_use(
                        "call_12345xyz",
                        "get_weather",
                        json!({"location": "Paris, France"}),
                    ),
                    tool_use(
                        "call_67890abc",
                        "get_weather",
                        json!({"location": "Bogotá"}),
                    ),
                ]),
                Message {
                    role: Role::User,
                    content: vec![
                        tool_result("call_12345xyz", "15°C", false),
                        tool_result("call_67890abc", "service down", true),
                        ContentBlock::text("Answer in one line."),
                    ],
                },
            ],
            tools: vec![ToolSpec {
                name: "get_weather".to_owned(),
                description: "Get current temperature for a given location.".to_owned(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"location": {"type": "string"}},
                    "required": ["location"],
                    "additionalProperties": false,
                }),
            }],
            max_tokens: 512,
        };
        let request = chat_request(&config(), &chat);
        assert_eq!(request.url, "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(
            request.body,
            json!({
                "model": "local-model",
                "max_tokens": 512,
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "What's the weather like in Paris and Bogotá?"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_12345xyz", "type": "function", "function":
                            {"name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}"}},
                        {"id": "call_67890abc", "type": "function", "function":
                            {"name": "get_weather", "arguments": "{\"location\":\"Bogotá\"}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "call_12345xyz", "content": "15°C"},
                    {"role": "tool", "tool_call_id": "call_67890abc", "content": "Error: service down"},
                    {"role": "user", "content": "Answer in one line."},
                ],
                "tools": [{
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Get current temperature for a given location.",
                        "parameters": {
                            "type": "object",
                            "properties": {"location": {"type": "string"}},
                            "required": ["location"],
                            "additionalProperties": false,
                        },
                    },
                }],
            })
        );
    }

    /// The documented reply of a function-calling turn.
    #[test]
    fn a_tool_calls_reply_is_read() {
        let reply = json!({
            "id": "chatcmpl-abc123",
            "object": "chat.completion",
            "created": 1_699_896_916,
            "model": "gpt-4o-mini",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [{
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": "{\n\"location\": \"Boston, MA\"\n}"},
                    }],
                    "refusal": null,
                },
                "logprobs": null,
                "finish_reason": "tool_calls",
            }],
            "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
        });
        assert_eq!(
            parse_chat_reply(&reply).unwrap(),
            ChatReply::new(
                vec![tool_use(
                    "call_abc123",
                    "get_weather",
                    json!({"location": "Boston, MA"})
                )],
                StopReason::ToolUse,
                Usage {
                    input_tokens: 82,
                    output_tokens: 17
                },
            )
        );
    }

    fn reply_with_calls(calls: &Value, finish_reason: &str) -> Value {
        json!({"choices": [{"message": {"role": "assistant", "content": "", "tool_calls": calls},
                            "finish_reason": finish_reason}]})
    }

    #[test]
    fn arguments_that_are_not_json_become_the_marker_and_go_back_as_sent() {
        let reply = reply_with_calls(
            &json!([{"id": "call_1", "type": "function",
                    "function": {"name": "read", "arguments": "{path: a.md"}}]),
            "tool_calls",
        );
        let parsed = parse_chat_reply(&reply).unwrap();
        let [ContentBlock::ToolUse { input, .. }] = parsed.content.as_slice() else {
            panic!("{parsed:?}");
        };
        let reason = tool_input_error(input).unwrap();
        assert!(reason.contains("not valid json"), "{reason}");

        let again = assistant_message(&Message::assistant(parsed.content.clone()));
        assert_eq!(
            again["tool_calls"][0]["function"]["arguments"],
            "{path: a.md"
        );
    }

    #[test]
    fn lenient_call_shapes_of_compatible_servers() {
        let reply = reply_with_calls(
            &json!([
                {"function": {"name": "list", "arguments": {"dir": "."}}},
                {"id": "", "function": {"name": "now", "arguments": ""}},
                {"id": "c3", "function": {"name": "n", "arguments": "[1]"}},
            ]),
            "stop",
        );
        let parsed = parse_chat_reply(&reply).unwrap();
        assert_eq!(
            parsed.content,
            [
                tool_use("call_0", "list", json!({"dir": "."})),
                tool_use("call_1", "now", json!({})),
                tool_use("c3", "n", json!([1])),
            ]
        );
        assert_eq!(
            parsed.stop_reason,
            StopReason::ToolUse,
            "tool calls under finish_reason stop still ask for results"
        );
    }

    #[test]
    fn finish_reasons_are_mapped() {
        let check = |finish: Value, expected: StopReason| {
            let reply =
                json!({"choices": [{"message": {"content": "x"}, "finish_reason": finish}]});
            let parsed = parse_chat_reply(&reply).unwrap();
            assert_eq!(parsed.stop_reason, expected, "{finish}");
            assert_eq!(parsed.content, [ContentBlock::text("x")]);
        };
        check(json!("stop"), StopReason::EndTurn);
        check(json!("length"), StopReason::MaxTokens);
        check(json!("content_filter"), StopReason::Refusal);
        check(json!("tool_calls"), StopReason::ToolUse);
        check(json!("weird"), StopReason::Other("weird".to_owned()));
        check(Value::Null, StopReason::EndTurn);
    }

    #[test]
    fn a_refusal_is_a_stop_reason_with_its_text() {
        let reply = json!({"choices": [{"message": {"content": null, "refusal": "I can't help"},
                                        "finish_reason": "stop"}]});
        let parsed = parse_chat_reply(&reply).unwrap();
        assert_eq!(parsed.stop_reason, StopReason::Refusal);
        assert_eq!(parsed.content, [ContentBlock::text("I can't help")]);
    }

    #[test]
    fn broken_calls_are_malformed() {
        for calls in [
            json!({"id": "x"}),
            json!([{"id": "x"}]),
            json!([{"id": "x", "function": {"arguments": "{}"}}]),
        ] {
            let reply = reply_with_calls(&calls, "tool_calls");
            let err = parse_chat_reply(&reply).unwrap_err();
            assert!(
                matches!(err, ModelError::MalformedResponse { .. }),
                "{calls}: {err}"
            );
        }
    }

    #[test]
    fn content_parts_are_joined() {
        let reply = json!({"choices": [{"message": {"role": "assistant", "content": [
            {"type": "text", "text": "[1,"}, {"type": "text", "text": "2]"}
        ]}}]});
        assert_eq!(parse_reply(&reply).unwrap(), json!([1, 2]));
    }

    #[test]
    fn refusal_field_is_a_refusal() {
        let reply = json!({"choices": [{"message": {"content": null, "refusal": "I can't help"}}]});
        let err = parse_reply(&reply).unwrap_err();
        assert!(
            matches!(&err, ModelError::Refused { explanation: Some(e) } if e == "I can't help"),
            "{err}"
        );
    }

    #[test]
    fn a_null_refusal_is_no_refusal() {
        let reply = json!({"choices": [{"message": {"content": "{}", "refusal": null}}]});
        assert_eq!(parse_reply(&reply).unwrap(), json!({}));
    }

    #[test]
    fn length_cut_explains_bad_json() {
        let reply =
            json!({"choices": [{"message": {"content": "{\"a\": "}, "finish_reason": "length"}]});
        let err = parse_reply(&reply).unwrap_err();
        assert!(err.to_string().contains("max_tokens"), "{err}");
    }

    #[test]
    fn no_choices_is_malformed() {
        let err = parse_reply(&json!({"choices": []})).unwrap_err();
        assert!(matches!(err, ModelError::MalformedResponse { .. }), "{err}");
    }
}
