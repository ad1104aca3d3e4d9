//! Finding the markdown link of an index line, and resolving its target
//! inside the memory folder.

/// A markdown link `[title](target)` found in a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Link<'a> {
    /// The link text, as written (escapes kept).
    pub(crate) title: &'a str,
    /// The destination, as written, without `<…>` and without a link title.
    pub(crate) target: &'a str,
}

/// The first inline link of `line` that is not an image, if any.
pub(crate) fn find_link(line: &str) -> Option<Link<'_>> {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(rel) = line[from..].find('[') {
        let open = from + rel;
        from = open + 1;
        if open > 0 && matches!(bytes[open - 1], b'!' | b'\\') {
            continue;
        }
        let Some(close) = closing_bracket(line, open) else {
            continue;
        };
        if bytes.get(close + 1) != Some(&b'(') {
            continue;
        }
        if let Some(target) = destination(&line[close + 2..]) {
            return Some(Link {
                title: &line[open + 1..close],
                target,
            });
        }
    }
    None
}

/// The index of the `]` that closes the `[` at `open`, honouring nesting and
/// backslash escapes.
fn closing_bracket(line: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut escaped = false;
    for (i, b) in line.bytes().enumerate().skip(open) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The destination at the start of `rest` (just after `](`): `<…>` or a run
/// without spaces, balanced in parentheses, followed by an optional title
/// and the closing `)`.
fn destination(rest: &str) -> Option<&str> {
    let rest = rest.trim_start();
    if let Some(inner) = rest.strip_prefix('<') {
        let end = inner.find('>')?;
        return inner[end + 1..]
            .trim_start()
            .starts_with([')', '"', '\''])
            .then(|| &inner[..end]);
    }
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return (i > 0).then(|| &rest[..i]),
            ')' => depth -= 1,
            c if c.is_whitespace() => {
                let after = rest[i..].trim_start();
                return (i > 0 && (after.starts_with(')') || after.starts_with(['"', '\''])))
                    .then(|| &rest[..i]);
            }
            _ => {}
        }
    }
    None
}

/// Whether a link target points outside the folder by nature: a URL, a
/// mail address or an anchor in the same page.
pub(crate) fn is_external(target: &str) -> bool {
    target.starts_with('#') || target.starts_with("mailto:") || target.contains("://")
}

/// Where a link target points, relative to the memory folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// A path inside the folder, `/`-separated, without `.` or `..`.
    Inside(String),
    /// An absolute path, or one that climbs above the folder.
    Outside,
}

/// Resolves a link target as written in an index line: a `#fragment` or
/// `?query` is dropped, `%XX` escapes are decoded (names holding `%`, `#`
/// or `?` are written escaped, see [`encode_target`]), then `.` segments
/// are dropped and `..` segments applied.
///
/// A target whose `#…` or `?…` part ends in `.md` is a file name, not a
/// fragment: index lines written before names were escaped, and by hand,
/// link a file such as `deploy.md#x.md` so, and no anchor ends in `.md`.
pub(crate) fn resolve(target: &str) -> Resolved {
    let path = match target.find(['#', '?']) {
        Some(i) if !ends_with_md(&target[i..]) => &target[..i],
        _ => target,
    };
    normalize(&percent_decode(path))
}

/// Resolves a file name given by a caller (not a link target): nothing is
/// dropped or decoded, only `.` and `..` segments are applied, so that
/// `deploy.md#x.md` names that file and never `deploy.md`.
pub(crate) fn resolve_file(file: &str) -> Resolved {
    normalize(file)
}

