//! Checking citations against a project's files, in one bounded walk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use aho_corasick::AhoCorasick;
use ignore::WalkBuilder;
use ignore::gitignore::Gitignore;

use crate::cache::{Entry, Stamp, age, inside, millis_since_epoch};
use crate::{CachePolicy, CachedCheck, Citation, CitationKind, CitationsError, VerdictCache};

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
        self.run(citations, budget, None).0
    }

    /// [`check`](Self::check), settling what it can from `cache` first
    /// (see [`VerdictCache`] for how far a cached verdict is trusted) and
    /// recording in it what the search finds. Paths are always checked
    /// live.
    #[must_use]
    pub fn check_cached(
        &self,
        citations: &[Citation],
        budget: Duration,
        cache: &mut VerdictCache,
        policy: &CachePolicy,
    ) -> CachedCheck {
        let (checked, stale) = self.run(citations, budget, Some((cache, policy, true)));
        let unsettled = checked
            .iter()
            .any(|c| c.citation.kind != CitationKind::Path && c.verdict == Verdict::Unchecked);
        let wants_refresh =
            (unsettled || stale) && cache.refresh_due(policy, std::time::SystemTime::now());
        CachedCheck {
            checked,
            wants_refresh,
        }
    }

    /// [`check`](Self::check), trusting nothing cached, and recording
    /// every verdict in `cache`.
    #[must_use]
    pub fn check_and_record(
        &self,
        citations: &[Citation],
        budget: Duration,
        cache: &mut VerdictCache,
        policy: &CachePolicy,
    ) -> Vec<Checked> {
        self.run(citations, budget, Some((cache, policy, false))).0
    }

    /// [`check_and_record`](Self::check_and_record) as a refresh: what a
    /// background refresh runs over the citations of every memory. The
    /// refresh counts as started now and, when it settles every literal,
    /// as done ([`VerdictCache::refreshed_at`]).
    #[must_use]
    pub fn refresh(
        &self,
        citations: &[Citation],
        budget: Duration,
        cache: &mut VerdictCache,
        policy: &CachePolicy,
    ) -> Vec<Checked> {
        let started = millis_since_epoch(std::time::SystemTime::now());
        cache.mark_attempt(started);
        let checked = self.check_and_record(citations, budget, cache, policy);
        let settled = checked
            .iter()
            .all(|c| c.citation.kind == CitationKind::Path || c.verdict != Verdict::Unchecked);
        if settled {
            cache.mark_refreshed(started);
        }
        checked
    }

    /// The check itself; with a cache, whether a verdict used from it was
    /// older than the policy's `refresh_after`.
    fn run(
        &self,
        citations: &[Citation],
        budget: Duration,
        mut cache: Option<(&mut VerdictCache, &CachePolicy, bool)>,
    ) -> (Vec<Checked>, bool) {
        let started = std::time::SystemTime::now();
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
        let mut stale = false;
        if let Some((cache, policy, trust)) = cache.as_mut() {
            cache.bind(&self.root);
            if *trust {
                for at in 0..search.needles.len() {
                    let needle = search.needles[at].clone();
                    match cache.entries.get(&needle).cloned() {
                        Some(Entry::Found { file, stamp, .. }) => {
                            let window = policy.racy_window;
                            if self.still_holds(&needle, &file, stamp, (started, window), cache) {
                                search.known_found(at);
                            } else {
                                cache.remove(&needle);
                            }
                        }
                        Some(Entry::Absent { at_ms }) => match age(at_ms, started) {
                            Some(a) if a <= policy.trust_absent_for => {
                                stale |= a > policy.refresh_after;
                                search.known_absent(at);
                            }
                            _ => {}
                        },
                        None => {}
                    }
                }
            }
        }
        if !search.needles.is_empty() {
            self.search(&mut search, &cited_files, deadline);
            search.settle(&mut verdicts);
            if let Some((cache, policy, _)) = cache {
                self.record(&search, (started, policy.racy_window), cache);
            }
        }
        let checked = citations
            .iter()
            .cloned()
            .zip(verdicts)
            .map(|(citation, verdict)| Checked { citation, verdict })
            .collect();
        (checked, stale)
    }

    /// Whether `needle`, cached as found in `file` with `stamp`, is still
    /// there: the same stamp, or else found by searching that file again
    /// (and the cache then holds the new stamp).
    fn still_holds(
        &self,
        needle: &str,
        file: &str,
        stamp: Stamp,
        (started, window): (std::time::SystemTime, Duration),
        cache: &mut VerdictCache,
    ) -> bool {
        let Some(path) = inside(&self.root, file) else {
            return false;
        };
        if self.is_excluded(&path) {
            return false;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return false;
        };
        if !meta.is_file() {
            return false;
        }
        let now = Stamp::of(&meta);
        if now == stamp && !racy(now, started, window) {
            return true;
        }
        // Read again only what is still inside the root: a folder on the
        // way that became a link is not followed out of it.
        if !std::fs::canonicalize(&path).is_ok_and(|p| p.starts_with(&self.root)) {
            return false;
        }
        let Ok(Some(bytes)) = searchable(&path) else {
            return false;
        };
        if memchr::memmem::find(&bytes, needle.as_bytes()).is_none() {
            return false;
        }
        if racy(now, started, window) {
            cache.remove(needle);
        } else {
            cache.set(
                needle,
                Entry::Found {
                    file: file.to_owned(),
                    stamp: now,
                    at_ms: millis_since_epoch(started),
                },
            );
        }
        true
    }

    /// Writes what `search` settled into `cache`: where each literal was
    /// found (unless its file changed too lately to trust its stamp), and
    /// "found nowhere" for what a complete walk did not find.
    fn record(
        &self,
        search: &Search,
        (started, window): (std::time::SystemTime, Duration),
        cache: &mut VerdictCache,
    ) {
        let at_ms = millis_since_epoch(started);
        for (at, needle) in search.needles.iter().enumerate() {
            match &search.state[at] {
                Found::In(file, stamp) => {
                    let rel = file
                        .strip_prefix(&self.root)
                        .ok()
                        .and_then(Path::to_str)
                        .filter(|r| inside(&self.root, r).is_some());
                    match rel {
                        Some(rel) if !racy(*stamp, started, window) => cache.set(
                            needle,
                            Entry::Found {
                                file: rel.to_owned(),
                                stamp: *stamp,
                                at_ms,
                            },
                        ),
                        _ => cache.remove(needle),
                    }
                }
                Found::No { .. } if search.walked_all => {
                    cache.set(needle, Entry::Absent { at_ms });
                }
                // Known from the cache, or not settled by this search.
                Found::Cached | Found::No { .. } => {}
            }
        }
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
            if search.all_found() {
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
        // What the cache says is nowhere is looked for in the cited files
        // only; the walk is for what is not known.
        if search.done() {
            return;
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
        search.walked_all = !search.incomplete;
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

/// What the search knows of one literal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// Not found (yet); `known_absent` when the cache says it is nowhere.
    No { known_absent: bool },
    /// Found in this file, which had this stamp just before it was read.
    In(PathBuf, Stamp),
    /// The cache showed it still holds.
    Cached,
}

/// The literals still pending, and which citations each settles.
struct Search {
    needles: Vec<String>,
    /// For each needle, the indexes of the citations it settles.
    owners: Vec<Vec<usize>>,
    state: Vec<Found>,
    /// Needles not found and not known absent: what the walk is for.
    remaining: usize,
    /// Needles not found at all.
    unfound: usize,
    matcher: Option<AhoCorasick>,
    /// A file could not be searched (too large, unreadable) or the walk
    /// stopped early: what was not found is unsettled, not broken.
    incomplete: bool,
    /// The walk visited every file of the project.
    walked_all: bool,
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
        Search {
            state: vec![
                Found::No {
                    known_absent: false
                };
                needles.len()
            ],
            remaining: needles.len(),
            unfound: needles.len(),
            needles,
            owners,
            matcher,
            incomplete: false,
            walked_all: false,
        }
    }

    /// The cache showed needle `at` still holds.
    fn known_found(&mut self, at: usize) {
        if self.state[at]
            == (Found::No {
                known_absent: false,
            })
        {
            self.remaining -= 1;
            self.unfound -= 1;
            self.state[at] = Found::Cached;
        }
    }

    /// The cache says needle `at` is nowhere: no walk is made for it.
    fn known_absent(&mut self, at: usize) {
        if self.state[at]
            == (Found::No {
                known_absent: false,
            })
        {
            self.remaining -= 1;
            self.state[at] = Found::No { known_absent: true };
        }
    }

    /// Nothing left that the walk must settle.
    fn done(&self) -> bool {
        self.remaining == 0 || self.matcher.is_none()
    }

    /// Every needle found.
    fn all_found(&self) -> bool {
        self.unfound == 0 || self.matcher.is_none()
    }

    fn file(&mut self, path: &Path) {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            self.incomplete = true;
            return;
        };
        let stamp = Stamp::of(&meta);
        let bytes = match searchable(path) {
            Ok(Some(bytes)) => bytes,
            // Binary: nothing cited is in it.
            Ok(None) => return,
            Err(()) => {
                self.incomplete = true;
                return;
            }
        };
        let Some(matcher) = &self.matcher else {
            return;
        };
        for m in matcher.find_overlapping_iter(&bytes) {
            let at = m.pattern().as_usize();
            if let Found::No { known_absent } = self.state[at] {
                if !known_absent {
                    self.remaining -= 1;
                }
                self.unfound -= 1;
                self.state[at] = Found::In(path.to_owned(), stamp);
                if self.unfound == 0 {
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
            let verdict = match self.state[at] {
                Found::In(..) | Found::Cached => Verdict::Holds,
                Found::No { known_absent: true } => Verdict::Broken(Broken::OccursNowhere),
                Found::No { .. } if self.incomplete => Verdict::Unchecked,
                Found::No { .. } => Verdict::Broken(Broken::OccursNowhere),
            };
            for &i in owners {
                verdicts[i] = verdict;
            }
        }
    }
}

/// The bytes of `path` when it is a text file the search may read (a
/// regular file of at most [`MAX_SEARCHED_FILE_BYTES`]), `None` when it is
/// binary (a NUL in its first bytes), `Err` when it cannot be read.
fn searchable(path: &Path) -> Result<Option<Vec<u8>>, ()> {
    let bytes = match memdir_memtypes::read_regular_file(path, MAX_SEARCHED_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => {
            log::debug!("citations: not searched: {e}");
            return Err(());
        }
    };
    let probe = &bytes[..bytes.len().min(BINARY_PROBE)];
    Ok(memchr::memchr(0, probe).is_none().then_some(bytes))
}

/// Whether a file with `stamp` changed within `window` of `started`, too
/// close for its stamp to show a later change.
fn racy(stamp: Stamp, started: std::time::SystemTime, window: Duration) -> bool {
    let started_ns = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let window = u64::try_from(window.as_nanos()).unwrap_or(u64::MAX);
    stamp.changed_ns().saturating_add(window) > started_ns
}
