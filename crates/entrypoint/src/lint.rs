//! Linting MEMORY.md against its folder (SPEC R3.4, R3.5).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs;
use std::path::Path;

use memdir_memtypes::walk::{EntryKind, Walk, WalkError};

use crate::link::{Resolved, find_link, is_external, resolve};
use crate::{ENTRYPOINT_NAME, EntrypointError, MAX_INDEX_LINE_CHARS};

/// The most of a memory file read to find its supersession keys.
const MAX_MEMORY_HEAD_BYTES: u64 = 256 * 1024;

/// What kind of problem a [`Lint`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LintKind {
    /// A line longer than [`MAX_INDEX_LINE_CHARS`] characters.
    LongLine,
    /// A link to a file that does not exist in the folder.
    MissingFile,
    /// A memory file in the folder that no line links to.
    UnlinkedFile,
    /// A second line linking to a file an earlier line already links to.
    DuplicateLink,
    /// A link that leaves the memory folder (absolute, or `..` above it).
    LinkOutsideFolder,
    /// A frontmatter block at the top of MEMORY.md, which is an index and
    /// takes none.
    Frontmatter,
    /// Bytes that are not UTF-8; they reach the prompt as U+FFFD.
    InvalidUtf8,
    /// A link to a memory another memory replaced (`supersedes:`): the
    /// line keeps an outdated memory in the prompt.
    SupersededMemory,
}

impl LintKind {
    /// The kind's stable kebab-case name, as used in JSON output.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            LintKind::LongLine => "long-line",
            LintKind::MissingFile => "missing-file",
            LintKind::UnlinkedFile => "unlinked-file",
            LintKind::DuplicateLink => "duplicate-link",
            LintKind::LinkOutsideFolder => "link-outside-folder",
            LintKind::Frontmatter => "frontmatter",
            LintKind::InvalidUtf8 => "invalid-utf8",
            LintKind::SupersededMemory => "superseded-memory",
        }
    }
}

impl fmt::Display for LintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found in an index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// 1-based line of MEMORY.md, or `None` for a problem of the folder (an
    /// unlinked file).
    pub line: Option<usize>,
    /// What kind of problem it is.
    pub kind: LintKind,
    /// A one-line explanation naming the file or the limit.
    pub message: String,
}

/// The files of a memory folder, as far as the index lint needs them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderListing {
    /// Every regular file (or link to one) below the folder, relative and
    /// `/`-separated; hidden entries are left out.
    files: BTreeSet<String>,
    /// Memory files another memory replaced, each with its replacement.
    superseded: BTreeMap<String, String>,
}

impl FolderListing {
    /// Lists a memory folder recursively with the one folder walk of
    /// [`memdir_memtypes::walk`]. Hidden files and folders (memdir's
    /// temporary files, `.conflicts/`, sync state) are left out, a link to
    /// a file counts as the file, links to folders are not followed, and
    /// names that are not UTF-8 are passed over.
    pub fn read(folder: &Path) -> Result<Self, EntrypointError> {
        let mut listing = FolderListing::default();
        listing.walk(folder)?;
        Ok(listing)
    }

    /// A listing made from relative `/`-separated paths, for callers that
    /// already know the folder's files.
    pub fn from_paths<I, S>(paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        FolderListing {
            files: paths.into_iter().map(Into::into).collect(),
            superseded: BTreeMap::new(),
        }
    }

    /// The same listing, knowing which memories others replaced (what
    /// [`FolderListing::read`] finds in the files' frontmatter).
    #[must_use]
    pub fn with_superseded(mut self, superseded: BTreeMap<String, String>) -> Self {
        self.superseded = superseded;
        self
    }

    /// The memory files another memory replaced.
    pub fn superseded(&self) -> impl Iterator<Item = &str> {
        self.superseded.keys().map(String::as_str)
    }

    /// The memory that replaced `path`, when one did.
    #[must_use]
    pub fn superseded_by(&self, path: &str) -> Option<&str> {
        self.superseded.get(path).map(String::as_str)
    }

