//! What a reader did not keep of a line, and why: the diagnostics of a
//! tolerant read.

use std::fmt;

/// A line, or part of one, that the reader did not keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The 1-based line of the JSONL file (for a message list: the 1-based
    /// position of the entry in the list).
    pub line: usize,
    /// Why, as data.
    pub reason: SkipReason,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Why a line, or part of it, was not kept.
///
/// [`SkipReason::code`] is a stable `snake_case` name for scripts;
/// `Display` is the message for a person. [`SkipReason::is_whole_line`]
/// tells a skipped line from a line kept with something left out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The line is not UTF-8; the bytes up to `valid_up_to` were.
    InvalidUtf8 {
        /// How many leading bytes of the line were valid UTF-8.
        valid_up_to: usize,
    },
    /// The line is not JSON: cut short (`truncated`, as a write killed in
    /// the middle leaves it) or with a syntax error at `column`.
    NotJson {
        /// Whether the text ended before the JSON value did.
        truncated: bool,
        /// The 1-based column where parsing stopped.
        column: usize,
    },
    /// The line is JSON but not an object (a string, an array, …).
    NotAnObject {
        /// What it is: `a string`, `an array`, `a number`, `a boolean`,
        /// `null`.
        found: &'static str,
    },
    /// The object has no string `type`.
    NoType,
    /// A `type` this reader does not know.
    UnknownType {
        /// The type found (at most 100 bytes of it, `…` marking a cut).
        kind: String,
    },
    /// A known event that carries no conversation (a file-history snapshot,
    /// a queue operation, a `system` line other than a compaction): read and
    /// set aside on purpose.
    NotAMessage {
        /// The event's type, with its subtype for `system` lines
        /// (`system/turn_duration`).
        kind: String,
    },
    /// A `user` or `assistant` line without a `message` object.
    NoMessage,
    /// The message's `content` is neither a string nor a list of blocks.
    BadContent,
    /// A message-list entry whose `role` is not `user` or `assistant`.
    UnknownRole {
        /// The role found (empty when it was missing or not a string; at
        /// most 100 bytes of it).
        role: String,
    },
    /// A line whose `uuid` an earlier line already had: a repeated write.
    DuplicateLine {
        /// The repeated uuid (at most 100 bytes of it).
        uuid: String,
    },
    /// The input is JSON but neither a message list nor an object with a
    /// `messages` list.
    NotAMessageList,
    /// Kept, without one field that was there with the wrong type (it is
    /// read as absent).
    BadField {
        /// The field's name as written (`uuid`, `message.usage`, …).
        field: &'static str,
    },
    /// Kept, without one content block that is not an object or lacks what
    /// its type requires (a `tool_use` without `id`).
    BadBlock {
        /// The 0-based position of the block in the content list.
        index: usize,
    },
    /// Kept, with a text cut to [`crate::MAX_TEXT_BYTES`].
    TextCapped {
        /// The bytes kept.
        kept: usize,
        /// The bytes the text had.
        original: usize,
    },
}

impl SkipReason {
    /// The stable `snake_case` name of this reason, for scripts.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            SkipReason::InvalidUtf8 { .. } => "invalid_utf8",
            SkipReason::NotJson { .. } => "not_json",
            SkipReason::NotAnObject { .. } => "not_an_object",
            SkipReason::NoType => "no_type",
            SkipReason::UnknownType { .. } => "unknown_type",
            SkipReason::NotAMessage { .. } => "not_a_message",
            SkipReason::NoMessage => "no_message",
            SkipReason::BadContent => "bad_content",
            SkipReason::UnknownRole { .. } => "unknown_role",
            SkipReason::DuplicateLine { .. } => "duplicate_line",
            SkipReason::NotAMessageList => "not_a_message_list",
            SkipReason::BadField { .. } => "bad_field",
            SkipReason::BadBlock { .. } => "bad_block",
            SkipReason::TextCapped { .. } => "text_capped",
        }
    }

    /// Whether the whole line was skipped (else the line was kept with
    /// something left out of it).
    #[must_use]
    pub fn is_whole_line(&self) -> bool {
        !matches!(
            self,
            SkipReason::BadField { .. }
                | SkipReason::BadBlock { .. }
                | SkipReason::TextCapped { .. }
        )
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::InvalidUtf8 { valid_up_to } => {
                write!(f, "not UTF-8 (invalid byte at offset {valid_up_to})")
            }
            SkipReason::NotJson {
                truncated: true,
                column,
            } => write!(f, "not JSON: cut short at column {column}"),
            SkipReason::NotJson {
                truncated: false,
                column,
            } => write!(f, "not JSON: syntax error at column {column}"),
            SkipReason::NotAnObject { found } => write!(f, "JSON but {found}, not an event object"),
            SkipReason::NoType => f.write_str("no string \"type\"; not an event"),
            SkipReason::UnknownType { kind } => write!(f, "unknown event type {kind:?}"),
            SkipReason::NotAMessage { kind } => {
                write!(f, "{kind} event: no conversation in it")
            }
            SkipReason::NoMessage => f.write_str("no \"message\" object"),
            SkipReason::BadContent => {
                f.write_str("message content is neither text nor a list of blocks")
            }
            SkipReason::UnknownRole { role } if role.is_empty() => {
                f.write_str("no string \"role\"")
            }
            SkipReason::UnknownRole { role } => {
                write!(f, "role {role:?} is neither \"user\" nor \"assistant\"")
            }
            SkipReason::DuplicateLine { uuid } => {
                write!(f, "repeats the line with uuid {uuid}")
            }
            SkipReason::NotAMessageList => {
                f.write_str("JSON but not a message list (nor an object with \"messages\")")
            }
            SkipReason::BadField { field } => {
                write!(f, "kept without {field:?}: it has the wrong type")
            }
            SkipReason::BadBlock { index } => {
                write!(f, "kept without content block {index}: it is malformed")
            }
            SkipReason::TextCapped { kept, original } => {
                write!(f, "kept a text cut from {original} to {kept} bytes")
            }
        }
    }
}

/// The most bytes of an input string (a type, a role, a uuid) that a
/// diagnostic repeats: a hostile line cannot make its diagnostic large.
const MAX_QUOTED_BYTES: usize = 100;

/// `text`, cut to [`MAX_QUOTED_BYTES`] at a character boundary with `…`
/// marking a cut.
pub(crate) fn quoted(text: &str) -> String {
    if text.len() <= MAX_QUOTED_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_QUOTED_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
