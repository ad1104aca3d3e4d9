//! Checking what memories cite about the project (paths, identifiers,
//! flags) against its work tree: the notes recall shows under a memory,
//! and `verify`, which records `verified:` in memories whose citations
//! all hold.

use std::path::{Path, PathBuf};
use std::time::Duration;

use camino::Utf8PathBuf;
use memdir_citations::{
    CachePolicy, Checked, Checker, Citation, Verdict, VerdictCache, extract_citations, note,
};
use memdir_folder::MemoryFolder;
use memdir_memtypes::{MemdirValue, parse_memory, set_memdir_key};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

use crate::memory::MAX_MEMORY_BYTES;
use crate::{OpsError, Project, Scope};

/// The variable that sets how long recall may spend checking citations,
/// in milliseconds (`0` turns the check off); the default is
/// [`memdir_citations::DEFAULT_BUDGET`].
pub const ENV_CITATIONS_BUDGET_MS: &str = "MEMDIR_CITATIONS_BUDGET_MS";

/// How long `verify` may spend by default: it runs on request, not on
/// every prompt, so it may walk a large project.
pub const DEFAULT_VERIFY_BUDGET: Duration = Duration::from_secs(10);

/// One `verify` request.
#[derive(Debug, Clone, Default)]
pub struct VerifyRequest {
    /// The memories to verify: names relative to the private memory
    /// folder, or paths of files in it; empty is every memory there.
    pub files: Vec<PathBuf>,
    /// How long the check may take; `None` is [`DEFAULT_VERIFY_BUDGET`].
    pub budget: Option<Duration>,
}

/// What `verify` found for one memory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyStatus {
    /// Every citation holds; `verified:` now records this time.
    Verified(jiff::Timestamp),
    /// Some citations do not hold: the note names them.
    Broken(String),
    /// Not every citation could be settled in time (or the file changed
    /// while it was checked): nothing was recorded.
    Unchecked,
}

/// One memory's verification.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedMemory {
    /// Its name relative to the memory folder.
    pub file: String,
    /// The memory file.
    pub path: Utf8PathBuf,
    /// Each citation and its verdict.
    pub checked: Vec<Checked>,
    /// The outcome.
    pub status: VerifyStatus,
}

impl Project {
    /// The citation note of each file in `files` (in order), from one
    /// check of all their citations against the project's work tree
    /// within the recall budget; `None` where every citation holds, could
    /// not be settled, or the file cannot be read.
    #[must_use]
    pub fn citation_notes(&self, files: &[&Path]) -> Vec<Option<String>> {
        self.citation_notes_within(files, None)
    }

    /// [`citation_notes`](Self::citation_notes) within `budget` (`None`:
    /// the recall budget); `MEMDIR_CITATIONS_BUDGET_MS` overrides it.
    #[must_use]
    pub fn citation_notes_within(
        &self,
        files: &[&Path],
        budget: Option<Duration>,
    ) -> Vec<Option<String>> {
        self.cited_notes(files, budget).0
    }

    /// The notes, and whether the citation cache asks for a refresh.
    ///
    /// Identifiers and flags are settled from the project's citation
    /// cache where it can be trusted (see [`memdir_citations::VerdictCache`]),
    /// searched for within `budget` where not; what the search finds is
    /// written back to the cache (a cache that cannot be written only
    /// costs the next recall a search).
    pub(crate) fn cited_notes(
        &self,
        files: &[&Path],
        budget: Option<Duration>,
    ) -> (Vec<Option<String>>, bool) {
        if files.is_empty() || self.citations_budget(budget).is_zero() {
            return (vec![None; files.len()], false);
        }
        let bodies: Vec<String> = files
            .iter()
            .map(|f| read_body(f).unwrap_or_default())
            .collect();
        self.cited_notes_of(&bodies, budget)
    }

