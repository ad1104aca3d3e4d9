//! Splitting notes into their sections: `# ` headings outside fenced code
//! blocks, each with the lines below it up to the next heading.

/// One `# ` heading and the lines below it (line endings kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawSection<'a> {
    /// The heading line, line ending included.
    pub(crate) heading: &'a str,
    /// The lines up to the next heading, line endings included.
    pub(crate) lines: Vec<&'a str>,
}

/// A text split at its headings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The lines before the first heading.
    pub(crate) preamble: Vec<&'a str>,
    /// The sections, in order.
    pub(crate) sections: Vec<RawSection<'a>>,
}

/// A line without its line ending.
pub(crate) fn bare(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// Up to three spaces of indentation removed, as Markdown allows before a
/// heading or a fence; `None` when there are more.
fn unindent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

/// Whether `line` is a level-one ATX heading (`# Title`, or a lone `#`).
pub(crate) fn is_heading(line: &str) -> bool {
    let Some(rest) = unindent(bare(line)) else {
        return false;
    };
    match rest.strip_prefix('#') {
        Some(after) => after.is_empty() || after.starts_with([' ', '\t']),
        None => false,
    }
}

/// Whether `line` is an italic description line (`_…_`).
pub(crate) fn is_description(line: &str) -> bool {
    let text = bare(line).trim();
    text.len() >= 3 && text.starts_with('_') && text.ends_with('_')
}

/// A code fence: its character and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    ch: char,
    len: usize,
}

impl Fence {
    /// The line that closes this fence.
    pub(crate) fn closing_line(self) -> String {
        let mut line: String = std::iter::repeat_n(self.ch, self.len).collect();
        line.push('\n');
        line
    }
}

fn fence_run(line: &str) -> Option<(char, usize, &str)> {
    let rest = unindent(bare(line))?;
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    (len >= 3).then(|| (ch, len, &rest[len..]))
}

/// The fence state after `line`, given the state before it.
pub(crate) fn next_fence(open: Option<Fence>, line: &str) -> Option<Fence> {
    match open {
        Some(fence) => match fence_run(line) {
            Some((ch, len, rest))
                if ch == fence.ch && len >= fence.len && rest.trim().is_empty() =>
            {
                None
            }
            _ => Some(fence),
        },
        None => match fence_run(line) {
            // A backtick fence's info string may not hold a backtick.
            Some(('`', _, rest)) if rest.contains('`') => None,
            Some((ch, len, _)) => Some(Fence { ch, len }),
            None => None,
        },
    }
}

/// Splits `text` at its level-one headings outside fenced code.
pub(crate) fn split(text: &str) -> Split<'_> {
    let mut out = Split {
        preamble: Vec::new(),
        sections: Vec::new(),
    };
    let mut fence = None;
    for line in text.split_inclusive('\n') {
        if fence.is_none() && is_heading(line) {
            out.sections.push(RawSection {
                heading: line,
                lines: Vec::new(),
            });
            continue;
        }
        fence = next_fence(fence, line);
        match out.sections.last_mut() {
            Some(section) => section.lines.push(line),
            None => out.preamble.push(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_inside_fences_do_not_split() {
        let text = "intro\n# One\n_d_\n```sh\n# not a heading\n```\n## sub\n# Two\nbody";
        let split = split(text);
        assert_eq!(split.preamble, ["intro\n"]);
        let headings: Vec<&str> = split.sections.iter().map(|s| bare(s.heading)).collect();
        assert_eq!(headings, ["# One", "# Two"]);
        assert_eq!(split.sections[0].lines.len(), 5);
        assert_eq!(split.sections[1].lines, ["body"]);
    }

    #[test]
    fn what_counts_as_a_heading() {
        assert!(is_heading("# Title\n"));
        assert!(is_heading("   # Title"));
        assert!(is_heading("#"));
        assert!(!is_heading("    # indented code"));
        assert!(!is_heading("## Sub"));
        assert!(!is_heading("#hashtag"));
        assert!(is_description("_What this is_\r\n"));
        assert!(!is_description("_"));
        assert!(!is_description("plain"));
    }

    #[test]
    fn fences_close_only_with_their_own_kind() {
        let open = next_fence(None, "~~~~ text\n");
        assert!(open.is_some());
        assert_eq!(next_fence(open, "```\n"), open);
        assert_eq!(next_fence(open, "~~~\n"), open);
        assert_eq!(next_fence(open, "~~~~~ \n"), None);
        assert_eq!(next_fence(None, "``` a`b\n"), None);
    }
}
