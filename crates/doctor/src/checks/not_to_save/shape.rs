//! The shape of a memory's body, line by line: prose, fenced or indented
//! code, directory-tree drawings, list items (ordered, bulleted, task
//! boxes), and the rationale paragraph (`**Why:** …`) of a feedback
//! memory, whose story of an incident supports a rule rather than being
//! one.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::re;
use crate::text::{lines_with_offsets, mask_code};

/// What a line of the body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Empty or whitespace.
    Blank,
    /// A code fence's opening or closing line.
    Fence,
    /// Inside a fenced block.
    FencedCode,
    /// An indented code block (four spaces or a tab after a blank line,
    /// outside a list).
    IndentedCode,
    /// A line of a directory-tree drawing (`├──`, `└──`).
    Tree,
    /// Anything else.
    Text,
}

/// A list item's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    /// `1.`, `2)`, `1、`, `①`, `Step 1:`, `第一步`.
    Ordered,
    /// `-`, `*`, `+`.
    Bullet,
    /// `- [ ]` (false) or `- [x]` (true).
    Task(bool),
}

/// One line of the body.
#[derive(Debug, Clone)]
pub(super) struct Line<'a> {
    /// Its byte offset in the body.
    pub(super) at: usize,
    /// The line as written, without its line end.
    pub(super) text: &'a str,
    /// The line with code spans blanked (empty for code lines).
    pub(super) prose: &'a str,
    /// What it is.
    pub(super) kind: Kind,
    /// The list marker it starts with, if any (text lines only).
    pub(super) item: Option<Item>,
    /// Whether it is part of a `Why:` paragraph.
    pub(super) rationale: bool,
}

impl<'a> Line<'a> {
    /// Code of any kind, fence lines included.
    pub(super) fn is_code(&self) -> bool {
        matches!(
            self.kind,
            Kind::Fence | Kind::FencedCode | Kind::IndentedCode
        )
    }

    /// The line's prose where a story can be told: not code, not a
    /// rationale.
    pub(super) fn narrative(&self) -> &'a str {
        if self.rationale || self.kind != Kind::Text {
            ""
        } else {
            self.prose
        }
    }
}

pub(super) static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?P<task>[-*+]\s+\[(?P<done>[ xX])\])|(?P<bullet>[-*+•]\s)|(?P<ordered>\d{1,2}[.)．]\s|\d{1,2}、|[①-⑳]|step\s*\d{1,2}\s*[:.)]|第[一二三四五六七八九十\d]{1,2}步|手順\s*\d))",
    )
});
static RATIONALE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\s*(?:\*\*|__)?(?:why|reason|because|原因|理由|为什么|なぜ)(?:\*\*|__)?\s*[:：]")
});
/// A path: segments joined by `/` (`src/main.rs`, `web/`).
static PATH: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:~|\.{1,2})?/?[\w.@-]+(?:/[\w.@-]+)*/?$"));
static EXTENSION: LazyLock<Regex> = LazyLock::new(|| re(r"\.[A-Za-z][A-Za-z0-9]{0,5}$"));
static URL: LazyLock<Regex> = LazyLock::new(|| re(r"[a-zA-Z][\w+.-]*://\S+"));
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"`([^`\n]+)`|([^\s`()\[\]<>,;:，。、：；（）「」]+)"));

/// A memory's body, classified line by line.
#[derive(Debug)]
pub(super) struct Body<'a> {
    /// The body as written.
    pub(super) text: &'a str,
    /// Its lines.
    pub(super) lines: Vec<Line<'a>>,
}

impl<'a> Body<'a> {
    /// Classifies the lines of `body`; `masked` is `mask_code(body)`.
    pub(super) fn new(body: &'a str, masked: &'a str) -> Self {
        debug_assert_eq!(masked.len(), body.len());
        let mut lines = Vec::new();
        let mut fence: Option<&str> = None;
        let mut in_list = false;
        let mut in_rationale = false;
        let mut previous = Kind::Blank;
        for ((at, text), (_, prose)) in lines_with_offsets(body).zip(lines_with_offsets(masked)) {
            let trimmed = text.trim_start();
            let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
            let kind = match (fence, marker) {
                (None, Some(m)) => {
                    fence = Some(m);
                    Kind::Fence
                }
                (Some(open), Some(m)) if open == m => {
                    fence = None;
                    Kind::Fence
                }
                (_, _) if trimmed.is_empty() => Kind::Blank,
                (Some(_), _) => Kind::FencedCode,
                (None, None) if text.contains('├') || text.contains('└') => Kind::Tree,
                (None, None)
                    if (text.starts_with("    ") || text.starts_with('\t'))
                        && !in_list
                        && matches!(previous, Kind::Blank | Kind::IndentedCode) =>
                {
                    Kind::IndentedCode
                }
                (None, None) => Kind::Text,
            };
            let item = if kind == Kind::Text {
                ITEM.captures(text).map(|c| {
                    if let Some(done) = c.name("done") {
                        Item::Task(done.as_str() != " ")
                    } else if c.name("ordered").is_some() {
                        Item::Ordered
                    } else {
                        Item::Bullet
                    }
                })
            } else {
                None
            };
            if kind == Kind::Text {
                // A list goes on through its indented continuation lines.
                in_list = item.is_some() || (in_list && text.starts_with([' ', '\t']));
            }
            match kind {
                Kind::Blank => in_rationale = false,
                Kind::Text if RATIONALE.is_match(text) => in_rationale = true,
                _ => {}
            }
            lines.push(Line {
                at,
                text,
                prose: if kind == Kind::Text { prose } else { "" },
                kind,
                item,
                rationale: in_rationale && kind == Kind::Text,
            });
            previous = kind;
        }
        Body { text: body, lines }
    }

