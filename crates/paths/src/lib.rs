//! Where memdir memory lives, and the rules that keep every write inside
//! it.
//!
//! Resolution (SPEC R4.1–R4.8):
//! - [`PathResolver`] resolves a project once ([`Resolution`]): whether auto
//!   memory is on and which rule decided ([`Enablement`]), the memory base,
//!   the auto memory folder and its source, team memory, the daily log.
//!   Its inputs are an [`Environment`] snapshot and the settings files,
//!   which it reads once through `memdir-settings` and keeps in
//!   [`Resolution::settings`]. A `settings.local.json` that the project's
//!   git tracks ([`git_index_holds`], read from git's index) is marked
//!   committed: like the project's `settings.json`, it may not choose where
//!   memory is written or sent.
//! - Every path a resolution gives out (the base, the auto memory and team
//!   folders, the project roots, the daily log) is a `camino::Utf8PathBuf`,
//!   because models and JSON output see them as text. A project folder,
//!   `CLAUDE_CONFIG_DIR`, home folder or `--memory-dir` that is not UTF-8
//!   is [`PathsError::NotUtf8`] naming it ([`PathOrigin`]), never a lossy
//!   spelling; an environment or settings override that is not is warned
//!   about and skipped, as any invalid override is.
//! - [`find_project_roots`] — the canonical git root, shared by all
//!   worktrees of a repository, found by reading git's files, spelled
//!   without Windows' verbatim prefix ([`strip_verbatim_prefix`]).
//! - [`project_slug`] / [`sanitize_path`] — folder names compatible with the
//!   reference agent's `~/.claude/projects/<slug>/`.
//!
//! Security (SPEC R4.6, R4.9–R4.11) — a cloned repository or a sync server
//! must never make memdir write outside the memory folder:
//! - [`validate_memory_path`] for configured folders, and
//!   [`validate_project_dir_name`] for a configured project folder name;
//! - [`validate_team_mem_key`] for keys from a server — the text rules of
//!   `memdir_protocol::validate_team_mem_key_text` (pure, shared by the
//!   client and the team server, and kept in `memdir-protocol`), then the
//!   physical checks — and
//!   [`validate_team_mem_write_path`] for paths about to be written, both
//!   failing with the distinct [`PathTraversalError`];
//! - [`realpath_deepest_existing`], which fails closed.
//!
//! ```
//! use memdir_paths::{Environment, PathResolver};
//!
//! let home = tempfile::tempdir()?;
//! let project = tempfile::tempdir()?;
//! let env = Environment::new().with_home(home.path());
//! let resolver = PathResolver::new(env).with_managed_settings(None);
//! let r = resolver.resolve(project.path())?;
//! assert!(r.enablement.enabled);
//! assert!(r.auto_mem_path.starts_with(home.path().join(".claude/projects")));
//! assert!(r.auto_mem_path.ends_with("memory"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::PathBuf;

mod canonical;
mod env;
mod resolve;
mod root;
mod slug;
mod tracked;
mod traversal;
mod validate;

pub use canonical::strip_verbatim_prefix;
pub use env::Environment;
pub use resolve::{
    AutoMemPathSource, ENV_CONFIG_DIR, ENV_DISABLE_AUTO_MEMORY, ENV_MEMORY_PATH_OVERRIDE,
    ENV_PROJECT_DIR_NAME, ENV_REMOTE, ENV_REMOTE_MEMORY_DIR, ENV_SIMPLE, ENV_TEAM, EnabledBy,
    Enablement, PathResolver, Resolution, TeamEnabledBy, auto_memory_enabled, daily_log_path,
    memory_base, today_local,
};
pub use root::{ProjectRoots, RootKind, find_project_roots, git_common_dir, git_config_value};
pub use slug::{MAX_SLUG_PREFIX, project_slug, sanitize_path};
pub use tracked::{GitIndexError, MAX_GIT_INDEX_BYTES, git_index_holds};
pub use traversal::{
    PathTraversalError, TraversalReason, realpath_deepest_existing, validate_team_mem_key,
    validate_team_mem_write_path,
};
pub use validate::{
    InvalidMemoryPath, InvalidProjectDirName, MAX_PROJECT_DIR_NAME_BYTES, MemoryPathReason,
    ProjectDirNameReason, normalize_lexically, validate_memory_path, validate_project_dir_name,
};

/// Errors of path resolution.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathsError {
    /// The project folder cannot be opened.
    #[error("cannot open project folder {}", path.display())]
    ProjectDir {
        /// The folder given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Neither `CLAUDE_CONFIG_DIR` nor a home folder is known.
    #[error("cannot find the memory base: neither CLAUDE_CONFIG_DIR nor HOME is set")]
    NoHome,
    /// The explicit memory folder failed validation.
    #[error(transparent)]
    InvalidMemoryDir(#[from] InvalidMemoryPath),
    /// A path that resolution would give out (to a model, in JSON) is not
    /// valid UTF-8. It is refused rather than changed: a lossy spelling
    /// would name another folder.
    #[error("{what} {} is not valid UTF-8", path.display())]
    NotUtf8 {
        /// Which path it is.
        what: PathOrigin,
        /// The path, exactly.
        path: PathBuf,
    },
}

/// Which path of a resolution was not valid UTF-8
/// ([`PathsError::NotUtf8`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathOrigin {
    /// The working tree of the project (the working directory outside
    /// git).
    ProjectFolder,
    /// The canonical project root that git's files lead to.
    ProjectRoot,
    /// `CLAUDE_CONFIG_DIR`.
    ConfigDir,
    /// The home folder, under which the memory base `~/.claude` would be.
    Home,
    /// The explicit memory folder (`--memory-dir`).
    MemoryDir,
}

impl std::fmt::Display for PathOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathOrigin::ProjectFolder => "project folder",
            PathOrigin::ProjectRoot => "project root",
            PathOrigin::ConfigDir => "CLAUDE_CONFIG_DIR",
            PathOrigin::Home => "home folder",
            PathOrigin::MemoryDir => "--memory-dir",
        })
    }
}

/// `path` as UTF-8, or [`PathsError::NotUtf8`] naming it as `what`.
fn utf8(path: PathBuf, what: PathOrigin) -> Result<camino::Utf8PathBuf, PathsError> {
    camino::Utf8PathBuf::from_path_buf(path).map_err(|path| PathsError::NotUtf8 { what, path })
}
