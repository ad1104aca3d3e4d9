//! Finding what a memory's body claims about the project.
//!
//! The rules, chosen so that a false "broken" is rarer than a missed
//! check (a note that cries wolf teaches the reader to ignore notes):
//!
//! - **Fenced code blocks** (```` ``` ```` or `~~~`) are skipped: they hold
//!   examples, shell sessions and snippets of code proposed or removed,
//!   not claims about the tree as it is.
//! - **Inline code** (one or more backticks) is read whole: a span that is
//!   one flag, one path or one code-looking identifier is a citation; any
//!   other span (a command with arguments, a type with generics, an
//!   English word) is not.
//! - **Prose** outside inline code gives paths only, and only tokens that
//!   contain `/` and end in a file name with an extension
//!   (`src/billing/retry.rs`, `.github/workflows/ci.yml`): `and/or`,
//!   `TCP/IP` and `Node.js` are not paths. Tokens are runs of ASCII path
//!   characters, so a path written against CJK text is still found.
//! - A **path** never is a URL (`scheme://`), a home path (`~/…`,
//!   `$HOME/…`), a glob (`*?[]{}`), or a path with a `..` segment; a
//!   first segment with a dot inside (`example.com/x.html`) is a host, not a
//!   folder. A bare file name (`retry.rs`, `package-lock.json`,
//!   `Makefile`) is not a citation: memories name files to avoid or to
//!   create as often as files that exist ("never commit
//!   `package-lock.json`"), and without a folder the name says nothing
//!   about where the file should be.
//! - An **identifier** (inline code only) is made of identifier characters
//!   joined by `::` or `.`, optionally followed by `()`, and looks like
//!   code: it has an `_`, a `::`, an inner capital after a lower-case
//!   letter (`camelCase`, `RetryPolicy`), or letters and digits mixed
//!   (`sha256`). `README`, `true` and `JSON` are not identifiers.
//! - A **flag** (inline code only) is `-x` or `--long-name`, optionally
//!   with `=value`; its name must start with a letter (`-1` is a number).
//!
//! Citations are deduplicated by kind and text (the first line is kept),
//! and at most [`MAX_CITATIONS`] are taken from one body.

/// The most citations taken from one memory body: a note about more would
/// be unreadable, and the check stays bounded.
pub const MAX_CITATIONS: usize = 64;

/// What a citation claims exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum CitationKind {
    /// A file or folder, relative to the project root (or absolute).
    Path,
    /// A name in the code (`RetryPolicy`, `parse_retry_after`).
    Identifier,
    /// A command-line flag (`--legacy-auth`).
    Flag,
}

/// One thing a memory claims about the project.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Citation {
    /// What kind of thing.
    pub kind: CitationKind,
    /// The text as the memory writes it (trailing `()` and punctuation
    /// removed).
    pub text: String,
    /// The 1-based line of the body it was first seen on.
    pub line: usize,
}

impl Citation {
    /// The literal a project file must contain for this citation to hold
    /// (identifiers and flags): the last code-looking segment of a
    /// qualified name (`Foo::bar_baz` → `bar_baz`, as definitions rarely
    /// spell the whole path), a flag without its `=value`.
    #[must_use]
    pub fn needle(&self) -> &str {
        match self.kind {
            CitationKind::Path => &self.text,
            CitationKind::Flag => self.text.split('=').next().unwrap_or(&self.text),
            CitationKind::Identifier => segments(&self.text)
                .rev()
                .find(|s| looks_like_code(s))
                .unwrap_or(&self.text),
        }
    }
}

/// The citations of a memory body, in order of first appearance.
///
/// ```
/// use memdir_citations::{CitationKind, extract_citations};
/// let found = extract_citations("Retries live in `src/billing/retry.rs` (`RetryPolicy`); run with `--legacy-auth`.");
/// let kinds: Vec<_> = found.iter().map(|c| (c.kind, c.text.as_str())).collect();
/// assert_eq!(kinds, [
///     (CitationKind::Path, "src/billing/retry.rs"),
///     (CitationKind::Identifier, "RetryPolicy"),
///     (CitationKind::Flag, "--legacy-auth"),
/// ]);
/// ```
#[must_use]
pub fn extract_citations(body: &str) -> Vec<Citation> {
    let mut out = Collector::default();
    let mut fence: Option<(char, usize)> = None;
    for (index, line) in body.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(marker) = fence_marker(trimmed) {
            match fence {
                None => fence = Some(marker),
                Some((c, n)) if c == marker.0 && marker.1 >= n && is_bare_fence(trimmed) => {
                    fence = None;
                }
                Some(_) => {}
            }
            continue;
        }
        if fence.is_some() {
            continue;
        }
        scan_line(line, index + 1, &mut out);
        if out.full() {
            break;
        }
    }
    out.found
}

#[derive(Default)]
struct Collector {
    found: Vec<Citation>,
    seen: std::collections::HashSet<(CitationKind, String)>,
}

impl Collector {
    fn push(&mut self, kind: CitationKind, text: &str, line: usize) {
        if self.full() || !self.seen.insert((kind, text.to_owned())) {
            return;
        }
        self.found.push(Citation {
            kind,
            text: text.to_owned(),
            line,
        });
    }

    fn full(&self) -> bool {
        self.found.len() >= MAX_CITATIONS
    }
}

