//! Checks over one memory folder (and its `team/` subfolder): what a
//! person should look at, and the repairs that are safe to make unasked.
//!
//! - [`Doctor`] — a list of independent [`Check`]s; [`Doctor::builtin`]
//!   holds every check of this crate, [`Doctor::with_check`] adds one.
//! - [`Doctor::run`] reads the folder once ([`FolderView`]) and returns
//!   every [`Finding`], sorted by file and line.
//! - The checks, one module each, each named by its `check` string:
//!   `near-duplicate` (SPEC R2.3), `relative-date` (R2.3), `not-to-save`
//!   (R1.3), `secret` (R10, in memories and in both indexes; an error in
//!   the team folder and in an index, a warning in a private memory), `frontmatter` (R1.1, R2.1, R2.2) and `index` (R3.5,
//!   the lint of `memdir-entrypoint`).
//! - [`fix_relative_dates`] — the one text repair: relative dates turned
//!   into absolute ones where the memory's `modified` time decides the
//!   reference date unambiguously. This crate never writes: the caller
//!   writes the result through the folder's lock.
//!
//! ```
//! use memdir_doctor::{Doctor, Severity};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("MEMORY.md"), "- [Deploy](deploy.md) — when we ship\n")?;
//! std::fs::write(
//!     dir.path().join("deploy.md"),
//!     "---\nname: deploy\ndescription: Release timing\ntype: project\nmodified: 2026-03-04T10:00:00Z\n---\nWe ship tomorrow.\n",
//! )?;
//! let findings = Doctor::builtin().run(dir.path())?;
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].check, "relative-date");
//! assert_eq!(findings[0].severity, Severity::Warning);
//!
//! let text = std::fs::read_to_string(dir.path().join("deploy.md"))?;
//! let fixed = memdir_doctor::fix_relative_dates(&text).expect("modified decides the date");
//! assert!(fixed.text.ends_with("We ship 2026-03-05.\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checks;
mod dates;
mod folder;
mod similarity;
mod text;

use std::fmt;
use std::path::{Path, PathBuf};

pub use checks::citations::CitationsCheck;
pub use checks::duplicates::{DUPLICATE_THRESHOLD, NearDuplicates};
pub use checks::frontmatter::FrontmatterCheck;
pub use checks::index::IndexCheck;
pub use checks::not_to_save::NotToSave;
pub use checks::relative_dates::RelativeDates;
pub use checks::secrets::SecretsCheck;
pub use dates::{DateChange, DateFix, fix_relative_dates};
pub use folder::{FolderView, IndexFile, MAX_MEMORY_BYTES, MemoryFile};
pub use memdir_memtypes::Scope;
pub use similarity::similarity;

/// How much a [`Finding`] matters. Both make `memdir doctor` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// Must be dealt with: a secret in a memory the team shares.
    Error,
    /// Should be looked at.
    Warning,
}

impl Severity {
    /// The stable lowercase name used in JSON.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A repair that is safe to make without asking.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fix {
    /// Give the unindexed memories of the index's folder their index line
    /// (the folder crate's `fix_index`).
    IndexLine,
    /// Replace a relative date by an absolute one ([`fix_relative_dates`]).
    AbsoluteDate {
        /// The text found.
        from: String,
        /// The date it becomes, `YYYY-MM-DD` (with a preposition where the
        /// phrase needs one).
        to: String,
    },
}

/// One thing a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The check's stable kebab-case name (`near-duplicate`, `secret`, …).
    pub check: &'static str,
    /// How much it matters.
    pub severity: Severity,
    /// The file, relative to the checked folder and `/`-separated
    /// (`team/deploy.md`, `MEMORY.md`).
    pub file: String,
    /// The 1-based line of the file, when the finding has one.
    pub line: Option<usize>,
    /// One line saying what is wrong; never the text of a secret.
    pub message: String,
    /// The safe repair, when there is one.
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding without a line or a repair.
    #[must_use]
    pub fn new(
        check: &'static str,
        severity: Severity,
        file: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            check,
            severity,
            file: file.into(),
            line: None,
            message: message.into(),
            fix: None,
        }
    }

    /// The same finding on `line`.
    #[must_use]
    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The same finding with a repair.
    #[must_use]
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }
}

/// One independent check over a folder.
pub trait Check: Send + Sync {
    /// The check's stable kebab-case name, the `check` of its findings.
    fn name(&self) -> &'static str;
    /// What the check finds in `folder`.
    fn run(&self, folder: &FolderView) -> Vec<Finding>;
}

/// Why a folder could not be checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DoctorError {
    /// The memory folder, or a folder below it, cannot be listed.
    #[error("cannot read the memory folder {}", path.display())]
    ReadFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A list of checks run over a memory folder.
pub struct Doctor {
    checks: Vec<Box<dyn Check>>,
}

impl fmt::Debug for Doctor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.checks.iter().map(|c| c.name()))
            .finish()
    }
}

impl Doctor {
    /// Every check of this crate, in a fixed order.
    #[must_use]
    pub fn builtin() -> Self {
        Doctor {
            checks: vec![
                Box::new(FrontmatterCheck),
                Box::new(IndexCheck),
                Box::new(SecretsCheck),
                Box::new(RelativeDates),
                Box::new(NotToSave),
                Box::new(NearDuplicates::default()),
            ],
        }
    }

    /// No checks at all; add them with [`Doctor::with_check`].
    #[must_use]
    pub fn empty() -> Self {
        Doctor { checks: Vec::new() }
    }

    /// The same list with `check` added at its end.
    #[must_use]
    pub fn with_check(mut self, check: Box<dyn Check>) -> Self {
        self.checks.push(check);
        self
    }

    /// The names of the checks, in order.
    #[must_use]
    pub fn check_names(&self) -> Vec<&'static str> {
        self.checks.iter().map(|c| c.name()).collect()
    }

    /// Reads `folder` (and its `team/` subfolder) once and runs every
    /// check over it.
    pub fn run(&self, folder: &Path) -> Result<Vec<Finding>, DoctorError> {
        let view = FolderView::read(folder)?;
        Ok(self.run_on(&view))
    }

    /// Runs every check over a folder already read; findings sorted by
    /// file, then line, then check.
    #[must_use]
    pub fn run_on(&self, view: &FolderView) -> Vec<Finding> {
        let mut findings: Vec<Finding> = view.unreadable.clone();
        for check in &self.checks {
            findings.extend(check.run(view));
        }
        findings.sort_by(|a, b| {
            (&a.file, a.line, a.check, &a.message).cmp(&(&b.file, b.line, b.check, &b.message))
        });
        findings
    }
}
