//! Where the reference agent keeps the files the migrations read and
//! write.

use std::path::{Path, PathBuf};

use memdir_settings::{LockDir, SettingsPath};

/// The files of one run: the agent's global configuration, the user's
/// settings, one project's local settings, the subscription record, and
/// memdir's own state beside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// The agent's base folder, `~/.claude` or `$CLAUDE_CONFIG_DIR`: memdir
    /// keeps its done-flags, event log and backups under it.
    pub base: PathBuf,
    /// The global configuration: `~/.claude.json`, or
    /// `$CLAUDE_CONFIG_DIR/.claude.json` when that variable is set.
    pub global_config: PathBuf,
    /// The user's settings, `<base>/settings.json`.
    pub user_settings: PathBuf,
    /// The project folder whose entry in the global `projects` map is
    /// migrated, as the agent keys it (an absolute path), and its local
    /// settings `<project>/.claude/settings.local.json`; `None` runs no
    /// project migration.
    pub project: Option<ProjectFiles>,
    /// The subscription record, `<base>/.credentials.json` (only its
    /// `claudeAiOauth.subscriptionType` and `rateLimitTier` are read).
    pub credentials: PathBuf,
}

/// One project's folder and local settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFiles {
    /// The project folder.
    pub dir: PathBuf,
    /// `<dir>/.claude/settings.local.json`.
    pub local_settings: PathBuf,
}

impl Locations {
    /// The agent's standard layout: `base` is the resolved base folder;
    /// `home` the home folder, which holds `.claude.json` unless
    /// `config_dir_set` (then it is in `base`); `project` the project
    /// folder, if any.
    ///
    /// ```
    /// use std::path::Path;
    /// use memdir_migrations::Locations;
    ///
    /// let at = Locations::standard(Path::new("/h/.claude"), Some(Path::new("/h")), false, Some(Path::new("/src/app")));
    /// assert_eq!(at.global_config, Path::new("/h/.claude.json"));
    /// assert_eq!(at.user_settings, Path::new("/h/.claude/settings.json"));
    /// assert_eq!(at.project.unwrap().local_settings, Path::new("/src/app/.claude/settings.local.json"));
    ///
    /// let custom = Locations::standard(Path::new("/cfg"), Some(Path::new("/h")), true, None);
    /// assert_eq!(custom.global_config, Path::new("/cfg/.claude.json"));
    /// ```
    #[must_use]
    pub fn standard(
        base: &Path,
        home: Option<&Path>,
        config_dir_set: bool,
        project: Option<&Path>,
    ) -> Locations {
        let global_config = match home {
            Some(home) if !config_dir_set => home.join(".claude.json"),
            _ => base.join(".claude.json"),
        };
        Locations {
            base: base.to_owned(),
            global_config,
            user_settings: base.join("settings.json"),
            project: project.map(|dir| ProjectFiles {
                dir: dir.to_owned(),
                local_settings: dir.join(".claude").join("settings.local.json"),
            }),
            credentials: base.join(".credentials.json"),
        }
    }

    /// memdir's own folder under the base, `<base>/memdir/`.
    #[must_use]
    pub fn state_dir(&self) -> PathBuf {
        self.base.join("memdir")
    }

    /// The done-flags and input fingerprints, `<base>/memdir/state.json`.
    #[must_use]
    pub fn state_file(&self) -> PathBuf {
        self.state_dir().join("state.json")
    }

    /// The event log, `<base>/memdir/migrations.jsonl`.
    #[must_use]
    pub fn event_log(&self) -> PathBuf {
        self.state_dir().join("migrations.jsonl")
    }

    /// The folder of the global configuration's backups, `<base>/backups/`.
    #[must_use]
    pub fn backup_dir(&self) -> PathBuf {
        self.base.join("backups")
    }

    /// The lock that serialises memdir's runs, `<base>/memdir/migrations.lock`.
    #[must_use]
    pub fn lock_file(&self) -> PathBuf {
        self.state_dir().join("migrations.lock")
    }

    /// The folder of the settings files' locks, `<base>/memdir/locks/`.
    #[must_use]
    pub fn lock_dir(&self) -> LockDir {
        LockDir::under_base(&self.base)
    }

    /// How a file of this run is reached for writing: a project's local
    /// settings from the project folder, so that a linked `.claude` on the
    /// way is refused; any other file from the folder that holds it (the
    /// home or base folder, or memdir's own).
    pub(crate) fn target(&self, path: &Path) -> SettingsPath {
        if let Some(project) = &self.project
            && project.local_settings == path
            && let Ok(relative) = path.strip_prefix(&project.dir)
        {
            return SettingsPath::new(&project.dir, relative);
        }
        SettingsPath::in_folder(path).unwrap_or_else(|| SettingsPath::new(path, ""))
    }
}
