//! The check a tool's input passes before anything else sees it: readable,
//! an object, with every field the tool's schema requires.

use memdir_model::tool_input_error;
use serde_json::Value;

/// Why a tool call's input was refused; its message is what the model
/// reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadInput {
    /// The server could not deliver the arguments as JSON.
    #[error("the tool input could not be read: {reason}")]
    Unreadable {
        /// The backend's finding.
        reason: String,
    },
    /// The input is JSON but not an object.
    #[error("the tool input must be a json object, not {found}")]
    NotAnObject {
        /// What it is instead.
        found: &'static str,
    },
    /// A field the schema requires is absent.
    #[error("the tool input lacks the required field `{field}`")]
    MissingField {
        /// The field's name.
        field: String,
    },
}

/// Checks `input` against the `required` list of `schema`; other schema
/// rules are the tool's to enforce.
pub(crate) fn check(input: &Value, schema: &Value) -> Result<(), BadInput> {
    if let Some(reason) = tool_input_error(input) {
        return Err(BadInput::Unreadable {
            reason: reason.to_owned(),
        });
    }
    let Some(object) = input.as_object() else {
        return Err(BadInput::NotAnObject { found: kind(input) });
    };
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for field in required.iter().filter_map(Value::as_str) {
        if !object.contains_key(field) {
            return Err(BadInput::MissingField {
                field: field.to_owned(),
            });
        }
    }
    Ok(())
}

/// The JSON kind of a value, for a message.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn objects_with_the_required_fields_pass() {
        let schema = json!({"type": "object", "required": ["path", "text"]});
        assert_eq!(
            check(&json!({"path": "a", "text": "", "x": 1}), &schema),
            Ok(())
        );
        assert_eq!(check(&json!({}), &json!({"type": "object"})), Ok(()));
        assert_eq!(
            check(&json!({"path": "a"}), &schema),
            Err(BadInput::MissingField {
                field: "text".to_owned()
            })
        );
    }

    #[test]
    fn everything_else_is_refused_with_a_reason() {
        let schema = json!({"type": "object"});
        let reason = |input: Value| check(&input, &schema).unwrap_err().to_string();
        assert_eq!(
            reason(json!("a.md")),
            "the tool input must be a json object, not a string"
        );
        assert_eq!(
            reason(json!([1])),
            "the tool input must be a json object, not an array"
        );
        assert_eq!(
            reason(Value::Null),
            "the tool input must be a json object, not null"
        );
        let marker =
            json!({memdir_model::TOOL_INPUT_ERROR_KEY: {"reason": "bad json", "raw": "{"}});
        assert_eq!(reason(marker), "the tool input could not be read: bad json");
    }
}
