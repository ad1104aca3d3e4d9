//! What a memory claims about its project, and whether it still holds.
//!
//! A memory written weeks ago may cite a file since renamed, a function
//! since removed, a flag since dropped. [`extract_citations`] finds those
//! claims in a memory's body (paths, code-looking identifiers, flags; the
//! rules are in [`extract`](crate::extract_citations)'s module doc), a
//! [`Checker`] checks them against the project's files within a time
//! budget, and [`note`] says in one line what no longer holds. A
//! [`VerdictCache`] keeps identifier verdicts between processes, so that
//! a recall in a large project need not walk it
//! ([`Checker::check_cached`]).
//!
//! ```
//! use std::time::Duration;
//! use memdir_citations::{Checker, extract_citations, note};
//!
//! let project = tempfile::tempdir()?;
//! std::fs::create_dir(project.path().join("src"))?;
//! std::fs::write(project.path().join("src/lib.rs"), "pub fn parse_retry_after() {}\n")?;
//!
//! let body = "See `src/lib.rs` and `src/retry.rs`: `parse_retry_after`, `--legacy-auth`.";
//! let checked = Checker::new(project.path())?
//!     .check(&extract_citations(body), Duration::from_secs(5));
//! assert_eq!(
//!     note(&checked).as_deref(),
//!     Some("cites `src/retry.rs`, which does not exist now; `--legacy-auth` occurs nowhere"),
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cache;
mod check;
mod extract;

pub use cache::{CachePolicy, CachedCheck, MAX_ENTRIES, RACY_WINDOW, VerdictCache};
pub use check::{Broken, Checked, Checker, DEFAULT_BUDGET, MAX_SEARCHED_FILE_BYTES, Verdict};
pub use extract::{Citation, CitationKind, MAX_CITATIONS, extract_citations};

use std::path::PathBuf;

/// Why a check could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CitationsError {
    /// The project root could not be resolved.
    #[error("cannot open project root {}", path.display())]
    Root {
        /// The root given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The cache's folder could not be made.
    #[error("cannot make the citations cache folder {}", path.display())]
    CacheFolder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The cache could not be written.
    #[error(transparent)]
    CacheWrite(#[from] memdir_memtypes::AtomicWriteError),
    /// The project root is not a folder.
    #[error("project root {} is not a folder", path.display())]
    RootNotAFolder {
        /// The root, resolved.
        path: PathBuf,
    },
}

/// One line naming every broken citation, in order, or `None` when none
/// is broken (unchecked citations are not mentioned):
/// ``cites `src/billing/retry.rs`, which does not exist now; `--legacy-auth` occurs nowhere``.
#[must_use]
pub fn note(checked: &[Checked]) -> Option<String> {
    let clauses: Vec<String> = checked
        .iter()
        .filter_map(|c| match c.verdict {
            Verdict::Broken(Broken::DoesNotExist) => Some(format!(
                "cites `{}`, which does not exist now",
                c.citation.text
            )),
            Verdict::Broken(Broken::OccursNowhere) => {
                Some(format!("`{}` occurs nowhere", c.citation.text))
            }
            _ => None,
        })
        .collect();
    (!clauses.is_empty()).then(|| clauses.join("; "))
}
