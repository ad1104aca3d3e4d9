//! Persisting a turn's output files (SPEC R15): the use case a front end
//! calls at the end of a turn.

use std::path::PathBuf;
use std::time::SystemTime;

use memdir_filepersist::{
    DisabledReason, Enablement, FileOutcome, Outcome, PersistEnv, PersistOptions, Skipped,
    persist_files,
};
use memdir_paths::Environment;

use crate::error::OpsError;

/// What to persist, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistRequest {
    /// When the turn started: files modified at or after it are uploaded.
    pub turn_start: SystemTime,
    /// The outputs folder [default: `<cwd>/<session id>/outputs`].
    pub outputs_dir: Option<PathBuf>,
    /// The working directory the default outputs folder is under [default:
    /// the process's].
    pub cwd: Option<PathBuf>,
    /// Whether files are secret-scanned first (and archives the scan cannot
    /// see into kept back); `false` uploads files even when they contain
    /// API keys or tokens.
    pub scan_secrets: bool,
    /// The most files one run uploads [default:
    /// [`FILE_COUNT_LIMIT`](memdir_filepersist::FILE_COUNT_LIMIT)].
    pub max_files: Option<usize>,
    /// Uploads in flight at once [default:
    /// [`DEFAULT_UPLOAD_CONCURRENCY`](memdir_filepersist::DEFAULT_UPLOAD_CONCURRENCY)].
    pub concurrency: Option<usize>,
}

impl PersistRequest {
    /// A request for the turn that started at `turn_start`, with every
    /// default.
    #[must_use]
    pub fn new(turn_start: SystemTime) -> Self {
        PersistRequest {
            turn_start,
            outputs_dir: None,
            cwd: None,
            scan_secrets: true,
            max_files: None,
            concurrency: None,
        }
    }
}

/// What a persistence run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistReport {
    /// Why it did not run, when it did not (R15.2).
    pub disabled: Option<DisabledReason>,
    /// The outputs folder it looked in, when it ran.
    pub outputs_dir: Option<PathBuf>,
    /// What it uploaded, or why nothing was (a batch over the limit).
    pub outcome: Option<Outcome>,
    /// What the search left out, and why.
    pub skipped: Vec<Skipped>,
}

impl PersistReport {
    /// Whether it ran (it was enabled).
    #[must_use]
    pub fn ran(&self) -> bool {
        self.disabled.is_none()
    }

    /// Whether something failed: a file not uploaded, or a refused batch.
    /// Not running is no failure.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.outcome.as_ref().is_some_and(|o| !o.all_uploaded())
    }
}

/// Uploads the output files of the turn that started at
/// `request.turn_start`, when `env` enables file persistence;
/// `done` hears of each file's outcome as it comes.
pub fn persist_outputs(
    env: &Environment,
    request: &PersistRequest,
    done: &(dyn Fn(&FileOutcome) + Sync),
) -> Result<PersistReport, OpsError> {
    let persist_env = PersistEnv::from_lookup(|name| env.var(name).map(str::to_owned));
    let enabled = match persist_env.enablement() {
        Enablement::Enabled(enabled) => enabled,
        Enablement::Disabled(reason) => {
            return Ok(PersistReport {
                disabled: Some(reason),
                outputs_dir: None,
                outcome: None,
                skipped: Vec::new(),
            });
        }
    };
    let outputs_dir = if let Some(dir) = &request.outputs_dir {
        dir.clone()
    } else {
        let cwd = match &request.cwd {
            Some(cwd) => cwd.clone(),
            None => std::env::current_dir().map_err(OpsError::WorkingDirectory)?,
        };
        enabled.outputs_dir(&cwd)?
    };
    let mut options = PersistOptions::default();
    if let Some(max) = request.max_files {
        options.file_count_limit = max;
    }
    if let Some(concurrency) = request.concurrency {
        options.upload.concurrency = concurrency.max(1);
    }
    options.upload.scan_secrets = request.scan_secrets;
    let report = persist_files(&enabled, request.turn_start, &outputs_dir, &options, done)?;
    Ok(PersistReport {
        disabled: None,
        outputs_dir: Some(outputs_dir),
        outcome: Some(report.outcome),
        skipped: report.found.skipped,
    })
}