    /// [`cited_notes`](Self::cited_notes) of memory bodies the caller has
    /// already read (what an agent is given is read once).
    pub(crate) fn cited_notes_of(
        &self,
        bodies: &[String],
        budget: Option<Duration>,
    ) -> (Vec<Option<String>>, bool) {
        let budget = self.citations_budget(budget);
        if budget.is_zero() || bodies.is_empty() {
            return (vec![None; bodies.len()], false);
        }
        let (checked, wants_refresh) = self.check_bodies(bodies, budget, Mode::Cached);
        (checked.iter().map(|c| note(c)).collect(), wants_refresh)
    }

    /// Where the citation verdicts of this project's work tree are kept:
    /// `<base>/memdir/citations/<project slug>.json`.
    #[must_use]
    pub fn citation_cache_path(&self) -> PathBuf {
        let work_tree = &self.resolution().project.work_tree;
        self.resolution()
            .base
            .as_std_path()
            .join("memdir")
            .join("citations")
            .join(format!(
                "{}.json",
                memdir_paths::project_slug(work_tree.as_str())
            ))
    }

    /// Whether a background refresh of the citation cache is due: none
    /// settled everything in the last five minutes, and none started in
    /// the last thirty seconds.
    #[must_use]
    pub fn citation_refresh_due(&self) -> bool {
        self.citation_cache_kept()
            && VerdictCache::load(&self.citation_cache_path())
                .refresh_due(&CachePolicy::default(), std::time::SystemTime::now())
    }

    /// Whether the citation cache is kept: only under a base folder that
    /// exists, since a check does not create the agent's configuration
    /// folder (and a refresh that cannot be kept is not worth running).
    fn citation_cache_kept(&self) -> bool {
        self.resolution().base.as_std_path().is_dir()
    }

