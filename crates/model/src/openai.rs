//! The chat-completions wire format of OpenAI-compatible servers, hosted
//! or local: `POST {base}/chat/completions` with
//! `response_format` `json_schema`.

use serde_json::{Value, json};

use crate::config::ModelConfig;
use crate::error::ModelError;
use crate::query::{SideQuery, WireRequest};
use crate::reply::parse_model_json;

/// The request for a side query.
pub(crate) fn request(config: &ModelConfig, query: &SideQuery) -> WireRequest {
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = &config.api_key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    WireRequest {
        url: format!("{}/chat/completions", config.base()),
        headers,
        body: json!({
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
    }
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
