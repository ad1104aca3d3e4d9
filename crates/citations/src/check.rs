//! Checking citations against a project's files, in one bounded walk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aho_corasick::AhoCorasick;
use ignore::WalkBuilder;
use ignore::gitignore::Gitignore;

use crate::{Citation, CitationKind, CitationsError};

/// How long a check may take by default: recall runs on every prompt.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(15);

/// The largest project file searched; a larger one leaves what it might
/// have held unsettled rather than read half of it.
pub const MAX_SEARCHED_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// How many leading bytes decide that a file is binary (a NUL among them).
const BINARY_PROBE: usize = 8 * 1024;

/// Why a citation does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Broken {
    /// The cited path does not exist under the project root.
    DoesNotExist,
    /// The cited identifier or flag occurs in no file of the project.
    OccursNowhere,
}

/// What the check found for one citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The path exists, or the literal occurs in some project file.
    Holds,
    /// The citation does not hold, and why.
    Broken(Broken),
    /// Not settled: the budget ran out, a file could not be searched, or
    /// the path lies outside the project. Never reported as broken.
    Unchecked,
}

/// A citation and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// What was cited.
    pub citation: Citation,
    /// What the check found.
    pub verdict: Verdict,
}

/// Checks citations against the files under one project root.
#[derive(Debug, Clone)]
pub struct Checker {
    root: PathBuf,
    excluded: Vec<PathBuf>,
}

impl Checker {
    /// A checker for the project whose work tree is `root`.
    pub fn new(root: impl AsRef<Path>) -> Result<Checker, CitationsError> {
        let given = root.as_ref();
        let root = std::fs::canonicalize(given).map_err(|source| CitationsError::Root {
            path: given.to_owned(),
            source,
        })?;
        if !root.is_dir() {
            return Err(CitationsError::RootNotAFolder { path: root });
        }
        Ok(Checker {
            root,
            excluded: Vec::new(),
        })
    }

    /// Leaves `dir` (and everything under it) out of the project: a memory
    /// folder inside the work tree is not the project's code. A folder that
    /// does not exist is ignored.
    #[must_use]
    pub fn exclude(mut self, dir: impl AsRef<Path>) -> Checker {
        if let Ok(dir) = std::fs::canonicalize(dir.as_ref()) {
            self.excluded.push(dir);
        }
        self
    }

    /// The verdict on each of `citations` (in order), within `budget`.
    ///
    /// Paths are checked first (a `stat` each); then every identifier and
    /// flag still pending, of all the citations at once, is searched in
    /// one walk of the project: cited files first, then the rest in walk
    /// order (`.gitignore` honoured, hidden and binary files skipped,
    /// links not followed), stopping as soon as every literal was found.
    /// Whatever the budget leaves unsettled is [`Verdict::Unchecked`].
    #[must_use]
    pub fn check(&self, citations: &[Citation], budget: Duration) -> Vec<Checked> {
        let deadline = Instant::now() + budget;
        let mut verdicts = vec![Verdict::Unchecked; citations.len()];
        let mut cited_files = Vec::new();
        for (i, c) in citations.iter().enumerate() {
            if c.kind != CitationKind::Path {
                continue;
            }
            if Instant::now() >= deadline {
                break;
            }
            verdicts[i] = self.check_path(&c.text, &mut cited_files);
        }
        let mut search = Search::new(citations, &verdicts);
        if !search.needles.is_empty() {
            self.search(&mut search, &cited_files, deadline);
            search.settle(&mut verdicts);
        }
        citations
            .iter()
            .cloned()
            .zip(verdicts)
            .map(|(citation, verdict)| Checked { citation, verdict })
            .collect()
    }

