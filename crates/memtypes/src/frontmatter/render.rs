//! Rendering a memory as frontmatter plus body, in either shape, with
//! values written so that the reader reads them back unchanged.

use super::parsed::{FrontmatterShape, Header};

/// Renders a memory as frontmatter plus body, so that
/// [`parse_memory_str`](crate::parse_memory_str)
/// reads back the same header and the same body.
///
/// Values are written as plain YAML scalars when that is unambiguous and
/// double-quoted (with escapes) otherwise.
///
/// ```
/// use memdir_memtypes::{parse_memory_str, render_memory, Header, MemoryType};
/// let header = Header {
///     name: Some("pnpm".into()),
///     description: Some("Note: use pnpm, not npm".into()),
///     memory_type: Some(MemoryType::Feedback),
/// };
/// let text = render_memory(&header, "Use pnpm.\n");
/// assert_eq!(text, "---\nname: pnpm\ndescription: \"Note: use pnpm, not npm\"\ntype: feedback\n---\nUse pnpm.\n");
/// let back = parse_memory_str(&text);
/// assert_eq!(back.header, header);
/// assert_eq!(back.body, "Use pnpm.\n");
/// ```
#[must_use]
pub fn render_memory(header: &Header, body: &str) -> String {
    render_in(FrontmatterShape::Flat, header, None, body)
}

/// Renders a memory afresh in `shape`: the flat shape writes `modified` at
/// the top level after `type`; the nested one writes `name` and
/// `description` at the top level and `type` and `modified` under
/// `metadata:` (as an empty `metadata: {}` when it has neither, so that the
/// file keeps its shape).
pub(super) fn render_in(
    shape: FrontmatterShape,
    header: &Header,
    modified: Option<jiff::Timestamp>,
    body: &str,
) -> String {
    let mut out = String::from("---\n");
    if let Some(name) = &header.name {
        push_field(&mut out, "name", name);
    }
    if let Some(description) = &header.description {
        push_field(&mut out, "description", description);
    }
    let indent = match shape {
        FrontmatterShape::Flat => "",
        FrontmatterShape::Nested if header.memory_type.is_none() && modified.is_none() => {
            out.push_str("metadata: {}\n");
            ""
        }
        FrontmatterShape::Nested => {
            out.push_str("metadata:\n");
            "  "
        }
    };
    if let Some(t) = header.memory_type {
        out.push_str(indent);
        push_field(&mut out, "type", t.as_str());
    }
    if let Some(time) = modified {
        out.push_str(indent);
        out.push_str("modified: ");
        out.push_str(&time_scalar(time));
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

/// A time as YAML: RFC 3339 in UTC, plain when it starts with its four-digit
/// year (YAML reads `2026-03-05T09:30:00Z` as that string, and a YAML 1.1
/// reader as that time), quoted for the years before 1 that start with `-`.
pub(super) fn time_scalar(time: jiff::Timestamp) -> String {
    let text = time.to_string();
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        text
    } else {
        format!("\"{text}\"")
    }
}

/// A string as a YAML scalar (see [`push_scalar`]).
pub(super) fn scalar(value: &str) -> String {
    let mut out = String::new();
    push_scalar(&mut out, value);
    out
}

fn push_field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(": ");
    push_scalar(out, value);
    out.push('\n');
}

/// Words a YAML reader may take for something other than a string.
const RESERVED: [&str; 12] = [
    "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", ".inf", ".nan",
];

/// Whether `value` reads back as the same string when written plain.
fn is_plain_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    first.is_alphabetic()
        && !value.ends_with(' ')
        && !RESERVED.iter().any(|r| value.eq_ignore_ascii_case(r))
        && value.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '/' | '(' | ')')
        })
}

fn push_scalar(out: &mut String, value: &str) {
    use std::fmt::Write;

    if is_plain_safe(value) {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // Everything YAML does not count as printable, and the characters
            // some readers treat as line breaks or a byte-order mark.
            c if c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
