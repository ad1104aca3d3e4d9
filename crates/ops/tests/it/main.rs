//! The use cases, run against real folders in a temporary home.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod memory;
mod team;

use std::path::{Path, PathBuf};

use memdir_ops::{Project, ProjectOptions};
use memdir_paths::Environment;
use memdir_testkit::Folders;

/// A home, a project and an explicit memory folder, all temporary.
pub(crate) struct World {
    folders: Folders,
}

impl World {
    pub(crate) fn new() -> World {
        World {
            folders: Folders::at("home", "project"),
        }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.folders.root.join(rel)
    }

    pub(crate) fn env(&self) -> Environment {
        Environment::new().with_home(self.path("home")).with_var(
            "CLAUDE_CONFIG_DIR",
            self.path("home/.claude").display().to_string(),
        )
    }

    /// The project with its memory in `<root>/memory`.
    pub(crate) fn project(&self, env: Environment) -> Project {
        Project::open(
            env,
            &ProjectOptions {
                dir: Some(self.path("project")),
                memory_dir: Some(self.path("memory")),
                settings_file: None,
            },
        )
        .unwrap()
    }

    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }
}

pub(crate) fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