/// The fence character and its run length when `line` opens or closes a
/// fenced block (three or more backticks or tildes).
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// A closing fence has nothing after its run but spaces.
fn is_bare_fence(line: &str) -> bool {
    line.trim_start_matches(['`', '~']).trim().is_empty()
}

/// One line outside fences: inline code spans, and the prose between them.
fn scan_line(line: &str, number: usize, out: &mut Collector) {
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        scan_prose(&rest[..open], number, out);
        let ticks = rest[open..].chars().take_while(|c| *c == '`').count();
        let after = &rest[open + ticks..];
        let closer = "`".repeat(ticks);
        let Some(close) = find_closer(after, &closer) else {
            // An unclosed span is literal text (CommonMark).
            rest = after;
            continue;
        };
        classify_span(after[..close].trim(), number, out);
        rest = &after[close + ticks..];
    }
    scan_prose(rest, number, out);
}

/// The start of a run of exactly `closer.len()` backticks in `text`.
fn find_closer(text: &str, closer: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(closer) {
        let start = from + at;
        let end = start + closer.len();
        let before_ok = start == 0 || !text[..start].ends_with('`');
        let after_ok = !text[end..].starts_with('`');
        if before_ok && after_ok {
            return Some(start);
        }
        from = end + text[end..].chars().take_while(|c| *c == '`').count();
    }
    None
}

fn classify_span(span: &str, number: usize, out: &mut Collector) {
    if span.is_empty() || span.chars().any(char::is_whitespace) {
        return;
    }
    if let Some(flag) = as_flag(span) {
        out.push(CitationKind::Flag, flag, number);
    } else if is_path(span, true) {
        out.push(CitationKind::Path, span, number);
    } else if let Some(ident) = as_identifier(span) {
        out.push(CitationKind::Identifier, ident, number);
    }
}

/// Runs of ASCII path characters in prose that are paths.
fn scan_prose(text: &str, number: usize, out: &mut Collector) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_path_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_path_byte(bytes[i]) {
            i += 1;
        }
        let before = text[..start].chars().next_back();
        if matches!(before, Some('~' | '$' | ':' | '%' | '=' | '\\' | '*' | '{')) {
            continue;
        }
        let after = &text[i..];
        if after.starts_with("://") || after.starts_with(['*', '?', '[', '{', '\\']) {
            // A URL's scheme, or a glob.
            continue;
        }
        let token = text[start..i].trim_end_matches(['.', ',', ')']);
        if is_path(token, false) {
            out.push(CitationKind::Path, token, number);
        }
    }
}

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'/' | b'+' | b'@')
}

/// Whether `token` names a file or folder of the project (see the module
/// doc); `in_code` allows bare file names.
fn is_path(token: &str, in_code: bool) -> bool {
    if token.is_empty()
        || token.contains("://")
        || token.starts_with(['~', '$', '-'])
        || token.contains([
            '*', '?', '[', ']', '{', '}', '\\', '`', '"', '\'', '<', '>', '|',
        ])
        || token.contains("//")
        || token.chars().any(char::is_control)
    {
        return false;
    }
    let relative = token.trim_start_matches('/');
    let mut parts = relative.split('/').filter(|s| !s.is_empty()).peekable();
    let Some(first) = parts.peek().copied() else {
        return false;
    };
    if relative.split('/').any(|s| s == ".." || s == ".") {
        return false;
    }
    let last = relative
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if token.contains('/') {
        // A host name is not a folder: `example.com/a.html`.
        if first.find('.').is_some_and(|at| at > 0) && relative.contains('/') {
            return false;
        }
        if in_code {
            return last.chars().any(char::is_alphanumeric);
        }
        return has_extension(last);
    }
    false
}

/// Whether a file name ends in `.ext`: a short alphanumeric extension.
fn has_extension(name: &str) -> bool {
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !ext.is_empty()
        && ext.len() <= 10
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
}

fn as_flag(span: &str) -> Option<&str> {
    let name = span.split('=').next()?;
    let body = name.strip_prefix("--").or_else(|| name.strip_prefix('-'))?;
    let first = body.chars().next()?;
    let ok = first.is_ascii_alphabetic()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !body.ends_with('-');
    ok.then_some(span)
}

fn as_identifier(span: &str) -> Option<&str> {
    let text = span.strip_suffix("()").unwrap_or(span);
    let text = text.trim_end_matches(['.', ',', ';', ':']);
    let valid = !text.is_empty()
        && segments(text).all(|s| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
        && text.chars().any(char::is_alphabetic);
    (valid && (text.contains("::") || segments(text).any(looks_like_code))).then_some(text)
}

/// The segments of a qualified name, split on `::` and `.`; an empty
/// segment (`a..b`, `::a`) is kept so that validity checks reject it.
fn segments(text: &str) -> std::vec::IntoIter<&str> {
    text.split("::")
        .flat_map(|s| s.split('.'))
        .collect::<Vec<_>>()
        .into_iter()
}

/// Whether one name segment looks like code rather than a word.
fn looks_like_code(segment: &str) -> bool {
    let has_letter = segment.chars().any(char::is_alphabetic);
    let underscore = segment.contains('_') && has_letter;
    let inner_capital = segment
        .chars()
        .zip(segment.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    let digits = has_letter && segment.chars().any(|c| c.is_ascii_digit());
    underscore || inner_capital || digits
}
