//! Reading what a model server sends back, common to both backends: the
//! model's JSON text (fenced or not) and error bodies.

use serde_json::Value;

use crate::error::ModelError;

/// How much of a server's text an error message quotes.
const SNIPPET_CHARS: usize = 200;

/// Parses the model's text as JSON. Servers that ignore the requested
/// response format often wrap the JSON in a Markdown fence, so one
/// surrounding ```` ``` ```` or ```` ```json ```` fence is removed first.
/// `truncated` says the server stopped at the token limit, which is then
/// the likely reason for unparsable text.
pub(crate) fn parse_model_json(text: &str, truncated: bool) -> Result<Value, ModelError> {
    let inner = strip_fence(text);
    if inner.trim().is_empty() {
        return Err(ModelError::malformed(if truncated {
            "the reply was cut off at max_tokens before any text".to_owned()
        } else {
            "the model's text is empty".to_owned()
        }));
    }
    serde_json::from_str(inner).map_err(|e| {
        let reason = if truncated {
            format!("the reply was cut off at max_tokens and its text is not complete json ({e})")
        } else {
            format!("the model's text is not json ({e}): {}", snippet(text))
        };
        ModelError::malformed(reason)
    })
}

/// The text inside one surrounding Markdown code fence, or the whole text
/// when it is not fenced.
pub(crate) fn strip_fence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(after_open) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let Some(body) = after_open.strip_suffix("```") else {
        return trimmed;
    };
    // The opening fence's line may carry a language tag (`json`); the
    // content starts on the next line.
    match body.split_once('\n') {
        Some((tag, rest)) if !tag.contains(['{', '[', '"']) => rest.trim(),
        _ => body.trim(),
    }
}

/// The error type and message of an error body, in the shapes servers use:
/// Anthropic's `{"type":"error","error":{"type","message"}}`, the
/// OpenAI-compatible `{"error":{"type","message"}}`, a flat
/// `{"type","message"}` (vLLM), a bare string `error`, a `detail` string;
/// else the start of the body.
pub(crate) fn error_details(body: &str) -> (Option<String>, String) {
    let text_of = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return (None, fallback_message(body));
    };
    let inner = value.get("error").filter(|e| e.is_object());
    let source = inner.unwrap_or(&value);
    let error_type = text_of(source.get("type"))
        .filter(|t| t != "error" || inner.is_some())
        .or_else(|| text_of(source.get("code")));
    let message = text_of(source.get("message"))
        .or_else(|| text_of(value.get("error")))
        .or_else(|| text_of(value.get("detail")))
        .unwrap_or_else(|| fallback_message(body));
    (error_type, message)
}

fn fallback_message(body: &str) -> String {
    if body.trim().is_empty() {
        "(empty body)".to_owned()
    } else {
        snippet(body)
    }
}

/// The start of a text, on one line, for an error message.
pub(crate) fn snippet(text: &str) -> String {
    let one_line: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(SNIPPET_CHARS + 1)
        .collect();
    if one_line.chars().count() > SNIPPET_CHARS {
        let cut: String = one_line.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fences_are_stripped() {
        let check = |text: &str, expected: &str| assert_eq!(strip_fence(text), expected, "{text}");
        check("{\"a\":1}", "{\"a\":1}");
        check("  {\"a\":1}\n", "{\"a\":1}");
        check("```json\n{\"a\":1}\n```", "{\"a\":1}");
        check("```JSON\n{\"a\":1}\n```\n", "{\"a\":1}");
        check("```\n[1, 2]\n```", "[1, 2]");
        check("```{\"a\":1}```", "{\"a\":1}");
        check("```json\n{\"a\":1}", "```json\n{\"a\":1}");
    }

    #[test]
    fn model_json_parses_and_explains_failures() {
        assert_eq!(
            parse_model_json("```json\n{\"a\": [1]}\n```", false).unwrap(),
            json!({"a": [1]})
        );
        let err = parse_model_json("{\"a\": [1", true).unwrap_err();
        assert!(err.to_string().contains("cut off at max_tokens"), "{err}");
        let err = parse_model_json("Sure! Here you go", false).unwrap_err();
        assert!(err.to_string().contains("Sure! Here you go"), "{err}");
        let err = parse_model_json("  ", false).unwrap_err();
        assert!(matches!(err, ModelError::MalformedResponse { .. }));
    }

    #[test]
    fn error_bodies_in_each_shape() {
        let check = |body: &str, ty: Option<&str>, message: &str| {
            let (t, m) = error_details(body);
            assert_eq!((t.as_deref(), m.as_str()), (ty, message), "{body}");
        };
        check(
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"},"request_id":"req_1"}"#,
            Some("invalid_request_error"),
            "bad",
        );
        check(
            r#"{"error":{"message":"no key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            Some("invalid_request_error"),
            "no key",
        );
        check(
            r#"{"error":{"message":"nope","code":"invalid_api_key"}}"#,
            Some("invalid_api_key"),
            "nope",
        );
        check(
            r#"{"object":"error","message":"m","type":"BadRequestError"}"#,
            Some("BadRequestError"),
            "m",
        );
        check(r#"{"error":"model not found"}"#, None, "model not found");
        check(r#"{"detail":"Not Found"}"#, None, "Not Found");
        check("<html>bad gateway</html>", None, "<html>bad gateway</html>");
        check("", None, "(empty body)");
    }

    #[test]
    fn snippets_are_short_and_on_one_line() {
        assert_eq!(snippet("a\nb"), "a b");
        let long = "x".repeat(500);
        assert_eq!(snippet(&long).chars().count(), SNIPPET_CHARS + 1);
    }
}
