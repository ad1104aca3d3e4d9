//! What every command shares: the global options, and resolving the
//! project's memory paths from them.

use std::path::PathBuf;

use memdir_ops::{OpsError, Project, ProjectOptions};
use memdir_paths::Environment;

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
    /// Opens the project the options name, printing any warning (an
    /// invalid settings file, an ignored override) on stderr.
    pub(crate) fn project(&self) -> anyhow::Result<Project> {
        let options = ProjectOptions {
            dir: self.project.clone(),
            memory_dir: self.memory_dir.clone(),
            settings_file: self.settings.clone(),
        };
        let project =
            Project::open(Environment::from_process(), &options).map_err(|e| match e {
                OpsError::InvalidMemoryDir(e) => Rejected(format!("--memory-dir: {e}")).into(),
                OpsError::SettingsFile(e) => anyhow::Error::new(e).context("--settings"),
                e => ops_error(e),
            })?;
        for warning in project.warnings() {
            eprintln!(
                "memdir: warning: {}",
                crate::output::escape_controls(warning)
            );
        }
        Ok(project)
    }
}

/// A use case's error as the CLI reports it: a refusal for safety is exit
/// status 3, anything else a failure.
pub(crate) fn ops_error(e: OpsError) -> anyhow::Error {
    if e.is_refusal() {
        Rejected(e.to_string()).into()
    } else {
        e.into()
    }
}
