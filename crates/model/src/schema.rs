//! A small JSON Schema checker for the keywords memdir's own schemas use:
//! `type`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `minItems` and `maxItems`. Other keywords are ignored, so a
//! schema that uses them is checked less strictly, never wrongly rejected.

use serde_json::{Map, Value};

/// Where a value breaks its schema, and which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// `$`, then `.field` and `[index]` steps.
    pub(crate) path: String,
    /// The rule broken, in words.
    pub(crate) reason: String,
}

/// Checks `value` against `schema`; the first violation found, depth first
/// in document order, is returned.
pub(crate) fn validate(value: &Value, schema: &Value) -> Result<(), Violation> {
    let mut path = String::from("$");
    check(value, schema, &mut path)
}

fn check(value: &Value, schema: &Value, path: &mut String) -> Result<(), Violation> {
    let schema = match schema {
        Value::Object(schema) => schema,
        Value::Bool(false) => return Err(violation(path, "no value is allowed here")),
        // `true`, and anything that is not a schema, accepts every value.
        _ => return Ok(()),
    };

    if let Some(expected) = schema.get("type") {
        check_type(value, expected, path)?;
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        return Err(violation(
            path,
            format!(
                "{} is not one of {}",
                short(value),
                Value::Array(allowed.clone())
            ),
        ));
    }
    match value {
        Value::Object(object) => check_object(object, schema, path),
        Value::Array(items) => check_array(items, schema, path),
        _ => Ok(()),
    }
}

fn check_type(value: &Value, expected: &Value, path: &str) -> Result<(), Violation> {
    let names: Vec<&str> = match expected {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    if names.iter().any(|name| has_type(value, name)) {
        Ok(())
    } else {
        Err(violation(
            path,
            format!(
                "expected {}, found {}",
                names.join(" or "),
                type_name(value)
            ),
        ))
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        // An unknown type name is the schema's mistake, not the reply's.
        _ => true,
    }
}

fn check_object(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    path: &mut String,
) -> Result<(), Violation> {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for name in required.iter().filter_map(Value::as_str) {
            if !object.contains_key(name) {
                return Err(violation(
                    path,
                    format!("missing required property {name:?}"),
                ));
            }
        }
    }
    for (name, item) in object {
        let sub_schema = match properties.and_then(|p| p.get(name)) {
            Some(sub_schema) => sub_schema,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    return Err(violation(path, format!("unexpected property {name:?}")));
                }
                Some(extra @ Value::Object(_)) => extra,
                _ => continue,
            },
        };
        let len = path.len();
        push_property(path, name);
        check(item, sub_schema, path)?;
        path.truncate(len);
    }
    Ok(())
}

fn check_array(
    items: &[Value],
    schema: &Map<String, Value>,
    path: &mut String,
) -> Result<(), Violation> {
    let count = |key: &str| schema.get(key).and_then(Value::as_u64);
    let len = items.len() as u64;
    if let Some(min) = count("minItems")
        && len < min
    {
        return Err(violation(
            path,
            format!("{len} items, fewer than the minimum of {min}"),
        ));
    }
    if let Some(max) = count("maxItems")
        && len > max
    {
        return Err(violation(
            path,
            format!("{len} items, more than the maximum of {max}"),
        ));
    }
    if let Some(item_schema) = schema.get("items") {
        for (index, item) in items.iter().enumerate() {
            let len = path.len();
            path.push('[');
            path.push_str(&index.to_string());
            path.push(']');
            check(item, item_schema, path)?;
            path.truncate(len);
        }
    }
    Ok(())
}

/// Appends `.name`, or `["name"]` when the name is not a plain identifier.
fn push_property(path: &mut String, name: &str) {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        path.push('.');
        path.push_str(name);
    } else {
        path.push('[');
        path.push_str(&Value::String(name.to_owned()).to_string());
        path.push(']');
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value for an error message, cut short.
fn short(value: &Value) -> String {
    crate::reply::snippet(&value.to_string())
}

fn violation(path: &str, reason: impl Into<String>) -> Violation {
    Violation {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests;
