//! The Anthropic Messages API wire format: `POST {base}/v1/messages` with
//! structured output through `output_config.format`.

use serde_json::{Value, json};

use crate::config::ModelConfig;
use crate::error::ModelError;
use crate::query::{SideQuery, WireRequest};
use crate::reply::parse_model_json;

/// The API version this client speaks.
const API_VERSION: &str = "2023-06-01";

/// The request for a side query.
pub(crate) fn request(config: &ModelConfig, query: &SideQuery) -> WireRequest {
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
        body: json!({
            "model": config.model,
            "max_tokens": query.max_tokens,
            "system": query.system,
            "messages": [{"role": "user", "content": query.user}],
            "output_config": {
                "format": {"type": "json_schema", "schema": query.schema},
            },
        }),
    }
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
