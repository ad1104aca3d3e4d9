//! Cutting MEMORY.md to the prompt budget (SPEC R3.2, R3.3).

use crate::link::find_link;
use crate::{MAX_ENTRYPOINT_BYTES, MAX_ENTRYPOINT_LINES};

/// MEMORY.md as it goes into the prompt, and what was cut from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// The text as injected: the kept part of the trimmed index, followed by
    /// a blank line and [`Truncation::warning`] when anything was cut.
    pub content: String,
    /// Number of `\n`-separated lines of the trimmed text (0 when empty).
    pub line_count: usize,
    /// UTF-8 length of the trimmed text in bytes.
    pub byte_count: usize,
    /// Whether the trimmed text has more than [`MAX_ENTRYPOINT_LINES`] lines.
    pub was_line_truncated: bool,
    /// Whether the trimmed text has more than [`MAX_ENTRYPOINT_BYTES`] bytes.
    pub was_byte_truncated: bool,
    /// Length in bytes of the prefix of the trimmed text that was kept.
    pub kept_bytes: usize,
    /// The warning appended to the content, when either flag is set.
    pub warning: Option<String>,
    /// The index entries (lines with a link) that the cut dropped, wholly or
    /// in part, in file order.
    pub dropped: Vec<DroppedEntry>,
}

/// An index entry that did not make it into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedEntry {
    /// 1-based line number in the original file.
    pub line: usize,
    /// The link text.
    pub title: String,
    /// The link target, as written.
    pub target: String,
}

impl Truncation {
    /// Whether anything was cut.
    #[must_use]
    pub fn was_truncated(&self) -> bool {
        self.was_line_truncated || self.was_byte_truncated
    }

    /// The kept part of the trimmed index, without the warning.
    #[must_use]
    pub fn kept(&self) -> &str {
        &self.content[..self.kept_bytes]
    }
}

/// Trims `raw`, cuts it to [`MAX_ENTRYPOINT_LINES`] lines and then to
/// [`MAX_ENTRYPOINT_BYTES`] bytes at a line boundary, and appends the
/// warning when anything was over.
///
/// ```
/// use memdir_entrypoint::truncate_entrypoint_content;
/// let index: String = (1..=250).map(|i| format!("- [m{i}](m{i}.md) — hook\n")).collect();
/// let t = truncate_entrypoint_content(&index);
/// assert_eq!((t.line_count, t.was_line_truncated, t.was_byte_truncated), (250, true, false));
/// assert_eq!(t.kept().lines().count(), 200);
/// assert_eq!(t.dropped.len(), 50);
/// assert!(t.content.ends_with("move detail into topic files."));
/// ```
#[must_use]
pub fn truncate_entrypoint_content(raw: &str) -> Truncation {
    let trimmed = raw.trim();
    // Line numbers are reported for the file as written, so count the lines
    // that the trim removed at the start.
    let leading_lines = raw[..raw.len() - raw.trim_start().len()]
        .matches('\n')
        .count();

    let line_count = if trimmed.is_empty() {
        0
    } else {
        trimmed.split('\n').count()
    };
    let byte_count = trimmed.len();
    let was_line_truncated = line_count > MAX_ENTRYPOINT_LINES;
    let was_byte_truncated = byte_count > MAX_ENTRYPOINT_BYTES;

    let mut kept = trimmed;
    if was_line_truncated {
        let end = trimmed
            .match_indices('\n')
            .nth(MAX_ENTRYPOINT_LINES - 1)
            .map_or(trimmed.len(), |(i, _)| i);
        kept = &trimmed[..end];
    }
    if kept.len() > MAX_ENTRYPOINT_BYTES {
        kept = cut_at_line_boundary(kept, MAX_ENTRYPOINT_BYTES);
    }
    if kept.len() < trimmed.len() {
        kept = kept.trim_end();
    }

    let warning = warning_text(
        line_count,
        byte_count,
        was_line_truncated,
        was_byte_truncated,
    );
    let mut content = kept.to_owned();
    if let Some(w) = &warning {
        content.push_str("\n\n");
        content.push_str(w);
    }
    Truncation {
        kept_bytes: kept.len(),
        dropped: dropped_entries(trimmed, kept.len(), leading_lines),
        content,
        line_count,
        byte_count,
        was_line_truncated,
        was_byte_truncated,
        warning,
    }
}

/// The longest prefix of `text` of at most `limit` bytes that ends just
/// before a newline; when the first line alone is over the limit, the
/// longest prefix that ends at a character boundary.
fn cut_at_line_boundary(text: &str, limit: usize) -> &str {
    let window = &text.as_bytes()[..=limit.min(text.len() - 1)];
    if let Some(nl) = window.iter().rposition(|&b| b == b'\n') {
        return &text[..nl];
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Formats a byte count as kilobytes of 1,000 bytes with one decimal.
#[allow(
    clippy::cast_precision_loss,
    reason = "an index is far below 2^52 bytes"
)]
fn kb(bytes: usize) -> String {
    format!("{:.1}KB", bytes as f64 / 1000.0)
}

