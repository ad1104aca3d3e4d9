//! Checking what memories cite about the project (paths, identifiers,
//! flags) against its work tree: the notes recall shows under a memory,
//! and `verify`, which records `verified:` in memories whose citations
//! all hold.

use std::path::{Path, PathBuf};
use std::time::Duration;

use camino::Utf8PathBuf;
use memdir_citations::{Checked, Checker, Citation, Verdict, extract_citations, note};
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
        let budget = self.citations_budget(budget);
        if budget.is_zero() || files.is_empty() {
            return vec![None; files.len()];
        }
        let bodies: Vec<String> = files
            .iter()
            .map(|f| read_body(f).unwrap_or_default())
            .collect();
        self.check_bodies(&bodies, budget)
            .iter()
            .map(|checked| note(checked))
            .collect()
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
        let checked = self.check_bodies(&bodies, request.budget.unwrap_or(DEFAULT_VERIFY_BUDGET));
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

    /// One check of every body's citations; the results per body.
    fn check_bodies(&self, bodies: &[String], budget: Duration) -> Vec<Vec<Checked>> {
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
                return per_body
                    .iter()
                    .map(|cs| cs.iter().map(unchecked).collect())
                    .collect();
            }
        };
        let mut results = checker.check(&all, budget).into_iter();
        per_body
            .iter()
            .map(|cs| results.by_ref().take(cs.len()).collect())
            .collect()
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
        "<system-reminder>Checked against the project just now: {note}. Verify before relying on this memory.</system-reminder>"
    )
}
