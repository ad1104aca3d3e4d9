//! Adding, replacing and removing one memory's line in the index without
//! disturbing the others (SPEC R3.4, R3.5).

use crate::EntrypointError;
use crate::MAX_INDEX_LINE_CHARS;
use crate::link::{Resolved, encode_target, find_link, is_external, resolve, resolve_file};

/// One line of the index: `- [Title](file.md) — one-line hook`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// The memory's title, shown as the link text.
    pub title: String,
    /// The memory file, relative to the index's folder (`/`-separated).
    pub file: String,
    /// A one-line hook saying when the memory matters; may be empty.
    pub hook: String,
}

impl IndexEntry {
    /// Renders the entry as one index line, without a line end.
    ///
    /// Line breaks, tabs and other control characters in the title and
    /// hook become spaces, and backslashes and brackets in the title are
    /// escaped, so the result is always exactly one line with one link.
    /// `%`, `#` and `?` in the file name are escaped in the link target,
    /// so a name such as `deploy.md#x.md` never reads as a link to
    /// `deploy.md`. The line is kept within [`MAX_INDEX_LINE_CHARS`]
    /// characters (SPEC R3.4): a longer title or hook is shortened with
    /// `…` (the memory's file keeps the whole text), so that one entry can
    /// never push the others past the index's byte cut.
    ///
    /// ```
    /// use memdir_entrypoint::IndexEntry;
    /// let e = IndexEntry { title: "No DB mocks".into(), file: "no-db-mocking.md".into(), hook: "tests hit a real database".into() };
    /// assert_eq!(e.to_line()?, "- [No DB mocks](no-db-mocking.md) — tests hit a real database");
    /// let long = IndexEntry { hook: "x".repeat(30_000), ..e };
    /// assert!(long.to_line()?.chars().count() <= 200);
    /// # Ok::<(), memdir_entrypoint::EntrypointError>(())
    /// ```
    pub fn to_line(&self) -> Result<String, EntrypointError> {
        self.resolved_file()?;
        let target = encode_target(&self.file);
        let target = if target.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            format!("<{target}>")
        } else {
            target.into_owned()
        };
        let mut title = String::new();
        for c in shorten(&one_line(&self.title), MAX_TITLE_CHARS).chars() {
            if matches!(c, '\\' | '[' | ']') {
                title.push('\\');
            }
            title.push(c);
        }
        let head = format!("- [{title}]({target})");
        // What is left of the line's budget after the link and ` — `.
        let room = MAX_INDEX_LINE_CHARS.saturating_sub(head.chars().count() + 3);
        let hook = one_line(&self.hook);
        let hook = if room >= MIN_HOOK_CHARS {
            shorten(&hook, room)
        } else {
            String::new()
        };
        Ok(if hook.is_empty() {
            head
        } else {
            format!("{head} — {hook}")
        })
    }

    /// The file resolved inside the folder, refusing what cannot be a link
    /// target there.
    fn resolved_file(&self) -> Result<String, EntrypointError> {
        let invalid = |reason: &str| EntrypointError::InvalidEntry {
            file: self.file.clone(),
            reason: reason.to_owned(),
        };
        let file = self.file.as_str();
        if file.is_empty() {
            return Err(invalid("the file name is empty"));
        }
        if file.contains(|c: char| c.is_control() || c == '<' || c == '>') {
            return Err(invalid(
                "the file name contains a control character, `<` or `>`",
            ));
        }
        match resolve_file(file) {
            Resolved::Inside(path)
                if !file.starts_with("mailto:") && !file.contains("://") && !path.is_empty() =>
            {
                Ok(path)
            }
            _ => Err(invalid("the file is not inside the memory folder")),
        }
    }
}

/// The longest title an index line shows, in characters.
const MAX_TITLE_CHARS: usize = 80;

/// Below this many characters of room, a hook is left out rather than cut
/// to a stub.
const MIN_HOOK_CHARS: usize = 12;

/// `text` on one line: line breaks, tabs and other control characters, and
/// the bidirectional controls that could reorder what a reader sees,
/// become spaces; runs of white space become one.
fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control() || is_bidi_control(c))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The bidirectional embedding, override and isolate controls.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// `text` cut to at most `max` characters, ending in `…` when cut; the cut
/// falls after a word when one ends in the last fifth of the room.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let end = text
        .char_indices()
        .nth(max - 1)
        .map_or(text.len(), |(i, _)| i);
    let cut = &text[..end];
    let word_end = cut
        .rfind(' ')
        .filter(|&i| cut[..i].chars().count() >= max * 4 / 5);
    let cut = word_end.map_or(cut, |i| &cut[..i]).trim_end();
    format!("{cut}…")
}

