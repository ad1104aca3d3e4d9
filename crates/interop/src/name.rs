//! Safe memory names and one-line descriptions.

use std::collections::HashSet;

use unicode_normalization::UnicodeNormalization;

use crate::{InteropError, MAX_NAME_CHARS, Memory};

/// The longest description derived from a body, in characters.
const MAX_DERIVED_DESCRIPTION_CHARS: usize = 200;

/// Names that Windows reserves for devices, whatever the extension.
const RESERVED: [&str; 4] = ["con", "prn", "aux", "nul"];

/// Makes `raw` a safe memdir memory name, or says it cannot be one.
///
/// The text is NFC-normalised and lowercased; ASCII letters and digits and
/// the letters and digits of every other script are kept as they are, and
/// every other run of characters (`/`, `.`, spaces, punctuation, format
/// and bidirectional controls) becomes one `-`. Leading and trailing `-`
/// go, the name is cut at [`MAX_NAME_CHARS`] characters, and a name that
/// Windows reserves for a device (`con`, `com1`, …) gets `-memory` after
/// it. The result never holds `/`, `\`, `.` or a space; `None` when no
/// letter or digit is left. Applying it again changes nothing.
///
/// ```
/// use memdir_interop::sanitize_name;
/// assert_eq!(sanitize_name("../../etc/passwd").as_deref(), Some("etc-passwd"));
/// assert_eq!(sanitize_name("Project Brief").as_deref(), Some("project-brief"));
/// assert_eq!(sanitize_name("用户 偏好").as_deref(), Some("用户-偏好"));
/// assert_eq!(sanitize_name("con").as_deref(), Some("con-memory"));
/// assert_eq!(sanitize_name("-rf").as_deref(), Some("rf"));
/// assert_eq!(sanitize_name("/// ..."), None);
/// ```
#[must_use]
pub fn sanitize_name(raw: &str) -> Option<String> {
    let mut name = sanitize_once(raw);
    // Lowercasing can leave text that normalises differently; a few passes
    // reach the fixed point.
    for _ in 0..4 {
        let again = sanitize_once(&name);
        if again == name {
            break;
        }
        name = again;
    }
    if name.is_empty() {
        return None;
    }
    if is_reserved(&name) {
        name.push_str("-memory");
    }
    Some(name)
}

fn sanitize_once(raw: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in raw.nfc().flat_map(char::to_lowercase) {
        let keep = if c.is_ascii() {
            c.is_ascii_alphanumeric()
        } else {
            c.is_alphanumeric()
        };
        if keep {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    let cut: String = out.chars().take(MAX_NAME_CHARS).collect();
    cut.trim_end_matches('-').nfc().collect()
}

fn is_reserved(name: &str) -> bool {
    if RESERVED.contains(&name) {
        return true;
    }
    let bytes = name.as_bytes();
    bytes.len() == 4
        && (name.starts_with("com") || name.starts_with("lpt"))
        && bytes[3].is_ascii_digit()
}

/// A description on one line: whitespace runs become one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The description of a memory: `given` on one line, else one derived
/// from the body's first line of text, else the name.
pub(crate) fn description_or_derived(given: &str, body: &str, name: &str) -> String {
    let given = one_line(given);
    if !given.is_empty() {
        return given;
    }
    let derived = body
        .lines()
        .map(|line| line.trim().trim_start_matches(['#', '-', '*', '>']).trim())
        .find(|line| !line.is_empty())
        .map(|line| {
            one_line(line)
                .chars()
                .take(MAX_DERIVED_DESCRIPTION_CHARS)
                .collect::<String>()
        });
    derived.unwrap_or_else(|| name.to_owned())
}

/// The memories with safe names and one-line descriptions, or the first
/// name that cannot be exported.
pub(crate) fn safe_for_export(memories: &[Memory]) -> Result<Vec<Memory>, InteropError> {
    let mut seen = HashSet::new();
    memories
        .iter()
        .map(|m| {
            let name = sanitize_name(&m.name).ok_or_else(|| InteropError::InvalidName {
                name: m.name.clone(),
            })?;
            if !seen.insert(name.clone()) {
                return Err(InteropError::DuplicateName { name });
            }
            let description = description_or_derived(&m.description, &m.body, &name);
            Ok(Memory {
                name,
                memory_type: m.memory_type,
                description,
                body: m.body.clone(),
            })
        })
        .collect()
}
