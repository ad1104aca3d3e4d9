//! Messages as a background agent reads them in its prompt, and a session
//! id as a file name: what every step that works from a transcript needs.

use std::fmt::Write as _;

use crate::{Block, Message};

/// How much of one tool call's input, or one tool result, an excerpt shows.
pub const MAX_EXCERPT_TOOL_CHARS: usize = 600;

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}…")
}

/// `messages` as text between `<tag>` and `</tag>`: each message its role in
/// brackets, its text, its tool calls and results cut to
/// [`MAX_EXCERPT_TOOL_CHARS`]. When the whole would pass `max_chars`, the
/// oldest messages are left out (and counted), the newest always kept.
///
/// ```
/// let t = memdir_transcript::parse_jsonl(br#"{"type":"user","uuid":"u1","message":{"role":"user","content":"Use pnpm."}}"#);
/// let text = memdir_transcript::excerpt(&t.messages, "transcript", 10_000);
/// assert_eq!(text, "<transcript>\n[user]\nUse pnpm.\n</transcript>");
/// ```
#[must_use]
pub fn excerpt<'a>(
    messages: impl IntoIterator<Item = &'a Message>,
    tag: &str,
    max_chars: usize,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    for m in messages {
        let mut part = format!("[{}]", m.role.as_str());
        for block in &m.blocks {
            match block {
                Block::Text(t) => {
                    let _ = write!(part, "\n{t}");
                }
                Block::ToolUse(t) => {
                    let _ = write!(
                        part,
                        "\n(called {}: {})",
                        t.name,
                        cut(&t.input.to_string(), MAX_EXCERPT_TOOL_CHARS)
                    );
                }
                Block::ToolResult(r) => {
                    let _ = write!(
                        part,
                        "\n(result{}: {})",
                        if r.is_error { ", an error" } else { "" },
                        cut(&r.content, MAX_EXCERPT_TOOL_CHARS)
                    );
                }
                Block::Other { .. } => {}
            }
        }
        parts.push(part);
    }
    let mut total = 0;
    let mut keep = parts.len();
    for part in parts.iter().rev() {
        if total + part.len() > max_chars && keep < parts.len() {
            break;
        }
        total += part.len();
        keep -= 1;
    }
    let mut out = format!("<{tag}>\n");
    if keep > 0 {
        let _ = writeln!(out, "({keep} earlier messages left out)");
    }
    out.push_str(&parts[keep..].join("\n\n"));
    let _ = write!(out, "\n</{tag}>");
    out
}

/// A session id as a file name: ASCII letters, digits, `-` and `_` kept,
/// every other character `_`, at most 120 characters, `_` for an empty id.
/// Session ids are uuids, which come through unchanged; anything else
/// cannot name a path outside the folder it is joined to.
///
/// ```
/// assert_eq!(memdir_transcript::session_file_stem("5f1c-AB_9"), "5f1c-AB_9");
/// assert_eq!(memdir_transcript::session_file_stem("../../etc/passwd"), "______etc_passwd");
/// assert_eq!(memdir_transcript::session_file_stem(""), "_");
/// ```
#[must_use]
pub fn session_file_stem(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    if safe.is_empty() {
        "_".to_owned()
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_messages_are_kept_when_the_excerpt_is_too_long() {
        let mut lines = String::new();
        for i in 0..50 {
            let _ = writeln!(
                lines,
                "{{\"type\":\"user\",\"uuid\":\"u{i}\",\"message\":{{\"role\":\"user\",\"content\":\"message {i} {}\"}}}}",
                "x".repeat(100)
            );
        }
        let t = crate::parse_jsonl(lines.as_bytes());
        let text = excerpt(&t.messages, "conversation", 1_000);
        assert!(text.starts_with("<conversation>\n("), "{text}");
        assert!(text.contains("earlier messages left out"));
        assert!(text.contains("message 49 "));
        assert!(!text.contains("message 0 "));
        assert!(text.ends_with("</conversation>"));
        assert_eq!(session_file_stem(&"a".repeat(500)).len(), 120);
    }
}
