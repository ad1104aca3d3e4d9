//! The notes as compaction injects them (SPEC R11.6): every section cut to
//! its limit at a line boundary, headings and descriptions kept.

use crate::MAX_SECTION_LENGTH;
use crate::markdown::{Fence, is_description, next_fence, split};

/// The most characters of one section's body (below its heading and
/// description) in [`truncate_session_memory_for_compact`]'s output: four
/// characters per token of [`MAX_SECTION_LENGTH`].
pub const MAX_SECTION_CHARS: usize = MAX_SECTION_LENGTH * 4;

/// The line that ends a section that was cut.
pub const TRUNCATION_MARKER: &str =
    "[… the rest of this section was cut for length; the notes file has it all]\n";

/// What [`truncate_session_memory_for_compact`] gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncatedNotes {
    /// The notes, each section at most [`MAX_SECTION_CHARS`] characters
    /// below its heading and description.
    pub truncated_content: String,
    /// Whether any section was cut.
    pub was_truncated: bool,
}

/// Cuts each section of `content` to [`MAX_SECTION_CHARS`] characters at a
/// line boundary. Each heading, and the italic description line directly
/// below it, is always kept; text before the first heading is held to the
/// same limit. A cut section ends with [`TRUNCATION_MARKER`] (counted in
/// the limit), and a code block the cut left open is closed first, so the
/// headings after it stay headings. Cutting again changes nothing.
///
/// ```
/// use memdir_session::{MAX_SECTION_CHARS, truncate_session_memory_for_compact};
///
/// let long = "- a step of the work\n".repeat(1_000);
/// let notes = format!("# Worklog\n_Steps, oldest first_\n{long}# Key results\n_Results_\n42\n");
/// let cut = truncate_session_memory_for_compact(&notes);
/// assert!(cut.was_truncated);
/// assert!(cut.truncated_content.starts_with("# Worklog\n_Steps, oldest first_\n- a step"));
/// assert!(cut.truncated_content.ends_with("# Key results\n_Results_\n42\n"));
/// assert!(cut.truncated_content.len() < notes.len());
/// assert!(!truncate_session_memory_for_compact(&cut.truncated_content).was_truncated);
/// # let _ = MAX_SECTION_CHARS;
/// ```
#[must_use]
pub fn truncate_session_memory_for_compact(content: &str) -> TruncatedNotes {
    let parsed = split(content);
    let mut out = String::with_capacity(content.len().min(16 * MAX_SECTION_CHARS));
    let mut was_truncated = cut_body(&parsed.preamble, &mut out);
    for section in &parsed.sections {
        out.push_str(section.heading);
        let mut body = section.lines.as_slice();
        if let Some((first, rest)) = body.split_first()
            && is_description(first)
        {
            out.push_str(first);
            body = rest;
        }
        was_truncated |= cut_body(body, &mut out);
    }
    TruncatedNotes {
        truncated_content: out,
        was_truncated,
    }
}

/// Appends `lines`, cut to [`MAX_SECTION_CHARS`] characters, to `out`;
/// returns whether they were cut.
fn cut_body(lines: &[&str], out: &mut String) -> bool {
    let total: usize = lines.iter().map(|l| l.chars().count()).sum();
    if total <= MAX_SECTION_CHARS {
        for line in lines {
            out.push_str(line);
        }
        return false;
    }
    let marker = TRUNCATION_MARKER.chars().count();
    // The longest prefix of whole lines that fits with the marker and, when
    // it ends inside a code block, the line that closes it.
    let (mut used, mut fence, mut keep) = (0, None::<Fence>, (0, None::<Fence>));
    for (i, line) in lines.iter().enumerate() {
        used += line.chars().count();
        fence = next_fence(fence, line);
        let close = fence.map_or(0, |f| f.closing_line().chars().count());
        if used + close + marker > MAX_SECTION_CHARS {
            break;
        }
        keep = (i + 1, fence);
    }
    let (count, open) = keep;
    for line in &lines[..count] {
        out.push_str(line);
    }
    if let Some(open) = open {
        out.push_str(&open.closing_line());
    }
    out.push_str(TRUNCATION_MARKER);
    true
}

#[cfg(test)]
mod tests;