    /// Checks the citations of every memory of the private folder
    /// (`team/` included) within `budget` (`None`: [`DEFAULT_VERIFY_BUDGET`]),
    /// trusting nothing cached, and writes every verdict to the citation
    /// cache: what recall then reads instead of walking the project.
    /// Records nothing in the memories. Returns at once with
    /// [`CacheRefresh::Busy`] while another refresh of the project runs.
    pub fn refresh_citation_cache(
        &self,
        budget: Option<Duration>,
    ) -> Result<CacheRefresh, OpsError> {
        let cache_path = self.citation_cache_path();
        let lock_path = cache_path.with_extension("lock");
        let failed = |path: &Path, source: Box<dyn std::error::Error + Send + Sync>| {
            OpsError::CitationCache {
                path: path.to_owned(),
                source,
            }
        };
        if let Some(dir) = lock_path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed(dir, e.into()))?;
        }
        let lock = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| failed(&lock_path, e.into()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(CacheRefresh::Busy),
            Err(std::fs::TryLockError::Error(e)) => return Err(failed(&lock_path, e.into())),
        }
        if let Some(dir) = cache_path.parent() {
            remove_stale_temp_files(dir);
        }
        let folder = self.folder(Scope::Private)?;
        let memories = every_memory(folder.as_std_path())?;
        let bodies: Vec<String> = memories
            .iter()
            .map(|m| read_body(&folder.as_std_path().join(m)).unwrap_or_default())
            .collect();
        let (checked, _) = self.check_bodies(
            &bodies,
            budget.unwrap_or(DEFAULT_VERIFY_BUDGET),
            Mode::Refresh,
        );
        let citations = checked.iter().map(Vec::len).sum();
        let unchecked = checked
            .iter()
            .flatten()
            .filter(|c| c.verdict == Verdict::Unchecked)
            .count();
        drop(lock);
        Ok(CacheRefresh::Done {
            memories: memories.len(),
            citations,
            unchecked,
        })
    }

    /// Checks the citations of memories in the private folder and records
    /// `verified: <now>` in each whose citations all hold, under the
    /// folder's lock. A memory that changed while it was checked is left
    /// as it is ([`VerifyStatus::Unchecked`]).
    pub fn verify(&self, request: &VerifyRequest) -> Result<Vec<VerifiedMemory>, OpsError> {
        let folder_path = self.folder(Scope::Private)?;
        let files = if request.files.is_empty() {
            all_memories(folder_path.as_std_path())?
        } else {
            request
                .files
                .iter()
                .map(|f| relative_name(folder_path.as_std_path(), f))
                .collect::<Result<Vec<_>, _>>()?
        };
        let folder = MemoryFolder::open(folder_path.as_std_path())?;
        let mut texts = Vec::with_capacity(files.len());
        for file in &files {
            let bytes = folder
                .read(file, MAX_MEMORY_BYTES)?
                .ok_or_else(|| OpsError::NotFound {
                    folder: folder_path.clone().into_std_path_buf(),
                    file: file.clone(),
                })?;
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        let bodies: Vec<String> = texts
            .iter()
            .map(|t| parse_memory(t.as_bytes()).body)
            .collect();
        let (checked, _) = self.check_bodies(
            &bodies,
            request.budget.unwrap_or(DEFAULT_VERIFY_BUDGET),
            Mode::Record,
        );
        let now = jiff::Timestamp::now();
        let lock = folder.lock(self.lock_timeout())?;
        let mut out = Vec::with_capacity(files.len());
        for ((file, text), checked) in files.into_iter().zip(&texts).zip(checked) {
            let status = if let Some(broken) = note(&checked) {
                VerifyStatus::Broken(broken)
            } else if checked.iter().any(|c| c.verdict == Verdict::Unchecked) {
                VerifyStatus::Unchecked
            } else {
                let current = lock.folder().read(&file, MAX_MEMORY_BYTES)?;
                if current.as_deref() == Some(text.as_bytes()) {
                    let updated = set_memdir_key(text, "verified", Some(&MemdirValue::Time(now)));
                    lock.write(&file, updated.as_bytes())?;
                    VerifyStatus::Verified(now)
                } else {
                    VerifyStatus::Unchecked
                }
            };
            out.push(VerifiedMemory {
                path: folder_path.join(&file),
                file,
                checked,
                status,
            });
        }
        Ok(out)
    }

    /// One check of every body's citations; the results per body, and
    /// whether the cache asks for a refresh.
    fn check_bodies(
        &self,
        bodies: &[String],
        budget: Duration,
        mode: Mode,
    ) -> (Vec<Vec<Checked>>, bool) {
        let per_body: Vec<Vec<Citation>> = bodies.iter().map(|b| extract_citations(b)).collect();
        let all: Vec<Citation> = per_body.iter().flatten().cloned().collect();
        let checker = match Checker::new(self.resolution().project.work_tree.as_std_path()) {
            Ok(checker) => checker.exclude(self.resolution().auto_mem_path.as_std_path()),
            Err(e) => {
                log::debug!("citations not checked: {e}");
                let unchecked = |c: &Citation| Checked {
                    citation: c.clone(),
                    verdict: Verdict::Unchecked,
                };
                let all = per_body
                    .iter()
                    .map(|cs| cs.iter().map(unchecked).collect())
                    .collect();
                return (all, false);
            }
        };
        let cache_path = self.citation_cache_path();
        let mut cache = VerdictCache::load(&cache_path);
        let policy = CachePolicy::default();
        let (results, wants_refresh) = match mode {
            Mode::Cached => {
                let c = checker.check_cached(&all, budget, &mut cache, &policy);
                (c.checked, c.wants_refresh)
            }
            Mode::Record => (
                checker.check_and_record(&all, budget, &mut cache, &policy),
                false,
            ),
            Mode::Refresh => (checker.refresh(&all, budget, &mut cache, &policy), false),
        };
        let kept = self.citation_cache_kept();
        if kept
            && cache.is_dirty()
            && let Err(e) = cache.save(&cache_path)
        {
            log::debug!("citations cache not written: {e}");
        }
        let mut results = results.into_iter();
        let per_body = per_body
            .iter()
            .map(|cs| results.by_ref().take(cs.len()).collect())
            .collect();
        (per_body, wants_refresh && kept)
    }

    fn citations_budget(&self, asked: Option<Duration>) -> Duration {
        self.env()
            .var(ENV_CITATIONS_BUDGET_MS)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .or(asked)
            .unwrap_or(memdir_citations::DEFAULT_BUDGET)
    }
}

