//! Text helpers shared by the checks: the body with its code masked, and
//! line numbers of the whole file.

/// The 1-based line of the file on which the body starts.
pub(crate) fn body_first_line(text: &str, body: &str) -> usize {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match text.len().checked_sub(body.len()) {
        Some(prefix) if text.ends_with(body) => text[..prefix].matches('\n').count() + 1,
        _ => 1,
    }
}

/// The 1-based line within `s` of byte offset `at`.
pub(crate) fn line_of(s: &str, at: usize) -> usize {
    s[..at.min(s.len())].matches('\n').count() + 1
}

/// `body` with fenced code blocks and inline code spans blanked out: every
/// byte of them but line ends becomes a space, so offsets stay those of
/// `body` and the result stays UTF-8.
pub(crate) fn mask_code(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut fence: Option<&str> = None;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                blank(line, &mut out);
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                blank(line, &mut out);
            }
            (Some(_), _) => blank(line, &mut out),
            (None, None) => mask_spans(line, &mut out),
        }
    }
    out
}

fn blank(line: &str, out: &mut String) {
    for b in line.bytes() {
        out.push(if b == b'\n' || b == b'\r' {
            b as char
        } else {
            ' '
        });
    }
}

/// Blanks the `` `…` `` spans of one line; an unclosed backtick is text.
fn mask_spans(line: &str, out: &mut String) {
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        out.push_str(&rest[..open]);
        blank(&rest[open..open + len + 2], out);
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
}

/// Lines of `body` with their byte offsets, line ends dropped.
pub(crate) fn lines_with_offsets(body: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    body.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches(['\n', '\r']))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_fences_and_spans_keeping_offsets() {
        let body = "a `tomorrow` b\n```\nyesterday\n```\nc 明天\n";
        let masked = mask_code(body);
        assert_eq!(masked.len(), body.len());
        assert!(!masked.contains("tomorrow"));
        assert!(!masked.contains("yesterday"));
        assert!(masked.contains("c 明天"));
    }

    #[test]
    fn body_line_counts_the_frontmatter() {
        let text = "---\nname: a\n---\nbody\n";
        assert_eq!(body_first_line(text, "body\n"), 4);
    }
}