/// The link target for `file`: `%`, `#` and `?` escaped as `%25`, `%23`
/// and `%3F`, so that [`resolve`] reads back exactly `file`.
pub(crate) fn encode_target(file: &str) -> std::borrow::Cow<'_, str> {
    if !file.contains(['%', '#', '?']) {
        return std::borrow::Cow::Borrowed(file);
    }
    let mut out = String::with_capacity(file.len() + 6);
    for c in file.chars() {
        match c {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn ends_with_md(s: &str) -> bool {
    s.len() >= 3 && s.is_char_boundary(s.len() - 3) && s[s.len() - 3..].eq_ignore_ascii_case(".md")
}

/// Decodes `%XX` escapes; a `%` not followed by two hex digits, or escapes
/// that do not decode to UTF-8, are kept as written.
fn percent_decode(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.contains('%') {
        return std::borrow::Cow::Borrowed(path);
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|b| (*b as char).to_digit(16)),
                bytes.get(i + 2).and_then(|b| (*b as char).to_digit(16)),
            )
        {
            out.push(u8::try_from(hi * 16 + lo).expect("two hex digits fit a byte"));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(decoded) => std::borrow::Cow::Owned(decoded),
        Err(_) => std::borrow::Cow::Borrowed(path),
    }
}

/// Applies `.` and `..` segments lexically; an absolute path, a drive, or
/// a climb above the folder is [`Resolved::Outside`].
fn normalize(path: &str) -> Resolved {
    if path.starts_with('/') || path.starts_with('\\') || path.get(1..2) == Some(":") {
        return Resolved::Outside;
    }
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Resolved::Outside;
                }
            }
            s => parts.push(s),
        }
    }
    Resolved::Inside(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expected: Option<(&str, &str)>) {
        let got = find_link(line).map(|l| (l.title, l.target));
        assert_eq!(got, expected, "line {line:?}");
    }

    #[test]
    fn finds_links() {
        check("- [Title](file.md) — hook", Some(("Title", "file.md")));
        check("- [A [nested] one](a.md)", Some(("A [nested] one", "a.md")));
        check("- [Esc \\] ok](b.md)", Some(("Esc \\] ok", "b.md")));
        check("- [Spaces](<my file.md>) x", Some(("Spaces", "my file.md")));
        check("- [Titled](c.md \"a title\")", Some(("Titled", "c.md")));
        check("- [Parens](d_(1).md)", Some(("Parens", "d_(1).md")));
        check("- ![img](e.png) then [real](f.md)", Some(("real", "f.md")));
        check("- [not a link] (g.md)", None);
        check("- [unclosed](h.md", None);
        check("plain text", None);
        check("- [](empty-title.md)", Some(("", "empty-title.md")));
        check("- [x]()", None);
    }

    #[test]
    fn resolves_inside_and_outside() {
        assert_eq!(resolve("a.md"), Resolved::Inside("a.md".into()));
        assert_eq!(
            resolve("./sub/../b.md#part"),
            Resolved::Inside("b.md".into())
        );
        assert_eq!(resolve("../x.md"), Resolved::Outside);
        assert_eq!(resolve("sub/../../x.md"), Resolved::Outside);
        assert_eq!(resolve("/etc/passwd"), Resolved::Outside);
        assert_eq!(resolve("C:/x.md"), Resolved::Outside);
        assert!(is_external("https://example.com/a.md"));
        assert!(!is_external("a.md"));
    }

    #[test]
    fn names_with_fragment_characters_round_trip() {
        for file in [
            "deploy.md#x.md",
            "a?b.md",
            "100%.md",
            "%23.md",
            "sub#1/a.md",
            "a%2Fb.md",
        ] {
            let target = encode_target(file);
            assert!(!target.contains(['#', '?']), "{target}");
            assert_eq!(
                resolve(&target),
                Resolved::Inside(file.to_owned()),
                "{file}"
            );
            assert_eq!(resolve_file(file), Resolved::Inside(file.to_owned()));
        }
        // Fragments and queries of ordinary links are still dropped.
        assert_eq!(resolve("a.md#top"), Resolved::Inside("a.md".into()));
        assert_eq!(resolve("a.md?plain=1"), Resolved::Inside("a.md".into()));
        // A raw `#…` part ending in `.md` names a file, as older lines did.
        assert_eq!(
            resolve("deploy.md#x.md"),
            Resolved::Inside("deploy.md#x.md".into())
        );
        // Decoded traversal is still traversal.
        assert_eq!(resolve("%2e%2e/x.md"), Resolved::Outside);
        // Escapes that are not UTF-8 are kept as written.
        assert_eq!(resolve("a%ff.md"), Resolved::Inside("a%ff.md".into()));
    }
}