/// How a check uses the citation cache.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// Settle from it what it can be trusted for (recall).
    Cached,
    /// Trust nothing in it; record every verdict (verify).
    Record,
    /// [`Mode::Record`] over every memory, counted as a refresh.
    Refresh,
}

/// What [`Project::refresh_citation_cache`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheRefresh {
    /// Another refresh of the project was running; nothing was done.
    Busy,
    /// The memories were checked and the cache written.
    Done {
        /// How many memories were read.
        memories: usize,
        /// How many citations they make.
        citations: usize,
        /// How many of those the budget left unsettled.
        unchecked: usize,
    },
}

/// A memory file's body, read with the bounded reader.
fn read_body(path: &Path) -> Option<String> {
    let bytes = memdir_memtypes::read_regular_file(path, MAX_MEMORY_BYTES).ok()?;
    Some(parse_memory(&bytes).body)
}

/// Every memory of the folder (the scan's, newest first).
fn all_memories(folder: &Path) -> Result<Vec<String>, OpsError> {
    let options = ScanOptions {
        exclude: vec!["team".to_owned()],
        ..ScanOptions::default()
    };
    let scan = scan_memory_dir(folder, &options, &CancelToken::new())
        .map_err(|e| OpsError::Recall(memdir_relevance::RelevanceError::Scan(e)))?;
    Ok(scan.memories.into_iter().map(|m| m.filename).collect())
}

/// Removes the temporary files a killed cache write left in `dir` (older
/// than a minute: a younger one may be another process's write).
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .file_name()
            .to_str()
            .is_some_and(memdir_memtypes::is_temp_file_name)
            && entry
                .metadata()
                .ok()
                .filter(std::fs::Metadata::is_file)
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(60));
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Every memory of the folder, `team/` included.
fn every_memory(folder: &Path) -> Result<Vec<String>, OpsError> {
    let scan = scan_memory_dir(folder, &ScanOptions::default(), &CancelToken::new())
        .map_err(|e| OpsError::Recall(memdir_relevance::RelevanceError::Scan(e)))?;
    Ok(scan.memories.into_iter().map(|m| m.filename).collect())
}

/// `file` as a name relative to the memory folder: a relative name as it
/// is, a path of a file inside the folder made relative to it.
fn relative_name(folder: &Path, file: &Path) -> Result<String, OpsError> {
    let not_found = || OpsError::NotFound {
        folder: folder.to_owned(),
        file: file.display().to_string(),
    };
    let in_folder = folder.join(file);
    let resolved = std::fs::canonicalize(&in_folder)
        .or_else(|_| std::fs::canonicalize(file))
        .map_err(|_| not_found())?;
    let root = std::fs::canonicalize(folder).map_err(|_| not_found())?;
    // A file that exists but lies outside the folder (`../x`, a link out)
    // is refused, not looked for.
    let rel = resolved
        .strip_prefix(&root)
        .map_err(|_| OpsError::InvalidName {
            name: file.display().to_string(),
            reason: "it is outside the memory folder".to_owned(),
        })?;
    rel.to_str()
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .ok_or_else(not_found)
}

/// The line a hook or the MCP server shows the model under a memory whose
/// citations are broken (beside the freshness note).
#[must_use]
pub fn citation_reminder(note: &str) -> String {
    format!(
        "<system-reminder>Checked against the project's files: {note}. Verify before relying on this memory.</system-reminder>"
    )
}
