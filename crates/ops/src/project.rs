//! Opening a project: resolving where its memory lives, once, from an
//! environment snapshot and the caller's explicit choices.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use camino::Utf8PathBuf;
use memdir_paths::{Environment, PathResolver, PathsError, Resolution};

use crate::OpsError;

/// Overrides the folder lock's wait (milliseconds).
pub const ENV_LOCK_TIMEOUT_MS: &str = "MEMDIR_LOCK_TIMEOUT_MS";

/// What a front end knows when it opens a project.
#[derive(Debug, Clone, Default)]
pub struct ProjectOptions {
    /// The project folder; `None` is the working directory.
    pub dir: Option<PathBuf>,
    /// An explicit auto memory folder, skipping the environment and the
    /// settings that would otherwise choose it.
    pub memory_dir: Option<PathBuf>,
    /// An extra settings file with the precedence of command-line settings.
    /// Unlike a settings file found on its own, it must be usable.
    pub settings_file: Option<PathBuf>,
}

/// Which of a project's memory folders a use case works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The auto memory folder, private to the user.
    Private,
    /// The team folder (`<auto>/team/`), shared through team sync.
    Team,
}

/// A project whose memory paths are resolved: the handle every use case
/// of this crate works on.
#[derive(Debug, Clone)]
pub struct Project {
    resolution: Arc<Resolution>,
    env: Environment,
}

impl Project {
    /// Resolves the project's memory paths. Warnings (an invalid settings
    /// file, an ignored override) are in [`Project::warnings`] for the front
    /// end to show.
    ///
    /// First, the agent's settings migrations run when an input changed
    /// since their last run (one small read and a few `stat`s otherwise;
    /// see [`migrate`](crate::migrate)), so that what is resolved is the
    /// configuration the agent itself now reads.
    pub fn open(env: Environment, options: &ProjectOptions) -> Result<Project, OpsError> {
        let dir = match &options.dir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(OpsError::WorkingDirectory)?,
        };
        crate::migrate::at_start_up(&env, &dir);
        if let Some(file) = &options.settings_file {
            memdir_memtypes::read_regular_file(file, memdir_settings::MAX_SETTINGS_BYTES)
                .map_err(OpsError::SettingsFile)?;
        }
        let resolver = PathResolver::new(env.clone())
            .with_settings_file(options.settings_file.clone())
            .with_memory_dir(options.memory_dir.clone());
        let resolution = match resolver.resolve(&dir) {
            Ok(r) => r,
            Err(PathsError::InvalidMemoryDir(e)) => return Err(OpsError::InvalidMemoryDir(e)),
            Err(e) => return Err(e.into()),
        };
        Ok(Project { resolution, env })
    }

    /// A project made of a resolution the caller already has.
    #[must_use]
    pub fn from_resolution(resolution: Arc<Resolution>, env: Environment) -> Project {
        Project { resolution, env }
    }

    /// Where the project's memory lives, and which rule decided each value.
    #[must_use]
    pub fn resolution(&self) -> &Resolution {
        &self.resolution
    }

    /// The environment snapshot the project was opened with.
    #[must_use]
    pub fn env(&self) -> &Environment {
        &self.env
    }

    /// Settings and overrides that were ignored while resolving, one line
    /// each.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.resolution.warnings
    }

    /// The folder of `scope`; the team folder only when team memory is on.
    pub fn folder(&self, scope: Scope) -> Result<Utf8PathBuf, OpsError> {
        match scope {
            Scope::Private => Ok(self.resolution.auto_mem_path.clone()),
            Scope::Team => {
                self.require_team()?;
                Ok(self.resolution.team_mem_path())
            }
        }
    }

    /// An error unless team memory is on.
    pub(crate) fn require_team(&self) -> Result<(), OpsError> {
        if self.resolution.team_enabled {
            Ok(())
        } else {
            Err(OpsError::TeamOff {
                by: self.resolution.team_enabled_by.to_string(),
            })
        }
    }

    /// How long a write waits for another writer's folder lock: the folder
    /// crate's default, or [`ENV_LOCK_TIMEOUT_MS`].
    #[must_use]
    pub fn lock_timeout(&self) -> Duration {
        lock_timeout(&self.env)
    }
}

/// How long a write waits for another writer's folder lock in `env`: the
/// folder crate's default, or [`ENV_LOCK_TIMEOUT_MS`].
#[must_use]
pub fn lock_timeout(env: &Environment) -> Duration {
    env.var(ENV_LOCK_TIMEOUT_MS)
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(memdir_folder::DEFAULT_LOCK_TIMEOUT, Duration::from_millis)
}