/// The resolved file a line links to, if it is an index entry for a file
/// inside the folder.
fn linked_file(line: &str) -> Option<String> {
    let link = find_link(line)?;
    if is_external(link.target) {
        return None;
    }
    match resolve(link.target) {
        Resolved::Inside(path) => Some(path),
        Resolved::Outside => None,
    }
}

/// Splits text into lines that keep their line ends.
fn lines_with_ends(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n')
}

/// The line end the index uses: CRLF when its first line ends so.
fn line_end_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// Puts `entry`'s line into the index: replaces the first line that links
/// to the same file (keeping that line's position and line end), drops any
/// further lines linking to it, or appends the line at the end. Every other
/// line is kept byte for byte.
///
/// ```
/// use memdir_entrypoint::{upsert_entry, IndexEntry};
/// let index = "# Memory\n- [Old](a.md) — old hook\n- [B](b.md)\n";
/// let entry = IndexEntry { title: "New".into(), file: "a.md".into(), hook: "new hook".into() };
/// assert_eq!(upsert_entry(index, &entry)?, "# Memory\n- [New](a.md) — new hook\n- [B](b.md)\n");
/// # Ok::<(), memdir_entrypoint::EntrypointError>(())
/// ```
pub fn upsert_entry(index: &str, entry: &IndexEntry) -> Result<String, EntrypointError> {
    let line = entry.to_line()?;
    let file = entry.resolved_file()?;
    let mut out = String::with_capacity(index.len() + line.len() + 2);
    let mut placed = false;
    for old in lines_with_ends(index) {
        if linked_file(old).as_deref() == Some(file.as_str()) {
            if !placed {
                out.push_str(&line);
                out.push_str(&old[old.trim_end_matches(['\r', '\n']).len()..]);
                placed = true;
            }
            continue;
        }
        out.push_str(old);
    }
    if !placed {
        let end = line_end_of(index);
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(end);
        }
        out.push_str(&line);
        out.push_str(end);
    }
    Ok(out)
}

/// Puts every entry's line into the index in one pass: as
/// [`upsert_entry`] for each, in order, but linear in the index and the
/// entries together, for a batch such as an import of a thousand
/// memories. An entry whose file has a line already replaces the first of
/// its lines (further ones are dropped); the others are appended in their
/// order. A later entry for the same file wins, in the place of the
/// first.
///
/// ```
/// use memdir_entrypoint::{upsert_entries, IndexEntry};
/// let e = |t: &str, f: &str| IndexEntry { title: t.into(), file: f.into(), hook: String::new() };
/// let index = "# Memory\n- [Old](a.md)\n";
/// let out = upsert_entries(index, &[e("B", "b.md"), e("A", "a.md")])?;
/// assert_eq!(out, "# Memory\n- [A](a.md)\n- [B](b.md)\n");
/// # Ok::<(), memdir_entrypoint::EntrypointError>(())
/// ```
pub fn upsert_entries(index: &str, entries: &[IndexEntry]) -> Result<String, EntrypointError> {
    let mut lines: std::collections::HashMap<String, (usize, String)> =
        std::collections::HashMap::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let line = entry.to_line()?;
        lines
            .entry(entry.resolved_file()?)
            .and_modify(|(_, old)| old.clone_from(&line))
            .or_insert((i, line));
    }
    let mut out = String::with_capacity(index.len() + lines.len() * 100);
    let mut placed = std::collections::HashSet::new();
    for old in lines_with_ends(index) {
        let Some(file) = linked_file(old) else {
            out.push_str(old);
            continue;
        };
        match lines.get(&file) {
            Some((_, line)) => {
                if placed.insert(file) {
                    out.push_str(line);
                    out.push_str(&old[old.trim_end_matches(['\r', '\n']).len()..]);
                }
            }
            None => out.push_str(old),
        }
    }
    let mut rest: Vec<&(usize, String)> = lines
        .iter()
        .filter(|(file, _)| !placed.contains(*file))
        .map(|(_, v)| v)
        .collect();
    rest.sort_unstable_by_key(|(i, _)| *i);
    let end = line_end_of(index);
    for (_, line) in rest {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(end);
        }
        out.push_str(line);
        out.push_str(end);
    }
    Ok(out)
}

