//! One run at the end of a turn: find the modified files, refuse a batch
//! over the limit (R15.4), upload the rest.

use std::fmt;
use std::path::Path;
use std::time::SystemTime;

use crate::env::Enabled;
use crate::error::PersistError;
use crate::find::{Found, find_modified_files};
use crate::upload::{FileOutcome, UploadOptions, Uploader};

/// The most files one turn uploads unless configured otherwise: 1,000. A
/// turn that leaves more in its outputs folder has almost surely written
/// a build tree or a dependency cache there, not deliverables; and at five
/// uploads in flight a thousand files already take minutes at the end of
/// a turn.
pub const FILE_COUNT_LIMIT: usize = 1_000;

/// How a run is made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PersistOptions {
    /// The most files uploaded in one run; a larger batch uploads nothing.
    pub file_count_limit: usize,
    /// How each upload is made.
    pub upload: UploadOptions,
}

impl Default for PersistOptions {
    fn default() -> Self {
        PersistOptions {
            file_count_limit: FILE_COUNT_LIMIT,
            upload: UploadOptions::default(),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// More files were modified than the limit allows: none was uploaded.
    Refused {
        /// How many files were modified.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// Every modified file was tried: one outcome each, in path order
    /// (none when nothing was modified).
    Uploaded(Vec<FileOutcome>),
}

impl Outcome {
    /// Whether every file was uploaded (true when there were none).
    #[must_use]
    pub fn all_uploaded(&self) -> bool {
        match self {
            Outcome::Refused { .. } => false,
            Outcome::Uploaded(files) => files.iter().all(|f| f.result.is_ok()),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Refused { count, limit } => write!(
                f,
                "{count} files were modified in the outputs folder, over the limit of {limit}; nothing was uploaded"
            ),
            Outcome::Uploaded(files) => {
                let ok = files.iter().filter(|o| o.result.is_ok()).count();
                let failed = files.len() - ok;
                if failed == 0 {
                    write!(f, "{ok} of {} files uploaded", files.len())
                } else {
                    write!(f, "{ok} of {} files uploaded, {failed} failed", files.len())
                }
            }
        }
    }
}

/// A run's outcome and what the search of the outputs folder found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What was uploaded, or why nothing was.
    pub outcome: Outcome,
    /// The search, with what it skipped.
    pub found: Found,
}

/// Uploads the files of `outputs_dir` modified at or after `turn_start`
/// (R15.3–R15.5). `done` hears of each file's outcome as it comes.
pub fn persist_files(
    enabled: &Enabled,
    turn_start: SystemTime,
    outputs_dir: &Path,
    options: &PersistOptions,
    done: &(dyn Fn(&FileOutcome) + Sync),
) -> Result<Report, PersistError> {
    let uploader = Uploader::new(
        &enabled.base_url,
        enabled.credential.clone(),
        options.upload.clone(),
    )?;
    let found = find_modified_files(turn_start, outputs_dir)?;
    for skipped in &found.skipped {
        log::debug!("{}: skipped: {}", skipped.path, skipped.reason);
    }
    let count = found.files.len();
    if count > options.file_count_limit {
        let outcome = Outcome::Refused {
            count,
            limit: options.file_count_limit,
        };
        log::warn!("{outcome}");
        return Ok(Report { outcome, found });
    }
    let outcomes = match &found.root {
        Some(root) if count > 0 => {
            let rels: Vec<String> = found.files.iter().map(|f| f.rel.clone()).collect();
            uploader.upload_all(root, &rels, done)
        }
        _ => Vec::new(),
    };
    let outcome = Outcome::Uploaded(outcomes);
    log::debug!("{outcome}");
    Ok(Report { outcome, found })
}