    /// The non-blank lines (a code fence's markers are lines too).
    pub(super) fn filled(&self) -> impl Iterator<Item = &Line<'a>> {
        self.lines.iter().filter(|l| l.kind != Kind::Blank)
    }

    /// The share of the non-blank lines for which `pred` holds, and how
    /// many lines that is.
    pub(super) fn share(&self, pred: impl Fn(&Line<'a>) -> bool) -> (usize, f64) {
        let (mut n, mut total) = (0_usize, 0_usize);
        for line in self.filled() {
            total += 1;
            n += usize::from(pred(line));
        }
        #[allow(clippy::cast_precision_loss, reason = "line counts are small")]
        let share = n as f64 / total.max(1) as f64;
        (n, share)
    }

    /// Whether the line is an entry of a file listing: a list item that
    /// starts with a path, a line of a tree drawing, or a line of a code
    /// block that starts with a path.
    pub(super) fn is_path_entry(line: &Line<'_>) -> bool {
        if line.kind == Kind::Tree || line.text.contains(['├', '└']) {
            return true;
        }
        let rest = match (line.kind, line.item) {
            (Kind::Text, Some(_)) => ITEM.replace(line.text, ""),
            (Kind::FencedCode | Kind::IndentedCode, _) => line.text.into(),
            _ => return false,
        };
        TOKEN
            .captures(rest.trim_start())
            .filter(|c| c.get(0).is_some_and(|m| m.start() == 0))
            .is_some_and(|c| match (c.get(1), c.get(2)) {
                (Some(quoted), _) => is_path(quoted.as_str(), true),
                (None, Some(bare)) => is_path(bare.as_str(), false),
                (None, None) => false,
            })
    }

    /// The distinct paths the body names, in code spans or bare; URLs do
    /// not count.
    pub(super) fn paths(&self) -> BTreeSet<String> {
        let text = URL.replace_all(self.text, " ");
        let mut out = BTreeSet::new();
        for c in TOKEN.captures_iter(&text) {
            let (token, quoted) = match (c.get(1), c.get(2)) {
                (Some(q), _) => (q.as_str(), true),
                (None, Some(bare)) => (bare.as_str().trim_end_matches(['.', '!', '?']), false),
                (None, None) => continue,
            };
            if is_path(token, quoted) {
                out.insert(token.trim_end_matches('/').to_owned());
            }
        }
        out
    }
}

/// Whether `token` is a path. Bare words with a slash are often not
/// (`and/or`, `CI/CD`), so a bare token must look like one: a file
/// extension, a trailing slash or three segments.
fn is_path(token: &str, quoted: bool) -> bool {
    if !token.contains('/')
        || !PATH.is_match(token)
        || !token.bytes().any(|b| b.is_ascii_alphabetic())
    {
        return false;
    }
    quoted
        || token.ends_with('/')
        || EXTENSION.is_match(token)
        || token.trim_matches('/').matches('/').count() >= 2
}

/// Classifies `body`, keeping the masked text alive alongside.
pub(super) fn with_body<T>(body: &str, f: impl FnOnce(&Body<'_>) -> T) -> T {
    let masked = mask_code(body);
    f(&Body::new(body, &masked))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(body: &str) -> Vec<(Kind, Option<Item>, bool)> {
        with_body(body, |b| {
            b.lines
                .iter()
                .map(|l| (l.kind, l.item, l.rationale))
                .collect()
        })
    }

    #[test]
    fn indented_code_needs_a_blank_line_and_no_list() {
        let k =
            kinds("Like this:\n\n    let a = 1;\n    a\nText\n- item\n\n    more of the item\n");
        assert_eq!(k[2].0, Kind::IndentedCode);
        assert_eq!(k[3].0, Kind::IndentedCode);
        assert_eq!(k[4].0, Kind::Text);
        assert_eq!(k[5].1, Some(Item::Bullet));
        assert_eq!(k[7].0, Kind::Text, "a list item's continuation");
        let k = kinds("para\n    continued\n");
        assert_eq!(k[1].0, Kind::Text, "a paragraph's continuation");
    }

    #[test]
    fn items_and_rationale() {
        let k = kinds("1. a\n2) b\n- [ ] c\n- [x] d\n3、e\n\n**Why:** x\nand y\n\nz\n");
        assert_eq!(k[0].1, Some(Item::Ordered));
        assert_eq!(k[1].1, Some(Item::Ordered));
        assert_eq!(k[2].1, Some(Item::Task(false)));
        assert_eq!(k[3].1, Some(Item::Task(true)));
        assert_eq!(k[4].1, Some(Item::Ordered));
        assert!(k[6].2 && k[7].2 && !k[9].2);
    }

    #[test]
    fn paths_want_to_look_like_paths() {
        let body = "See `docs/adr/0007.md`, src/main.rs, web/src/pages/ and and/or, CI/CD, https://x.example/a/b.html, `type/topic`.";
        let masked = mask_code(body);
        let paths = Body::new(body, &masked).paths();
        let want: BTreeSet<String> = [
            "docs/adr/0007.md",
            "src/main.rs",
            "web/src/pages",
            "type/topic",
        ]
        .map(str::to_owned)
        .into();
        assert_eq!(paths, want);
    }
}