/// The first index line that links to `file`, read back as an entry: its
/// title unescaped, and its hook (the text after ` — `, or empty). `None`
/// when no line links to the file.
///
/// ```
/// use memdir_entrypoint::{find_entry, IndexEntry};
/// let index = "# Memory\n- [Use \\[pnpm\\]](a.md) — the lockfile\n";
/// let found = find_entry(index, "a.md").expect("a line links to a.md");
/// assert_eq!(found, IndexEntry { title: "Use [pnpm]".into(), file: "a.md".into(), hook: "the lockfile".into() });
/// ```
#[must_use]
pub fn find_entry(index: &str, file: &str) -> Option<IndexEntry> {
    let Resolved::Inside(file) = resolve_file(file) else {
        return None;
    };
    lines_with_ends(index).find_map(|line| {
        if linked_file(line).as_deref() != Some(file.as_str()) {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        let link = find_link(line)?;
        let mut title = String::with_capacity(link.title.len());
        let mut escaped = false;
        for c in link.title.chars() {
            if escaped || c != '\\' {
                title.push(c);
                escaped = false;
            } else {
                escaped = true;
            }
        }
        // The hook follows the link's closing parenthesis and its dash;
        // the title may hold a dash of its own.
        let target_end = link.target.as_ptr() as usize - line.as_ptr() as usize + link.target.len();
        let after = &line[target_end..];
        let after = after.find(')').map_or("", |i| &after[i + 1..]).trim_start();
        let hook = after.strip_prefix('\u{2014}').unwrap_or(after).trim();
        Some(IndexEntry {
            title,
            file: file.clone(),
            hook: hook.to_owned(),
        })
    })
}

/// Removes every line that links to `file`, keeping all other lines byte
/// for byte. Returns the new index and how many lines were removed.
#[must_use]
pub fn remove_entry(index: &str, file: &str) -> (String, usize) {
    let Resolved::Inside(file) = resolve_file(file) else {
        return (index.to_owned(), 0);
    };
    let mut removed = 0;
    let kept: String = lines_with_ends(index)
        .filter(|line| {
            let hit = linked_file(line).as_deref() == Some(file.as_str());
            removed += usize::from(hit);
            !hit
        })
        .collect();
    (kept, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(title: &str, file: &str, hook: &str) -> IndexEntry {
        IndexEntry {
            title: title.into(),
            file: file.into(),
            hook: hook.into(),
        }
    }

    #[test]
    fn find_entry_reads_back_what_upsert_wrote() {
        let e = entry(
            "a [b] \\c \u{2014} d",
            "x.md",
            "when it matters \u{2014} twice",
        );
        let index = upsert_entry("# Memory\n- [Y](y.md)\n", &e).unwrap();
        assert_eq!(find_entry(&index, "x.md"), Some(e));
        assert_eq!(
            find_entry(&index, "./x.md").map(|e| e.title),
            Some("a [b] \\c \u{2014} d".to_owned())
        );
        assert_eq!(find_entry(&index, "missing.md"), None);
        assert_eq!(find_entry(&index, "../x.md"), None);
        let bare = find_entry("- [T](t.md)\r\n", "t.md").unwrap();
        assert_eq!((bare.title.as_str(), bare.hook.as_str()), ("T", ""));
    }

    #[test]
    fn appends_when_absent() {
        let e = entry("A", "a.md", "h");
        assert_eq!(upsert_entry("", &e).unwrap(), "- [A](a.md) — h\n");
        assert_eq!(upsert_entry("# M", &e).unwrap(), "# M\n- [A](a.md) — h\n");
        assert_eq!(
            upsert_entry("# M\r\nx\r\n", &e).unwrap(),
            "# M\r\nx\r\n- [A](a.md) — h\r\n"
        );
    }

    #[test]
    fn replaces_in_place_keeping_crlf_and_dropping_duplicates() {
        let index = "x\r\n- [A1](./a.md)\r\n- [B](b.md)\r\n- [A2](a.md#top)\r\nlast";
        let out = upsert_entry(index, &entry("A", "a.md", "")).unwrap();
        assert_eq!(out, "x\r\n- [A](a.md)\r\n- [B](b.md)\r\nlast");
    }

    #[test]
    fn escapes_and_flattens() {
        let e = entry("a [b]\nc", "my notes.md", "one\n two");
        assert_eq!(
            e.to_line().unwrap(),
            "- [a \\[b\\] c](<my notes.md>) — one two"
        );
        // The rendered line is found again by the link parser.
        let index = upsert_entry("", &e).unwrap();
        assert_eq!(remove_entry(&index, "my notes.md"), (String::new(), 1));
    }

    #[test]
    fn refuses_bad_files() {
        for file in [
            "",
            "../x.md",
            "/etc/passwd",
            "a\nb.md",
            "https://x.y/a.md",
            "a<b>.md",
        ] {
            let err = upsert_entry("", &entry("t", file, "")).unwrap_err();
            assert!(
                matches!(err, EntrypointError::InvalidEntry { .. }),
                "{file:?}: {err}"
            );
        }
    }

    /// A name holding `#` or `?` is a file of its own: its line neither
    /// replaces nor is removed with the line of the name before the `#`.
    #[test]
    fn fragment_characters_in_names_do_not_touch_other_lines() {
        let index = "- [Deploy](deploy.md) — how we ship\n";
        let odd = entry("deploy.md#x", "deploy.md#x.md", "an odd name");
        let both = upsert_entry(index, &odd).unwrap();
        assert_eq!(
            both,
            "- [Deploy](deploy.md) — how we ship\n- [deploy.md#x](deploy.md%23x.md) — an odd name\n"
        );
        assert_eq!(find_entry(&both, "deploy.md").unwrap().title, "Deploy");
        assert_eq!(
            find_entry(&both, "deploy.md#x.md").unwrap().title,
            "deploy.md#x"
        );
        assert_eq!(remove_entry(&both, "deploy.md#zzz.md"), (both.clone(), 0));
        assert_eq!(remove_entry(&both, "a?b.md").1, 0);
        let (left, n) = remove_entry(&both, "deploy.md#x.md");
        assert_eq!((left.as_str(), n), (index, 1));
        // A line an older version wrote unescaped is still that file's.
        let legacy = "- [Deploy](deploy.md)\n- [x](deploy.md#x.md)\n";
        assert_eq!(
            remove_entry(legacy, "deploy.md#x.md").0,
            "- [Deploy](deploy.md)\n"
        );
        assert_eq!(
            remove_entry(legacy, "deploy.md").0,
            "- [x](deploy.md#x.md)\n"
        );
    }

    /// One long title or description never makes a line that eats the
    /// index's byte budget, and control characters never reach it.
    #[test]
    fn lines_stay_short_and_printable() {
        let long = entry(&"t".repeat(500), "a.md", &"word ".repeat(6_000));
        let line = long.to_line().unwrap();
        assert!(
            line.chars().count() <= MAX_INDEX_LINE_CHARS,
            "{}",
            line.len()
        );
        assert!(line.contains("…"));
        let found = find_entry(&upsert_entry("", &long).unwrap(), "a.md").unwrap();
        assert!(found.title.starts_with("ttt") && found.hook.starts_with("word word"));
        let odd = entry("t\u{1b}]0;pwned\u{7}x", "b.md", "a\u{0}b\u{202e}c\td");
        assert_eq!(odd.to_line().unwrap(), "- [t \\]0;pwned x](b.md) — a b c d");
        // A very long file name leaves no room for a hook, never a stub.
        let name = format!("{}.md", "n".repeat(190));
        let line = entry("N", &name, "hook").to_line().unwrap();
        assert_eq!(line, format!("- [N]({name})"));
    }

    /// A batch gives the same index as one upsert after another.
    #[test]
    fn a_batch_equals_upserts_in_order() {
        let index = "# M\r\n- [A1](a.md)\r\n- [B](b.md)\r\n- [A2](./a.md)\r\nlast";
        let entries = [
            entry("C", "c.md", "c"),
            entry("A", "a.md", "a"),
            entry("D#", "d#.md", ""),
            entry("C2", "c.md", "later wins"),
        ];
        let mut one_by_one = index.to_owned();
        for e in &entries {
            one_by_one = upsert_entry(&one_by_one, e).unwrap();
        }
        assert_eq!(upsert_entries(index, &entries).unwrap(), one_by_one);
        assert_eq!(upsert_entries("", &[]).unwrap(), "");
    }

    #[test]
    fn removes_only_the_memory_lines() {
        let index = "# M\n- [A](a.md)\n- [B](b.md)\n- [A again](sub/../a.md)\n";
        assert_eq!(
            remove_entry(index, "a.md"),
            ("# M\n- [B](b.md)\n".to_owned(), 2)
        );
        assert_eq!(remove_entry(index, "zzz.md"), (index.to_owned(), 0));
    }
}
