//! Finding the frontmatter block of a text: the opening `---`, the closing
//! one, or, for a block never closed, the leading run of lines that look
//! like YAML. Line ends are normalised to `\n` in the block and kept as
//! they are in the body.

/// Where the frontmatter block and the body lie in a text.
pub(super) struct Split {
    /// The block's lines with line ends normalised to `\n`.
    pub(super) yaml: String,
    /// Byte offset at which the body starts.
    pub(super) body_start: usize,
    /// Whether a closing `---` was found.
    pub(super) closed: bool,
}

/// Splits `text` (BOM already removed) into frontmatter and body, or `None`
/// when the first line is not `---`.
pub(super) fn split_frontmatter(text: &str) -> Option<Split> {
    let mut lines = LineSpans::new(text);
    let (first, _) = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut yaml = String::new();
    // For an unclosed block: where the leading run of YAML-looking lines
    // ends, as (length of `yaml` then, byte offset where the body starts).
    let mut run_end: Option<(usize, usize)> = None;
    for (line, end) in lines {
        let content = line.trim_end_matches(['\r', '\n']);
        if content.trim_end() == "---" {
            return Some(Split {
                yaml,
                body_start: end,
                closed: true,
            });
        }
        if run_end.is_none() {
            if content.trim().is_empty() {
                run_end = Some((yaml.len(), end));
            } else if !looks_like_yaml(content) {
                run_end = Some((yaml.len(), end - line.len()));
            }
        }
        yaml.push_str(content);
        yaml.push('\n');
    }
    // Unclosed: the leading run of YAML-looking lines is the block (all of
    // them when the run never ends, as in a file cut after its first lines).
    let (yaml_len, body_start) = run_end.unwrap_or((yaml.len(), text.len()));
    yaml.truncate(yaml_len);
    Some(Split {
        yaml,
        body_start,
        closed: false,
    })
}

/// Whether a line can belong to a YAML block: a `key: value` line, a
/// continuation (indented), a list item or a comment.
fn looks_like_yaml(line: &str) -> bool {
    line.starts_with([' ', '\t', '-', '#']) || line.contains(':')
}

/// Iterates over the lines of a text, each with its line end, together with
/// the byte offset just past it.
struct LineSpans<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> LineSpans<'a> {
    fn new(text: &'a str) -> Self {
        LineSpans { text, pos: 0 }
    }
}

impl<'a> Iterator for LineSpans<'a> {
    type Item = (&'a str, usize);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        self.pos += len;
        Some((&rest[..len], self.pos))
    }
}
