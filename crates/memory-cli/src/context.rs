//! What every command shares: the global options, and resolving the
//! project's memory paths from them.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use memdir_paths::{Environment, PathResolver, PathsError, Resolution};

/// The global options of every command.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct GlobalArgs {
    /// Print machine-readable JSON on stdout instead of text.
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// The project folder [default: the working directory]. Inside a git
    /// repository the project is the repository, shared by all its
    /// worktrees.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,

    /// Use DIR as the auto memory folder, skipping the environment and
    /// settings that would otherwise choose it.
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) memory_dir: Option<PathBuf>,

    /// An extra settings file, with the precedence of command-line settings
    /// (above the user's and the project's, below managed settings).
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) settings: Option<PathBuf>,
}

/// An input refused for safety: exit status 3 (SPEC R17.1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Rejected(pub(crate) String);

impl GlobalArgs {
    /// Resolves the project's memory paths, printing any warning (an
    /// invalid settings file, an ignored override) on stderr.
    pub(crate) fn resolve(&self) -> anyhow::Result<Arc<Resolution>> {
        let cwd = match &self.project {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().context("cannot read the working directory")?,
        };
        if let Some(file) = &self.settings {
            // A file the user named must be usable; a settings file found
            // on its own may be broken and is only warned about.
            memdir_memtypes::read_regular_file(file, memdir_settings::MAX_SETTINGS_BYTES)
                .map_err(|e| anyhow::Error::new(e).context("--settings"))?;
        }
        let resolver = PathResolver::new(Environment::from_process())
            .with_settings_file(self.settings.clone())
            .with_memory_dir(self.memory_dir.clone());
        let resolution = match resolver.resolve(&cwd) {
            Ok(r) => r,
            Err(PathsError::InvalidMemoryDir(e)) => {
                return Err(Rejected(format!("--memory-dir: {e}")).into());
            }
            Err(e) => return Err(e.into()),
        };
        for warning in &resolution.warnings {
            eprintln!("memdir: warning: {warning}");
        }
        Ok(resolution)
    }
}

/// How long a command waits for another writer's folder lock: the
/// library's default, or `MEMDIR_LOCK_TIMEOUT_MS`.
pub(crate) fn lock_timeout() -> std::time::Duration {
    std::env::var("MEMDIR_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(
            memdir_folder::DEFAULT_LOCK_TIMEOUT,
            std::time::Duration::from_millis,
        )
}

/// A folder error as the CLI reports it: a path that would leave the
/// folder is a refusal for safety (exit 3), anything else a failure.
pub(crate) fn folder_error(e: memdir_folder::FolderError) -> anyhow::Error {
    if e.is_refusal() {
        Rejected(e.to_string()).into()
    } else {
        e.into()
    }
}