    fn walk(&mut self, folder: &Path) -> Result<(), EntrypointError> {
        for item in Walk::new(folder) {
            let entry = match item {
                Ok(entry) => entry,
                // A name that is not UTF-8 cannot be linked from a UTF-8
                // index; it is skipped rather than failing the whole lint.
                Err(WalkError::NonUtf8Name { .. }) => continue,
                Err(e) => {
                    return Err(EntrypointError::ReadFolder {
                        path: e.path().to_owned(),
                        source: e.into_io_error(),
                    });
                }
            };
            let is_file = match entry.kind() {
                EntryKind::File => true,
                EntryKind::Symlink => fs::metadata(entry.path()).is_ok_and(|m| m.is_file()),
                _ => false,
            };
            if is_file {
                self.files.insert(entry.rel().to_owned());
            }
        }
        let claims: Vec<(String, Vec<String>, Option<String>)> = self
            .memory_files()
            .filter_map(|file| {
                // The frontmatter is at the head: a long memory is read
                // only that far.
                let bytes =
                    memdir_memtypes::read_regular_prefix(&folder.join(file), MAX_MEMORY_HEAD_BYTES)
                        .ok()?;
                let parsed = memdir_memtypes::parse_memory(&bytes);
                (!parsed.supersedes.is_empty() || parsed.superseded_by.is_some())
                    .then(|| (file.to_owned(), parsed.supersedes, parsed.superseded_by))
            })
            .collect();
        self.superseded = memdir_memtypes::superseded_map(
            claims
                .iter()
                .map(|(f, s, b)| (f.as_str(), s.clone(), b.clone())),
        );
        Ok(())
    }

    /// Whether the folder holds `path`.
    #[must_use]
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Memory files that the folder's own MEMORY.md should link to: every
    /// `*.md` file except index files, files in a subfolder that has its own
    /// MEMORY.md, files under `team/` (the team folder, indexed by its own
    /// MEMORY.md, which a pull may not have brought yet), and daily logs
    /// under `logs/` (folded into the index by distillation, not linked one
    /// by one).
    pub fn memory_files(&self) -> impl Iterator<Item = &str> {
        let index_dirs: Vec<&str> = self
            .files
            .iter()
            .filter_map(|f| f.strip_suffix(ENTRYPOINT_NAME).filter(|d| d.ends_with('/')))
            .collect();
        self.files.iter().map(String::as_str).filter(move |f| {
            Path::new(f).extension().is_some_and(|e| e == "md")
                && f.rsplit('/').next().is_none_or(|n| n != ENTRYPOINT_NAME)
                && !f.starts_with("logs/")
                && !f.starts_with("team/")
                && !index_dirs.iter().any(|d| f.starts_with(d))
        })
    }
}

/// Lints an index. `folder` is the listing of the index's folder; without it
/// only the checks of the text itself run (long lines, duplicates, links
/// outside, frontmatter).
///
/// ```
/// use memdir_entrypoint::{lint_index, FolderListing, LintKind};
/// let folder = FolderListing::from_paths(["MEMORY.md", "a.md", "b.md"]);
/// let lints = lint_index("- [A](a.md)\n- [C](c.md)\n", Some(&folder));
/// let kinds: Vec<_> = lints.iter().map(|l| l.kind).collect();
/// assert_eq!(kinds, [LintKind::MissingFile, LintKind::UnlinkedFile]);
/// ```
#[must_use]
pub fn lint_index(content: &str, folder: Option<&FolderListing>) -> Vec<Lint> {
    let mut lints = Vec::new();
    let parsed = memdir_memtypes::parse_memory_str(content);
    let unclosed = parsed
        .diagnostics
        .iter()
        .any(|d| matches!(d, memdir_memtypes::Diagnostic::UnclosedFrontmatter));
    if parsed.has_frontmatter && !unclosed {
        lints.push(Lint {
            line: Some(1),
            kind: LintKind::Frontmatter,
            message: "MEMORY.md is an index and takes no frontmatter; keep metadata in topic files"
                .to_owned(),
        });
    }

    let mut first_link: HashMap<String, usize> = HashMap::new();
    for (i, raw_line) in content.split('\n').enumerate() {
        let line_no = i + 1;
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        let chars = line.chars().count();
        if chars > MAX_INDEX_LINE_CHARS {
            lints.push(Lint {
                line: Some(line_no),
                kind: LintKind::LongLine,
                message: format!(
                    "line is {chars} characters (limit {MAX_INDEX_LINE_CHARS}); keep each entry to one short line and move detail into its topic file"
                ),
            });
        }
        let Some(link) = find_link(line) else {
            continue;
        };
        if is_external(link.target) {
            continue;
        }
        let Resolved::Inside(path) = resolve(link.target) else {
            lints.push(Lint {
                line: Some(line_no),
                kind: LintKind::LinkOutsideFolder,
                message: format!("link to {} leaves the memory folder", link.target),
            });
            continue;
        };
        if let Some(first) = first_link.get(&path) {
            lints.push(Lint {
                line: Some(line_no),
                kind: LintKind::DuplicateLink,
                message: format!("duplicate link to {path} (first on line {first})"),
            });
            continue;
        }
        first_link.insert(path.clone(), line_no);
        if let Some(folder) = folder
            && !folder.contains(&path)
        {
            lints.push(Lint {
                line: Some(line_no),
                kind: LintKind::MissingFile,
                message: format!("link to {path}, which does not exist"),
            });
        } else if let Some(by) = folder.and_then(|f| f.superseded_by(&path)) {
            lints.push(Lint {
                line: Some(line_no),
                kind: LintKind::SupersededMemory,
                message: format!("link to {path}, which {by} supersedes; remove the line"),
            });
        }
    }

    if let Some(folder) = folder {
        for file in unlinked(folder, &first_link) {
            lints.push(Lint {
                line: None,
                kind: LintKind::UnlinkedFile,
                message: format!("{file} is a memory file that no index line links to"),
            });
        }
    }
    lints
}