    fn check_path(&self, text: &str, cited_files: &mut Vec<PathBuf>) -> Verdict {
        let path = Path::new(text);
        let full = if path.is_absolute() {
            if !path.starts_with(&self.root) {
                return Verdict::Unchecked;
            }
            path.to_owned()
        } else {
            self.root.join(path)
        };
        if self.is_excluded(&full) {
            return Verdict::Unchecked;
        }
        match std::fs::symlink_metadata(&full) {
            Ok(meta) => {
                if meta.is_file() {
                    cited_files.push(full);
                }
                Verdict::Holds
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Verdict::Broken(Broken::DoesNotExist)
            }
            // A component that is a file (`a.rs/b`) does not exist either.
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                Verdict::Broken(Broken::DoesNotExist)
            }
            Err(_) => Verdict::Unchecked,
        }
    }

    fn is_excluded(&self, path: &Path) -> bool {
        self.excluded.iter().any(|d| path.starts_with(d))
    }

    fn search(&self, search: &mut Search, cited_files: &[PathBuf], deadline: Instant) {
        let mut searched = HashSet::new();
        for file in cited_files {
            if search.done() {
                return;
            }
            if Instant::now() >= deadline {
                search.incomplete = true;
                return;
            }
            if searched.insert(file.clone()) && !self.is_ignored(file) {
                search.file(file);
            }
        }
        let excluded = self.excluded.clone();
        let walk = WalkBuilder::new(&self.root)
            .require_git(false)
            .follow_links(false)
            .filter_entry(move |e| !excluded.iter().any(|d| e.path().starts_with(d)))
            .build();
        for entry in walk {
            if search.done() {
                return;
            }
            if Instant::now() >= deadline {
                search.incomplete = true;
                return;
            }
            let Ok(entry) = entry else {
                search.incomplete = true;
                continue;
            };
            if entry.file_type().is_some_and(|t| t.is_file()) && !searched.contains(entry.path()) {
                search.file(entry.path());
            }
        }
    }

    /// Whether a cited file is one the walk would skip: hidden, or ignored
    /// by a `.gitignore` of its folder or of a folder above it in the
    /// project.
    fn is_ignored(&self, file: &Path) -> bool {
        let Ok(relative) = file.strip_prefix(&self.root) else {
            return true;
        };
        let hidden = relative
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
        if hidden {
            return true;
        }
        let mut dir = file.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(&self.root)) {
            let (matcher, _) = Gitignore::new(d.join(".gitignore"));
            let m = matcher.matched_path_or_any_parents(file, false);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
            dir = d.parent();
        }
        false
    }
}

/// The literals still pending, and which citations each settles.
struct Search {
    needles: Vec<String>,
    /// For each needle, the indexes of the citations it settles.
    owners: Vec<Vec<usize>>,
    found: Vec<bool>,
    remaining: usize,
    matcher: Option<AhoCorasick>,
    /// A file could not be searched (too large, unreadable) or the walk
    /// stopped early: what was not found is unsettled, not broken.
    incomplete: bool,
}

impl Search {
    fn new(citations: &[Citation], verdicts: &[Verdict]) -> Search {
        let mut needles: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        for (i, c) in citations.iter().enumerate() {
            if c.kind == CitationKind::Path || verdicts[i] != Verdict::Unchecked {
                continue;
            }
            let needle = c.needle();
            if let Some(at) = needles.iter().position(|n| n == needle) {
                owners[at].push(i);
            } else {
                needles.push(needle.to_owned());
                owners.push(vec![i]);
            }
        }
        let matcher = if needles.is_empty() {
            None
        } else {
            AhoCorasick::new(&needles).ok()
        };
        let remaining = needles.len();
        Search {
            found: vec![false; needles.len()],
            needles,
            owners,
            remaining,
            matcher,
            incomplete: false,
        }
    }

    fn done(&self) -> bool {
        self.remaining == 0 || self.matcher.is_none()
    }

    fn file(&mut self, path: &Path) {
        let bytes = match memdir_memtypes::read_regular_file(path, MAX_SEARCHED_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                log::debug!("citations: not searched: {e}");
                self.incomplete = true;
                return;
            }
        };
        let probe = &bytes[..bytes.len().min(BINARY_PROBE)];
        if memchr::memchr(0, probe).is_some() {
            return;
        }
        let Some(matcher) = &self.matcher else {
            return;
        };
        for m in matcher.find_overlapping_iter(&bytes) {
            let at = m.pattern().as_usize();
            if !self.found[at] {
                self.found[at] = true;
                self.remaining -= 1;
                if self.remaining == 0 {
                    return;
                }
            }
        }
    }

    fn settle(&self, verdicts: &mut [Verdict]) {
        if self.matcher.is_none() {
            return;
        }
        for (at, owners) in self.owners.iter().enumerate() {
            let verdict = if self.found[at] {
                Verdict::Holds
            } else if self.incomplete {
                Verdict::Unchecked
            } else {
                Verdict::Broken(Broken::OccursNowhere)
            };
            for &i in owners {
                verdicts[i] = verdict;
            }
        }
    }
}
