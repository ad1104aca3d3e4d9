//! The reference agent's JSONL session file: one event per line.

use serde_json::{Map, Value};

use crate::build::{Builder, Piece};
use crate::content::{Notes, bool_field, kind_of, read_content, read_usage, string_field};
use crate::diagnostic::quoted;
use crate::{Compaction, Role, SkipReason, Skipped, Summary, Transcript};

/// Event types that carry no conversation, read and set aside on purpose
/// (`system` lines other than compaction boundaries join them).
const NOT_MESSAGES: [&str; 5] = [
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "custom-title",
    "tag",
];

/// Parses the reference agent's JSONL: one JSON event per line, each line
/// kept, or recorded in [`Transcript::skipped`] with why; never fails.
///
/// Lines are split on `\n` (a trailing `\r` is dropped); a line of only
/// whitespace is not a diagnostic; a UTF-8 byte-order mark before the first
/// line is ignored.
#[must_use]
pub fn parse_jsonl(bytes: &[u8]) -> Transcript {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut builder = Builder::default();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line = index + 1;
        if let Err(reason) = read_line(&mut builder, line, raw) {
            builder.transcript.skipped.push(Skipped { line, reason });
        }
    }
    builder.finish()
}

/// Reads one non-blank line into the builder, or says why it was skipped.
fn read_line(builder: &mut Builder, line: usize, raw: &[u8]) -> Result<(), SkipReason> {
    let text = std::str::from_utf8(raw).map_err(|e| SkipReason::InvalidUtf8 {
        valid_up_to: e.valid_up_to(),
    })?;
    let value: Value = serde_json::from_str(text).map_err(|e| SkipReason::NotJson {
        truncated: e.is_eof(),
        column: e.column(),
    })?;
    let Value::Object(event) = value else {
        return Err(SkipReason::NotAnObject {
            found: kind_of(&value),
        });
    };
    let kind = event
        .get("type")
        .and_then(Value::as_str)
        .ok_or(SkipReason::NoType)?;
    match kind {
        "user" | "assistant" => read_message(builder, line, &event, kind == "assistant"),
        "system" => {
            let subtype = event.get("subtype").and_then(Value::as_str);
            if subtype == Some("compact_boundary") {
                let first_message = builder.transcript.messages.len();
                let mut notes = notes_of(builder, line);
                let session_id = string_field(&event, "sessionId", "sessionId", &mut notes);
                let compaction = read_compaction(line, &event, first_message, &mut notes);
                builder.note_session(session_id);
                builder.transcript.compactions.push(compaction);
                Ok(())
            } else {
                Err(SkipReason::NotAMessage {
                    kind: subtype
                        .map_or_else(|| "system".to_owned(), |s| format!("system/{}", quoted(s))),
                })
            }
        }
        "summary" => {
            let mut notes = notes_of(builder, line);
            let leaf_uuid = string_field(&event, "leafUuid", "leafUuid", &mut notes);
            let text = string_field(&event, "summary", "summary", &mut notes).unwrap_or_default();
            let text = notes.cap(text);
            builder.transcript.summaries.push(Summary {
                line,
                text,
                leaf_uuid,
            });
            Ok(())
        }
        kind if NOT_MESSAGES.contains(&kind) => Err(SkipReason::NotAMessage {
            kind: kind.to_owned(),
        }),
        kind => Err(SkipReason::UnknownType { kind: quoted(kind) }),
    }
}

fn notes_of(builder: &mut Builder, line: usize) -> Notes<'_> {
    Notes {
        line,
        skipped: &mut builder.transcript.skipped,
    }
}

fn read_message(
    builder: &mut Builder,
    line: usize,
    event: &Map<String, Value>,
    is_assistant: bool,
) -> Result<(), SkipReason> {
    let Some(Value::Object(message)) = event.get("message") else {
        return Err(SkipReason::NoMessage);
    };
    // The content's notes wait until the line is known to be kept: a line
    // that repeats an earlier one is skipped whole, without them, and only
    // a line that is kept claims its uuid.
    let mut content_notes = Vec::new();
    let content = message.get("content").unwrap_or(&Value::Null);
    let blocks = read_content(
        content,
        &mut Notes {
            line,
            skipped: &mut content_notes,
        },
    )
    .ok_or(SkipReason::BadContent)?;
    if builder.is_repeat(line, event.get("uuid").and_then(Value::as_str)) {
        return Ok(());
    }
    builder.transcript.skipped.append(&mut content_notes);
    let mut notes = notes_of(builder, line);
    let session_id = string_field(event, "sessionId", "sessionId", &mut notes);
    let piece = Piece {
        line,
        role: if is_assistant {
            Role::Assistant
        } else {
            Role::User
        },
        blocks,
        uuid: string_field(event, "uuid", "uuid", &mut notes),
        parent_uuid: string_field(event, "parentUuid", "parentUuid", &mut notes),
        message_id: string_field(message, "id", "message.id", &mut notes),
        timestamp: string_field(event, "timestamp", "timestamp", &mut notes),
        usage: read_usage(message.get("usage"), &mut notes),
        is_sidechain: bool_field(event, "isSidechain", &mut notes),
        is_compact_summary: bool_field(event, "isCompactSummary", &mut notes),
    };
    builder.note_session(session_id);
    builder.push(piece);
    Ok(())
}

fn read_compaction(
    line: usize,
    event: &Map<String, Value>,
    first_message: usize,
    notes: &mut Notes<'_>,
) -> Compaction {
    // On disk the metadata is `compactMetadata {trigger, preTokens}`; the
    // live stream spells it `compact_metadata {trigger, pre_tokens}`.
    let metadata = event
        .get("compactMetadata")
        .or_else(|| event.get("compact_metadata"));
    let trigger = metadata
        .and_then(|m| m.get("trigger"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let pre_tokens = metadata
        .and_then(|m| m.get("preTokens").or_else(|| m.get("pre_tokens")))
        .and_then(Value::as_u64);
    Compaction {
        line,
        uuid: string_field(event, "uuid", "uuid", notes),
        trigger,
        pre_tokens,
        is_sidechain: bool_field(event, "isSidechain", notes),
        first_message,
    }
}