/// The memory files of `folder` that no line of the index `content` links
/// to, in the folder's order: what `memdir index fix` gives a line.
///
/// ```
/// use memdir_entrypoint::{unlinked_files, FolderListing};
/// let folder = FolderListing::from_paths(["MEMORY.md", "a.md", "b.md", "team/MEMORY.md", "team/t.md"]);
/// assert_eq!(unlinked_files("- [A](a.md)\n", &folder), ["b.md"]);
/// ```
#[must_use]
pub fn unlinked_files<'a>(content: &str, folder: &'a FolderListing) -> Vec<&'a str> {
    let mut linked = HashMap::new();
    for (i, raw_line) in content.split('\n').enumerate() {
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        if let Some(link) = find_link(line)
            && !is_external(link.target)
            && let Resolved::Inside(path) = resolve(link.target)
        {
            linked.entry(path).or_insert(i + 1);
        }
    }
    unlinked(folder, &linked)
}

/// The memory files no line links to, but for those another memory
/// replaced: a superseded memory is meant to have no line.
fn unlinked<'a>(folder: &'a FolderListing, linked: &HashMap<String, usize>) -> Vec<&'a str> {
    folder
        .memory_files()
        .filter(|file| !linked.contains_key(*file) && folder.superseded_by(file).is_none())
        .collect()
}