fn warning_text(lines: usize, bytes: usize, over_lines: bool, over_bytes: bool) -> Option<String> {
    let what = match (over_lines, over_bytes) {
        (false, false) => return None,
        (true, false) => format!("{lines} lines (limit: {MAX_ENTRYPOINT_LINES})"),
        (false, true) => format!(
            "{} (limit: {}) -- index entries are too long",
            kb(bytes),
            kb(MAX_ENTRYPOINT_BYTES)
        ),
        (true, true) => format!("{lines} lines and {}", kb(bytes)),
    };
    Some(format!(
        "> WARNING: MEMORY.md is {what}. Only part of it was loaded. Keep index entries to one \
         line under ~200 chars; move detail into topic files."
    ))
}

/// The entries of `trimmed` whose line is not wholly inside the first
/// `kept` bytes.
fn dropped_entries(trimmed: &str, kept: usize, leading_lines: usize) -> Vec<DroppedEntry> {
    let mut dropped = Vec::new();
    let mut start = 0;
    for (i, line) in trimmed.split('\n').enumerate() {
        // The kept text is trimmed at its end, so a kept CRLF line has lost
        // its `\r`: compare without trailing whitespace.
        if start + line.trim_end().len() > kept
            && let Some(link) = find_link(line)
        {
            dropped.push(DroppedEntry {
                line: leading_lines + i + 1,
                title: link.title.to_owned(),
                target: link.target.to_owned(),
            });
        }
        start += line.len() + 1;
    }
    dropped
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;

    #[test]
    fn nothing_over_returns_the_trimmed_input() {
        let t = truncate_entrypoint_content("\n\n  - [a](a.md)\n- [b](b.md)  \n\n");
        assert_eq!(t.content, "- [a](a.md)\n- [b](b.md)");
        assert_eq!((t.line_count, t.byte_count), (2, 23));
        assert!(!t.was_truncated());
        assert_eq!(t.warning, None);
        assert!(t.dropped.is_empty());
    }

    #[test]
    fn empty_index() {
        let t = truncate_entrypoint_content(" \n\t\n");
        assert_eq!((t.content.as_str(), t.line_count, t.byte_count), ("", 0, 0));
    }

    #[test]
    fn warning_texts() {
        assert_eq!(
            warning_text(250, 100, true, false).unwrap(),
            "> WARNING: MEMORY.md is 250 lines (limit: 200). Only part of it was loaded. Keep \
             index entries to one line under ~200 chars; move detail into topic files."
        );
        assert!(
            warning_text(10, 26_500, false, true)
                .unwrap()
                .contains("is 26.5KB (limit: 25.0KB) -- index entries are too long. Only")
        );
        assert!(
            warning_text(250, 26_500, true, true)
                .unwrap()
                .contains("is 250 lines and 26.5KB. Only")
        );
    }

    #[test]
    fn flags_judge_the_whole_text_even_when_the_line_cut_suffices() {
        // 300 lines of 99 bytes: 29.7 KB in all, 19.8 KB after the line cut.
        let line = "x".repeat(98);
        let index = vec![line; 300].join("\n");
        let t = truncate_entrypoint_content(&index);
        assert!(t.was_line_truncated && t.was_byte_truncated);
        assert_eq!(t.kept().len(), 200 * 99 - 1);
        assert!(t.content.contains("is 300 lines and 29.7KB."));
    }

    #[test]
    fn byte_cut_keeps_whole_lines() {
        let line = "y".repeat(999);
        let index = vec![line; 30].join("\n"); // 30 lines of 1,000 bytes with the newline
        let t = truncate_entrypoint_content(&index);
        assert!(!t.was_line_truncated && t.was_byte_truncated);
        assert_eq!(t.kept().len(), 25 * 1000 - 1);
        // A newline exactly at the mark: cutting there keeps exactly 25,000 bytes.
        let index = format!("{}\n{}", "z".repeat(25_000), "tail");
        let t = truncate_entrypoint_content(&index);
        assert_eq!(t.kept().len(), 25_000);
    }

    #[test]
    fn first_line_over_the_limit_is_cut_at_a_character_boundary() {
        let index = format!("{}é and more", "a".repeat(24_999));
        let t = truncate_entrypoint_content(&index);
        assert_eq!(t.kept(), "a".repeat(24_999));
    }

    #[test]
    fn dropped_entries_use_file_line_numbers() {
        let mut index = String::from("\n\n# Index\n");
        for i in 1..=201 {
            let _ = writeln!(index, "- [m{i}](m{i}.md) — hook");
        }
        let t = truncate_entrypoint_content(&index);
        // The trimmed text has the heading plus 201 entries; 2 lines are cut.
        assert_eq!(t.dropped.len(), 2);
        assert_eq!(
            t.dropped[1],
            DroppedEntry {
                line: 204,
                title: "m201".into(),
                target: "m201.md".into()
            }
        );
    }
}
