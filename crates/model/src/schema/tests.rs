//! Unit tests of the schema checker: each keyword alone, then the shape of
//! memdir's relevance selector schema.

use serde_json::{Value, json};

use super::*;

/// Checks `value` against `schema`: `None` expects success, `Some((path,
/// words))` expects a violation at `path` whose reason contains `words`.
fn check(schema: &Value, value: &Value, expected: Option<(&str, &str)>) {
    let result = validate(value, schema);
    match (result, expected) {
        (Ok(()), None) => {}
        (Err(v), Some((path, words))) => {
            assert_eq!(v.path, path, "{value} against {schema}: {}", v.reason);
            assert!(
                v.reason.contains(words),
                "{value} against {schema}: reason {:?} lacks {words:?}",
                v.reason
            );
        }
        (result, expected) => {
            panic!("{value} against {schema}: got {result:?}, expected {expected:?}")
        }
    }
}

#[test]
fn types() {
    let cases = [
        ("object", json!({}), true),
        ("object", json!([]), false),
        ("array", json!([1]), true),
        ("array", json!({}), false),
        ("string", json!("x"), true),
        ("string", json!(1), false),
        ("number", json!(1.5), true),
        ("number", json!(2), true),
        ("number", json!("2"), false),
        ("integer", json!(2), true),
        ("integer", json!(-2), true),
        ("integer", json!(2.0), true),
        ("integer", json!(2.5), false),
        ("boolean", json!(true), true),
        ("boolean", json!(0), false),
        ("null", json!(null), true),
        ("null", json!(false), false),
    ];
    for (ty, value, ok) in cases {
        let expected = (!ok).then_some(("$", "expected"));
        check(&json!({"type": ty}), &value, expected);
    }
}

#[test]
fn type_lists_and_messages() {
    let schema = json!({"type": ["string", "null"]});
    check(&schema, &json!("a"), None);
    check(&schema, &json!(null), None);
    check(
        &schema,
        &json!(3),
        Some(("$", "expected string or null, found integer")),
    );
    check(
        &json!({"type": "string"}),
        &json!(1.5),
        Some(("$", "found number")),
    );
}

#[test]
fn required_and_additional_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": false,
    });
    check(&schema, &json!({"a": "x"}), None);
    check(&schema, &json!({"a": "x", "b": 1}), None);
    check(
        &schema,
        &json!({"b": 1}),
        Some(("$", "missing required property \"a\"")),
    );
    check(
        &schema,
        &json!({"a": "x", "c": 1}),
        Some(("$", "unexpected property \"c\"")),
    );
    check(&schema, &json!({"a": 1}), Some(("$.a", "expected string")));
}

#[test]
fn additional_properties_default_and_schema() {
    let open = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    check(&open, &json!({"a": "x", "z": [1, 2]}), None);
    let typed = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    check(&typed, &json!({"n": 1}), None);
    check(
        &typed,
        &json!({"n": "1"}),
        Some(("$.n", "expected integer")),
    );
}

#[test]
fn items_and_counts() {
    let schema =
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2});
    check(&schema, &json!(["a"]), None);
    check(&schema, &json!(["a", "b"]), None);
    check(
        &schema,
        &json!([]),
        Some(("$", "fewer than the minimum of 1")),
    );
    check(
        &schema,
        &json!(["a", "b", "c"]),
        Some(("$", "more than the maximum of 2")),
    );
    check(&schema, &json!(["a", 2]), Some(("$[1]", "expected string")));
}

#[test]
fn enums() {
    let schema = json!({"enum": ["low", "high", null]});
    check(&schema, &json!("low"), None);
    check(&schema, &json!(null), None);
    check(
        &schema,
        &json!("medium"),
        Some(("$", "\"medium\" is not one of")),
    );
}

#[test]
fn nested_paths() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"kind": {"enum": ["user", "project"]}},
                    "required": ["kind"],
                },
            },
            "odd key": {"type": "boolean"},
        },
    });
    check(
        &schema,
        &json!({"items": [{"kind": "user"}, {"kind": "team"}]}),
        Some(("$.items[1].kind", "is not one of")),
    );
    check(
        &schema,
        &json!({"items": [{}]}),
        Some(("$.items[0]", "missing required")),
    );
    check(
        &schema,
        &json!({"odd key": 1}),
        Some(("$[\"odd key\"]", "expected boolean")),
    );
}

#[test]
fn boolean_and_empty_schemas() {
    check(&json!(true), &json!({"any": 1}), None);
    check(&json!({}), &json!([1, "a"]), None);
    check(&json!(false), &json!(1), Some(("$", "no value")));
    let schema = json!({"type": "object", "properties": {"x": false}});
    check(&schema, &json!({"x": 1}), Some(("$.x", "no value")));
}

#[test]
fn unknown_keywords_are_ignored() {
    let schema = json!({"type": "string", "minLength": 5, "format": "date", "type_hint": 1});
    check(&schema, &json!("a"), None);
    check(&json!({"type": "mystery"}), &json!(1), None);
}

#[test]
fn relevance_selector_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "selected_memories": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        },
        "required": ["selected_memories"],
        "additionalProperties": false,
    });
    check(
        &schema,
        &json!({"selected_memories": ["a.md", "b.md"]}),
        None,
    );
    check(&schema, &json!({"selected_memories": []}), None);
    check(
        &schema,
        &json!({"selected": []}),
        Some(("$", "missing required")),
    );
    check(
        &schema,
        &json!({"selected_memories": ["1", "2", "3", "4", "5", "6"]}),
        Some(("$.selected_memories", "more than the maximum of 5")),
    );
    check(
        &schema,
        &json!({"selected_memories": [{"name": "a.md"}]}),
        Some(("$.selected_memories[0]", "expected string, found object")),
    );
}