/// Decodes an index's bytes for [`truncate_entrypoint_content`] and
/// [`lint_index`]: invalid UTF-8 is replaced by U+FFFD (which is what the
/// model would see) and reported as an [`LintKind::InvalidUtf8`] lint on the
/// line of the first bad byte.
///
/// [`truncate_entrypoint_content`]: crate::truncate_entrypoint_content
#[must_use]
pub fn decode_index(bytes: &[u8]) -> (Cow<'_, str>, Option<Lint>) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), None),
        Err(e) => {
            let line = bytes[..e.valid_up_to()].split(|&b| b == b'\n').count();
            let lint = Lint {
                line: Some(line),
                kind: LintKind::InvalidUtf8,
                message: "bytes that are not UTF-8; the model sees them as U+FFFD".to_owned(),
            };
            (String::from_utf8_lossy(bytes), Some(lint))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(content: &str, folder: &[&str]) -> Vec<(Option<usize>, &'static str)> {
        let folder = FolderListing::from_paths(folder.iter().copied());
        lint_index(content, Some(&folder))
            .iter()
            .map(|l| (l.line, l.kind.as_str()))
            .collect()
    }

    #[test]
    fn decoding_reports_the_line_of_the_first_bad_byte() {
        let (text, lint) = decode_index(b"a\nb\n\xffc\n\xfe");
        assert_eq!(text, "a\nb\n\u{fffd}c\n\u{fffd}");
        assert_eq!(
            lint.map(|l| (l.line, l.kind)),
            Some((Some(3), LintKind::InvalidUtf8))
        );
        assert_eq!(decode_index(b"fine").1, None);
    }

    #[test]
    fn clean_index_has_no_lints() {
        assert_eq!(kinds("# M\n- [A](a.md) — x\n", &["MEMORY.md", "a.md"]), []);
    }

    #[test]
    fn each_kind() {
        let long = format!("- [L](l.md) {}", "é".repeat(200));
        let index = format!(
            "---\nname: x\n---\n{long}\n- [Up](../up.md)\n- [A](a.md)\n- [A2](./a.md)\n- [W](https://x.y)\n"
        );
        assert_eq!(
            kinds(
                &index,
                &["MEMORY.md", "a.md", "l.md", "orphan.md", "notes.txt"]
            ),
            [
                (Some(1), "frontmatter"),
                (Some(4), "long-line"),
                (Some(5), "link-outside-folder"),
                (Some(7), "duplicate-link"),
                (None, "unlinked-file"),
            ]
        );
    }

    #[test]
    fn a_horizontal_rule_is_not_frontmatter() {
        assert_eq!(kinds("---\n- [A](a.md)\n", &["a.md"]), []);
    }

    #[test]
    fn subfolders_with_their_own_index_and_logs_are_not_orphans() {
        let folder = [
            "MEMORY.md",
            "a.md",
            "team/MEMORY.md",
            "team/t.md",
            "logs/2026/11/2026-11-29.md",
            "sub/s.md",
        ];
        assert_eq!(kinds("- [A](a.md)\n", &folder), [(None, "unlinked-file")]);
        assert_eq!(kinds("- [A](a.md)\n- [S](sub/s.md)\n", &folder), []);
    }

    /// The team folder is never the private index's to link, even before
    /// it has an index of its own.
    #[test]
    fn team_files_are_not_private_orphans_without_a_team_index() {
        let folder = ["MEMORY.md", "a.md", "team/t.md", "team/sub/u.md"];
        assert_eq!(kinds("- [A](a.md)\n", &folder), []);
    }

    /// A line whose target holds a raw `#…md` links that file, not the name
    /// before the `#`: the memory the `#` shadowed is reported unlinked.
    #[test]
    fn a_name_with_a_hash_does_not_hide_an_unlinked_memory() {
        let folder = ["MEMORY.md", "deploy.md", "deploy.md#x.md"];
        let lints = kinds("- [x](deploy.md#x.md)\n", &folder);
        assert_eq!(lints, [(None, "unlinked-file")]);
        let listing = FolderListing::from_paths(folder);
        assert_eq!(
            unlinked_files("- [x](deploy.md#x.md)\n", &listing),
            ["deploy.md"]
        );
        assert_eq!(
            unlinked_files("- [x](deploy.md%23x.md)\n- [d](deploy.md#top)\n", &listing),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn reads_a_real_folder_skipping_hidden_entries() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(root.join(".conflicts")).unwrap();
        for f in [
            "MEMORY.md",
            "a.md",
            "sub/b.md",
            ".conflicts/a.md.1",
            ".memdir-tmp-x.tmp",
        ] {
            fs::write(root.join(f), "x").unwrap();
        }
        let listing = FolderListing::read(root).unwrap();
        assert_eq!(
            listing.memory_files().collect::<Vec<_>>(),
            ["a.md", "sub/b.md"]
        );
        assert!(listing.contains("MEMORY.md"));
        assert!(!listing.contains(".memdir-tmp-x.tmp"));
    }

    /// A memory longer than the head read still has its supersession keys
    /// read: they are in its frontmatter, at the start.
    #[test]
    fn a_long_memory_still_supersedes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("old.md"), "---\nname: old\n---\nold\n").unwrap();
        let long = "---\nname: new\nsupersedes: [old.md]\n---\n".to_owned()
            + &"a long body line\n".repeat(40_000);
        assert!(long.len() as u64 > MAX_MEMORY_HEAD_BYTES);
        fs::write(root.join("new.md"), long).unwrap();
        let listing = FolderListing::read(root).unwrap();
        assert_eq!(listing.superseded_by("old.md"), Some("new.md"));
    }

    /// A link to a file counts as the file; a link to a folder is not
    /// followed; a name that is not UTF-8 (and what is below it) is passed
    /// over, and the listing still succeeds.
    #[cfg(target_os = "linux")]
    #[test]
    fn links_and_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/b.md"), "x").unwrap();
        symlink(root.join("sub/b.md"), root.join("alias.md")).unwrap();
        symlink(root.join("sub"), root.join("linked")).unwrap();
        let odd = root.join(std::ffi::OsStr::from_bytes(b"odd-\xff"));
        fs::create_dir(&odd).unwrap();
        fs::write(odd.join("c.md"), "x").unwrap();
        fs::write(root.join(std::ffi::OsStr::from_bytes(b"d-\xff.md")), "x").unwrap();
        let listing = FolderListing::read(root).unwrap();
        assert_eq!(
            listing.memory_files().collect::<Vec<_>>(),
            ["alias.md", "sub/b.md"]
        );
        assert!(!listing.contains("linked/b.md"));
        assert!(FolderListing::read(&root.join("none")).is_err());
    }
}
