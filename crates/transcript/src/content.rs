//! Message content: a string or a list of blocks, read into [`Block`]s,
//! every text capped at [`MAX_TEXT_BYTES`].

use serde_json::{Map, Value};

use crate::{Block, MAX_TEXT_BYTES, SkipReason, Skipped, ToolResult, ToolUse, Usage};

/// The notes one line's reading produced, with the line they belong to.
pub(crate) struct Notes<'a> {
    pub(crate) line: usize,
    pub(crate) skipped: &'a mut Vec<Skipped>,
}

impl Notes<'_> {
    pub(crate) fn push(&mut self, reason: SkipReason) {
        self.skipped.push(Skipped {
            line: self.line,
            reason,
        });
    }

    /// `text` cut to [`MAX_TEXT_BYTES`] at a character boundary, noting a
    /// cut.
    pub(crate) fn cap(&mut self, mut text: String) -> String {
        if text.len() > MAX_TEXT_BYTES {
            let original = text.len();
            let mut end = MAX_TEXT_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            self.push(SkipReason::TextCapped {
                kept: end,
                original,
            });
        }
        text
    }

    /// Caps every string inside `value` (object keys are left as they are:
    /// they are names, not payloads).
    fn cap_value(&mut self, value: &mut Value) {
        match value {
            Value::String(s) if s.len() > MAX_TEXT_BYTES => {
                *s = self.cap(std::mem::take(s));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.cap_value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.cap_value(v)),
            _ => {}
        }
    }
}

/// A message's content as blocks: a string is one text block; a list is
/// read block by block, a malformed block left out with a note. `None`
/// when the content is neither.
pub(crate) fn read_content(content: &Value, notes: &mut Notes<'_>) -> Option<Vec<Block>> {
    match content {
        Value::String(text) => Some(vec![Block::Text(notes.cap(text.clone()))]),
        Value::Array(items) => Some(
            items
                .iter()
                .enumerate()
                .filter_map(|(index, item)| {
                    let block = read_block(item, notes);
                    if block.is_none() {
                        notes.push(SkipReason::BadBlock { index });
                    }
                    block
                })
                .collect(),
        ),
        _ => None,
    }
}

fn read_block(item: &Value, notes: &mut Notes<'_>) -> Option<Block> {
    let kind = item.get("type")?.as_str()?;
    let str_field = |name: &str| item.get(name).and_then(Value::as_str);
    match kind {
        "text" => Some(Block::Text(notes.cap(str_field("text")?.to_owned()))),
        "tool_use" => {
            let mut input = item.get("input").cloned().unwrap_or(Value::Null);
            notes.cap_value(&mut input);
            Some(Block::ToolUse(ToolUse {
                id: str_field("id")?.to_owned(),
                name: str_field("name")?.to_owned(),
                input,
            }))
        }
        "tool_result" => {
            let tool_use_id = str_field("tool_use_id")?.to_owned();
            let content = match item.get("content") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => {
                    let texts: Vec<&str> = parts
                        .iter()
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect();
                    texts.join("\n")
                }
                Some(_) => return None,
            };
            Some(Block::ToolResult(ToolResult {
                tool_use_id,
                content: notes.cap(content),
                is_error: item.get("is_error").and_then(Value::as_bool) == Some(true),
            }))
        }
        other => Some(Block::Other {
            kind: other.to_owned(),
        }),
    }
}

/// An optional string field: absent or `null` is `None`; another type is
/// `None` with a note naming `label`.
pub(crate) fn string_field(
    object: &Map<String, Value>,
    name: &str,
    label: &'static str,
    notes: &mut Notes<'_>,
) -> Option<String> {
    match object.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            notes.push(SkipReason::BadField { field: label });
            None
        }
    }
}

/// An optional boolean field, `false` when absent; another type is `false`
/// with a note.
pub(crate) fn bool_field(
    object: &Map<String, Value>,
    name: &'static str,
    notes: &mut Notes<'_>,
) -> bool {
    match object.get(name) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            notes.push(SkipReason::BadField { field: name });
            false
        }
    }
}

/// A message's `usage`: absent is `None`; a count that is absent or not a
/// whole number is 0, and anything but an object is `None`, each with a
/// note when the type was wrong.
pub(crate) fn read_usage(usage: Option<&Value>, notes: &mut Notes<'_>) -> Option<Usage> {
    let usage = match usage? {
        Value::Null => return None,
        Value::Object(map) => map,
        _ => {
            notes.push(SkipReason::BadField {
                field: "message.usage",
            });
            return None;
        }
    };
    let mut bad = false;
    let mut count = |name: &str| match usage.get(name) {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().unwrap_or_else(|| {
            bad = true;
            0
        }),
    };
    let read = Usage {
        input_tokens: count("input_tokens"),
        output_tokens: count("output_tokens"),
        cache_creation_input_tokens: count("cache_creation_input_tokens"),
        cache_read_input_tokens: count("cache_read_input_tokens"),
    };
    if bad {
        notes.push(SkipReason::BadField {
            field: "message.usage",
        });
    }
    Some(read)
}

/// How a JSON value that is not an object is named in a diagnostic.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
