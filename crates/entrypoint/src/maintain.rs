//! Adding, replacing and removing one memory's line in the index without
//! disturbing the others (SPEC R3.4, R3.5).

use crate::EntrypointError;
use crate::link::{Resolved, find_link, is_external, resolve};

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
    /// Line breaks in the title and hook become spaces, and backslashes and
    /// brackets in the title are escaped, so the result is always exactly one line with one
    /// link.
    ///
    /// ```
    /// use memdir_entrypoint::IndexEntry;
    /// let e = IndexEntry { title: "No DB mocks".into(), file: "no-db-mocking.md".into(), hook: "tests hit a real database".into() };
    /// assert_eq!(e.to_line()?, "- [No DB mocks](no-db-mocking.md) — tests hit a real database");
    /// # Ok::<(), memdir_entrypoint::EntrypointError>(())
    /// ```
    pub fn to_line(&self) -> Result<String, EntrypointError> {
        self.resolved_file()?;
        let target = self.file.as_str();
        let mut title = String::new();
        for c in one_line(&self.title).chars() {
            if matches!(c, '\\' | '[' | ']') {
                title.push('\\');
            }
            title.push(c);
        }
        let target = if target.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            format!("<{target}>")
        } else {
            target.to_owned()
        };
        let hook = one_line(&self.hook);
        Ok(if hook.is_empty() {
            format!("- [{title}]({target})")
        } else {
            format!("- [{title}]({target}) — {hook}")
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
        if file.contains(['\n', '\r', '<', '>', '\0']) {
            return Err(invalid(
                "the file name contains a line break, `<`, `>` or NUL",
            ));
        }
        match resolve(file) {
            Resolved::Inside(path) if !is_external(file) && !path.is_empty() => Ok(path),
            _ => Err(invalid("the file is not inside the memory folder")),
        }
    }
}

fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
    let Resolved::Inside(file) = resolve(file) else {
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
    let Resolved::Inside(file) = resolve(file) else {
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
