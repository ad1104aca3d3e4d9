//! A plain Messages-API message list: `[{role, content}]`.

use serde_json::Value;

use crate::build::{Builder, Piece};
use crate::content::{Notes, kind_of, read_content, read_usage, string_field};
use crate::diagnostic::quoted;
use crate::{Role, SkipReason, Skipped, Transcript};

/// Parses a Messages-API message list — `[{role, content}, …]`, or an
/// object whose `messages` is one — with the tolerance of [`crate::parse_jsonl`].
///
/// The "line" of a diagnostic or a message is the entry's 1-based position
/// in the list. An entry that also has an `id` and `usage` (a response
/// saved as it came) keeps them, and entries sharing an assistant `id` are
/// merged as JSONL lines are. A value that is no list at all gives an empty
/// transcript with one [`SkipReason::NotAMessageList`] at line 1.
#[must_use]
pub fn parse_messages(value: &Value) -> Transcript {
    let mut builder = Builder::default();
    let list = match value {
        Value::Array(list) => Some(list),
        Value::Object(map) => map.get("messages").and_then(Value::as_array),
        _ => None,
    };
    let Some(list) = list else {
        builder.transcript.skipped.push(Skipped {
            line: 1,
            reason: SkipReason::NotAMessageList,
        });
        return builder.finish();
    };
    for (index, entry) in list.iter().enumerate() {
        let line = index + 1;
        if let Err(reason) = read_entry(&mut builder, line, entry) {
            builder.transcript.skipped.push(Skipped { line, reason });
        }
    }
    builder.finish()
}

fn read_entry(builder: &mut Builder, line: usize, entry: &Value) -> Result<(), SkipReason> {
    let Value::Object(entry) = entry else {
        return Err(SkipReason::NotAnObject {
            found: kind_of(entry),
        });
    };
    let role = match entry.get("role") {
        Some(Value::String(r)) if r == "user" => Role::User,
        Some(Value::String(r)) if r == "assistant" => Role::Assistant,
        Some(Value::String(r)) => return Err(SkipReason::UnknownRole { role: quoted(r) }),
        _ => {
            return Err(SkipReason::UnknownRole {
                role: String::new(),
            });
        }
    };
    let mut notes = Notes {
        line,
        skipped: &mut builder.transcript.skipped,
    };
    let content = entry.get("content").unwrap_or(&Value::Null);
    let blocks = read_content(content, &mut notes).ok_or(SkipReason::BadContent)?;
    let piece = Piece {
        line,
        role,
        blocks,
        uuid: None,
        parent_uuid: None,
        message_id: string_field(entry, "id", "id", &mut notes),
        timestamp: None,
        usage: read_usage(entry.get("usage"), &mut notes),
        is_sidechain: false,
        is_compact_summary: false,
    };
    builder.push(piece);
    Ok(())
}
