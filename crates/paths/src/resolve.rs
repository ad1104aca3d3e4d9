//! Where memory lives (SPEC R4.1–R4.3, R4.7, R4.8): whether auto memory is
//! on and which rule said so, the memory base, the auto memory folder and
//! the source that chose it, the team folder and the daily log.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use camino::{Utf8Path, Utf8PathBuf};
use memdir_memtypes::ENTRYPOINT_NAME;
use memdir_settings::{Settings, SettingsLocations, SettingsSource};
use serde_json::Value;

use crate::{
    Environment, PathOrigin, PathsError, ProjectRoots, RootKind, find_project_roots, project_slug,
    utf8, validate_memory_path, validate_project_dir_name,
};

/// Turns auto memory off (`1`, `true`) or forces it on (`0`, `false`).
pub const ENV_DISABLE_AUTO_MEMORY: &str = "CLAUDE_CODE_DISABLE_AUTO_MEMORY";
/// Bare mode: auto memory off.
pub const ENV_SIMPLE: &str = "CLAUDE_CODE_SIMPLE";
/// A remote session.
pub const ENV_REMOTE: &str = "CLAUDE_CODE_REMOTE";
/// Persistent storage for a remote session's memory.
pub const ENV_REMOTE_MEMORY_DIR: &str = "CLAUDE_CODE_REMOTE_MEMORY_DIR";
/// The memory base folder (default `~/.claude`).
pub const ENV_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// A whole auto memory folder, overriding every other rule.
pub const ENV_MEMORY_PATH_OVERRIDE: &str = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE";
/// The folder name under `<base>/projects/`, used instead of the sanitised
/// project root when `CLAUDE_CONFIG_DIR` is set too (reference agent
/// 2.1.234+).
pub const ENV_PROJECT_DIR_NAME: &str = "CLAUDE_CODE_PROJECT_DIR_NAME";
/// Turns team memory on (`1`).
pub const ENV_TEAM: &str = "MEMDIR_TEAM";

/// The rule of R4.1 that decided whether auto memory is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnabledBy {
    /// Rule 1: `CLAUDE_CODE_DISABLE_AUTO_MEMORY` was `1`/`true` (off) or
    /// `0`/`false` (on, overriding every rule below).
    DisableEnv,
    /// Rule 2: `CLAUDE_CODE_SIMPLE` (bare mode).
    SimpleMode,
    /// Rule 3: a remote session (`CLAUDE_CODE_REMOTE`) without
    /// `CLAUDE_CODE_REMOTE_MEMORY_DIR`.
    RemoteWithoutStorage,
    /// Rule 4: `autoMemoryEnabled` in a settings file.
    Settings(SettingsSource),
    /// Rule 5: on by default.
    Default,
}

impl fmt::Display for EnabledBy {
    /// A stable identifier: `env:CLAUDE_CODE_DISABLE_AUTO_MEMORY`,
    /// `env:CLAUDE_CODE_SIMPLE`, `env:CLAUDE_CODE_REMOTE`,
    /// `settings:<source>` or `default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnabledBy::DisableEnv => write!(f, "env:{ENV_DISABLE_AUTO_MEMORY}"),
            EnabledBy::SimpleMode => write!(f, "env:{ENV_SIMPLE}"),
            EnabledBy::RemoteWithoutStorage => write!(f, "env:{ENV_REMOTE}"),
            EnabledBy::Settings(source) => write!(f, "settings:{source}"),
            EnabledBy::Default => f.write_str("default"),
        }
    }
}

/// Whether auto memory is on, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enablement {
    /// Whether auto memory is on.
    pub enabled: bool,
    /// The rule that decided it.
    pub by: EnabledBy,
}

/// Decides whether auto memory is on (R4.1): the first rule that applies
/// wins. Non-boolean `autoMemoryEnabled` values are reported in `warnings`
/// and skipped.
#[must_use]
pub fn auto_memory_enabled(
    env: &Environment,
    settings: &Settings,
    warnings: &mut Vec<String>,
) -> Enablement {
    let decided = |enabled, by| Enablement { enabled, by };
    if let Some(value) = env.var(ENV_DISABLE_AUTO_MEMORY) {
        match value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" => return decided(false, EnabledBy::DisableEnv),
            "0" | "false" => return decided(true, EnabledBy::DisableEnv),
            _ => {}
        }
    }
    if env.is_truthy(ENV_SIMPLE) {
        return decided(false, EnabledBy::SimpleMode);
    }
    if env.is_truthy(ENV_REMOTE) && env.var(ENV_REMOTE_MEMORY_DIR).is_none() {
        return decided(false, EnabledBy::RemoteWithoutStorage);
    }
    for file in settings.files().iter().rev() {
        match file.values.get("autoMemoryEnabled") {
            Some(Value::Bool(b)) => return decided(*b, EnabledBy::Settings(file.source)),
            Some(other) => warnings.push(format!(
                "{}: autoMemoryEnabled is {other}, not true or false; ignored",
                file.path.display()
            )),
            None => {}
        }
    }
    decided(true, EnabledBy::Default)
}

/// The memory base folder (R4.2): `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
/// Either one not valid UTF-8 is [`PathsError::NotUtf8`], never a lossy
/// spelling or a silent fall-back.
pub fn memory_base(env: &Environment) -> Result<Utf8PathBuf, PathsError> {
    if let Some(dir) = env.not_utf8_var(ENV_CONFIG_DIR) {
        return Err(PathsError::NotUtf8 {
            what: PathOrigin::ConfigDir,
            path: PathBuf::from(dir),
        });
    }
    if let Some(dir) = env.var(ENV_CONFIG_DIR) {
        return Ok(Utf8PathBuf::from(dir));
    }
    let home = env.home().ok_or(PathsError::NoHome)?;
    utf8(home.join(".claude"), PathOrigin::Home)
}

/// What chose the auto memory folder (R4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoMemPathSource {
    /// The caller's explicit folder (`memdir --memory-dir`).
    Explicit,
    /// `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`.
    Env,
    /// `autoMemoryDirectory` in a trusted settings file.
    Settings(SettingsSource),
    /// `<base>/projects/<name>/memory/` with the folder name from
    /// `CLAUDE_CODE_PROJECT_DIR_NAME` (set together with `CLAUDE_CONFIG_DIR`).
    ProjectDirName,
    /// `<base>/projects/<slug>/memory/`, the slug of the project root.
    Default,
}

impl fmt::Display for AutoMemPathSource {
    /// A stable identifier: `flag:--memory-dir`,
    /// `env:CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`, `settings:<source>`,
    /// `env:CLAUDE_CODE_PROJECT_DIR_NAME` or `default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoMemPathSource::Explicit => f.write_str("flag:--memory-dir"),
            AutoMemPathSource::Env => write!(f, "env:{ENV_MEMORY_PATH_OVERRIDE}"),
            AutoMemPathSource::ProjectDirName => write!(f, "env:{ENV_PROJECT_DIR_NAME}"),
            AutoMemPathSource::Settings(source) => write!(f, "settings:{source}"),
            AutoMemPathSource::Default => f.write_str("default"),
        }
    }
}

/// Why team memory is on or off (R4.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamEnabledBy {
    /// Off because auto memory is off.
    AutoMemoryOff,
    /// `MEMDIR_TEAM=1`.
    Env,
    /// `teamMemoryEnabled` in a settings file.
    Settings(SettingsSource),
    /// Off: nothing turned it on.
    Default,
}

impl fmt::Display for TeamEnabledBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamEnabledBy::AutoMemoryOff => f.write_str("auto-memory-off"),
            TeamEnabledBy::Env => write!(f, "env:{ENV_TEAM}"),
            TeamEnabledBy::Settings(source) => write!(f, "settings:{source}"),
            TeamEnabledBy::Default => f.write_str("default"),
        }
    }
}

/// Everything R4 resolves for one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The project's roots.
    pub project: ProjectRoots,
    /// The memory base folder.
    pub base: Utf8PathBuf,
    /// Whether auto memory is on, and why.
    pub enablement: Enablement,
    /// The auto memory folder, ending with a path separator.
    pub auto_mem_path: Utf8PathBuf,
    /// What chose it.
    pub auto_mem_path_source: AutoMemPathSource,
    /// Whether team memory is on.
    pub team_enabled: bool,
    /// Why team memory is on or off.
    pub team_enabled_by: TeamEnabledBy,
    /// The settings files read for this project, with their warnings:
    /// callers look keys up here rather than reading the files again.
    pub settings: Settings,
    /// Settings and overrides that were ignored, one line each (the
    /// settings files' warnings first).
    pub warnings: Vec<String>,
}

impl Resolution {
    /// `<auto>/MEMORY.md`.
    #[must_use]
    pub fn entrypoint(&self) -> Utf8PathBuf {
        self.auto_mem_path.join(ENTRYPOINT_NAME)
    }

    /// The team folder `<auto>/team/`, ending with a path separator.
    #[must_use]
    pub fn team_mem_path(&self) -> Utf8PathBuf {
        with_separator(self.auto_mem_path.join("team"))
    }

    /// The team index `<auto>/team/MEMORY.md`.
    #[must_use]
    pub fn team_entrypoint(&self) -> Utf8PathBuf {
        self.auto_mem_path.join("team").join(ENTRYPOINT_NAME)
    }

    /// The daily log of `date` (R4.7).
    #[must_use]
    pub fn daily_log_path(&self, date: jiff::civil::Date) -> Utf8PathBuf {
        daily_log_path(&self.auto_mem_path, date)
    }
}

/// `<auto>/logs/YYYY/MM/YYYY-MM-DD.md` (R4.7).
///
/// ```
/// use camino::Utf8Path;
/// let date = jiff::civil::date(2026, 3, 5);
/// assert_eq!(memdir_paths::daily_log_path(Utf8Path::new("/m/"), date), Utf8Path::new("/m/logs/2026/03/2026-03-05.md"));
/// ```
#[must_use]
pub fn daily_log_path(auto_mem_path: &Utf8Path, date: jiff::civil::Date) -> Utf8PathBuf {
    auto_mem_path
        .join("logs")
        .join(format!("{:04}", date.year()))
        .join(format!("{:02}", date.month()))
        .join(format!("{date}.md"))
}

/// Today's date in the system's local time zone (UTC when it is unknown).
#[must_use]
pub fn today_local() -> jiff::civil::Date {
    jiff::ZonedDateTime::now().date()
}

fn with_separator(path: Utf8PathBuf) -> Utf8PathBuf {
    let mut s = path.into_string();
    if !s.ends_with(std::path::MAIN_SEPARATOR) {
        s.push(std::path::MAIN_SEPARATOR);
    }
    Utf8PathBuf::from(s)
}

/// Resolves paths for projects, reading the environment and settings, and
/// remembers each project's answer: the same working tree is resolved once.
#[derive(Debug, Default)]
pub struct PathResolver {
    env: Environment,
    settings_file: Option<PathBuf>,
    managed_settings: Option<PathBuf>,
    explicit_memory_dir: Option<PathBuf>,
    cache: Mutex<HashMap<Utf8PathBuf, Arc<Resolution>>>,
}

impl PathResolver {
    /// A resolver over `env`, reading the platform's managed settings file.
    #[must_use]
    pub fn new(env: Environment) -> Self {
        PathResolver {
            env,
            managed_settings: Some(memdir_settings::managed_settings_path()),
            ..Self::default()
        }
    }

    /// Adds a settings file given on the command line (`--settings FILE`).
    #[must_use]
    pub fn with_settings_file(mut self, path: Option<PathBuf>) -> Self {
        self.settings_file = path;
        self
    }

    /// Replaces the managed settings file (`None`: read none).
    #[must_use]
    pub fn with_managed_settings(mut self, path: Option<PathBuf>) -> Self {
        self.managed_settings = path;
        self
    }

    /// Uses `dir` as the auto memory folder, skipping R4.3
    /// (`memdir --memory-dir`). A relative `dir` is taken relative to the
    /// working directory; the folder must still pass R4.6, and be valid
    /// UTF-8 ([`PathsError::NotUtf8`]).
    #[must_use]
    pub fn with_memory_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.explicit_memory_dir = dir;
        self
    }

    /// Resolves everything for the project that `cwd` is in.
    pub fn resolve(&self, cwd: &Path) -> Result<Arc<Resolution>, PathsError> {
        let project = find_project_roots(cwd)?;
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(hit) = cache.get(&project.work_tree) {
            return Ok(Arc::clone(hit));
        }
        let resolution = Arc::new(self.compute(project)?);
        cache.insert(
            resolution.project.work_tree.clone(),
            Arc::clone(&resolution),
        );
        Ok(resolution)
    }

    fn compute(&self, project: ProjectRoots) -> Result<Resolution, PathsError> {
        let env = &self.env;
        let base = memory_base(env)?;
        let mut locations = SettingsLocations::standard(
            base.as_std_path(),
            project.work_tree.as_std_path(),
            self.settings_file.clone(),
        );
        locations.managed.clone_from(&self.managed_settings);
        let mut settings = Settings::load(&locations);
        let mut warnings: Vec<String> = settings.warnings.iter().map(ToString::to_string).collect();
        distrust_tracked_local(&project, &mut settings, &mut warnings);

        let enablement = auto_memory_enabled(env, &settings, &mut warnings);
        let (auto_mem_path, auto_mem_path_source) = match &self.explicit_memory_dir {
            Some(dir) => {
                let absolute =
                    std::path::absolute(dir).map_err(|source| PathsError::ProjectDir {
                        path: dir.clone(),
                        source,
                    })?;
                let absolute = utf8(absolute, PathOrigin::MemoryDir)?;
                (
                    validate_memory_path(absolute.as_str(), false, env.home())?,
                    AutoMemPathSource::Explicit,
                )
            }
            None => auto_mem_path(env, &settings, &base, &project, &mut warnings),
        };
        let (team_enabled, team_enabled_by) =
            team_enabled(env, &settings, enablement.enabled, &mut warnings);
        Ok(Resolution {
            project,
            base,
            enablement,
            auto_mem_path,
            auto_mem_path_source,
            team_enabled,
            team_enabled_by,
            settings,
            warnings,
        })
    }
}

/// R4.3: a `settings.local.json` that the project's git tracks is the
/// repository's word, not the user's, so it is marked committed (not
/// trusted to choose where memory is written or sent). So is one whose
/// status cannot be told (an index that cannot be read), with a warning.
/// The index is consulted only when there is such a file. Besides the
/// file's own path, `.claude` itself (a committed link would choose where
/// the file is) and, when links lead elsewhere inside the working tree,
/// the path the file really has are looked up.
fn distrust_tracked_local(
    project: &ProjectRoots,
    settings: &mut Settings,
    warnings: &mut Vec<String>,
) {
    if matches!(project.kind, RootKind::NotGit | RootKind::Bare) {
        return;
    }
    let Some(local) = settings.file(SettingsSource::Local) else {
        return;
    };
    let path = local.path.clone();
    let mut wanted = vec![LOCAL_SETTINGS.to_owned(), ".claude".to_owned()];
    let work_tree = project.work_tree.as_std_path();
    if let (Ok(real), Ok(real_tree)) = (
        crate::canonical::canonicalize(&path),
        crate::canonical::canonicalize(work_tree),
    ) && let Ok(inside) = real.strip_prefix(&real_tree)
        && let Some(inside) = inside.to_str()
    {
        let inside = inside.replace(std::path::MAIN_SEPARATOR, "/");
        if !wanted.contains(&inside) {
            wanted.push(inside);
        }
    }
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    match crate::git_index_holds(work_tree, &wanted) {
        Ok(false) => {}
        Ok(true) => {
            settings.mark_committed(SettingsSource::Local);
        }
        Err(e) => {
            settings.mark_committed(SettingsSource::Local);
            warnings.push(format!(
                "{}: cannot tell whether git tracks it ({e}); taken as tracked, so it may not choose where memory is written",
                path.display()
            ));
        }
    }
}

/// The local settings file, relative to the working tree.
const LOCAL_SETTINGS: &str = ".claude/settings.local.json";

/// R4.3: the environment override, then `autoMemoryDirectory` from trusted
/// settings (highest precedence first), then the folder under
/// `<base>/projects/`: named by `CLAUDE_CODE_PROJECT_DIR_NAME`, else by the
/// project root. Invalid overrides are warned about and skipped.
fn auto_mem_path(
    env: &Environment,
    settings: &Settings,
    base: &Utf8Path,
    project: &ProjectRoots,
    warnings: &mut Vec<String>,
) -> (Utf8PathBuf, AutoMemPathSource) {
    if let Some(raw) = env.not_utf8_var(ENV_MEMORY_PATH_OVERRIDE) {
        warnings.push(format!(
            "{ENV_MEMORY_PATH_OVERRIDE}: {} is not valid UTF-8; ignored",
            Path::new(raw).display()
        ));
    }
    if let Some(raw) = env.var(ENV_MEMORY_PATH_OVERRIDE) {
        match validate_memory_path(raw, false, env.home()) {
            Ok(path) => return (path, AutoMemPathSource::Env),
            Err(e) => warnings.push(format!("{ENV_MEMORY_PATH_OVERRIDE}: {e}; ignored")),
        }
    }
    for file in settings.files().iter().rev() {
        let Some(value) = file.values.get("autoMemoryDirectory") else {
            continue;
        };
        let where_ = file.path.display();
        if !file.source.is_trusted() {
            warnings.push(format!(
                "{where_}: autoMemoryDirectory is ignored in the committed project settings (a repository may not choose where memory is written); set it in settings.local.json or your user settings"
            ));
            continue;
        }
        if !file.is_trusted() {
            warnings.push(format!(
                "{where_}: autoMemoryDirectory is ignored in a settings.local.json that git tracks (committed, it is the repository's word, not yours); untrack it (git rm --cached) or set it in your user settings"
            ));
            continue;
        }
        match value {
            Value::String(raw) => match validate_memory_path(raw, true, env.home()) {
                Ok(path) => return (path, AutoMemPathSource::Settings(file.source)),
                Err(e) => warnings.push(format!("{where_}: autoMemoryDirectory: {e}; ignored")),
            },
            other => warnings.push(format!(
                "{where_}: autoMemoryDirectory is {other}, not a string; ignored"
            )),
        }
    }
    if let Some(path) = project_dir_name_path(env, base, warnings) {
        return (path, AutoMemPathSource::ProjectDirName);
    }
    let slug = project_slug(project.canonical.as_str());
    (
        with_separator(base.join("projects").join(slug).join("memory")),
        AutoMemPathSource::Default,
    )
}

/// R4.3 step 3's override: `<base>/projects/$CLAUDE_CODE_PROJECT_DIR_NAME/memory/`
/// when `CLAUDE_CONFIG_DIR` is set too, the name is one plain segment and
/// the whole path passes R4.6. Anything else is warned about, and the
/// sanitised project root names the folder instead.
fn project_dir_name_path(
    env: &Environment,
    base: &Utf8Path,
    warnings: &mut Vec<String>,
) -> Option<Utf8PathBuf> {
    if let Some(raw) = env.not_utf8_var(ENV_PROJECT_DIR_NAME) {
        warnings.push(format!(
            "{ENV_PROJECT_DIR_NAME}: {} is not valid UTF-8; ignored",
            Path::new(raw).display()
        ));
        return None;
    }
    let raw = env.raw_var(ENV_PROJECT_DIR_NAME)?;
    if env.var(ENV_CONFIG_DIR).is_none() {
        if raw.is_empty() {
            return None;
        }
        // The reference agent reads the name only beside its own base
        // folder; following it alone would split one project's memory.
        warnings.push(format!(
            "{ENV_PROJECT_DIR_NAME} is ignored without {ENV_CONFIG_DIR}; the project root names the folder"
        ));
        return None;
    }
    let name = match validate_project_dir_name(raw) {
        Ok(name) => name,
        Err(e) => {
            warnings.push(format!("{ENV_PROJECT_DIR_NAME}: {e}; ignored"));
            return None;
        }
    };
    let path = base.join("projects").join(name).join("memory");
    match validate_memory_path(path.as_str(), false, env.home()) {
        Ok(path) => Some(path),
        Err(e) => {
            warnings.push(format!("{ENV_PROJECT_DIR_NAME}: {e}; ignored"));
            None
        }
    }
}

/// R4.8: team memory needs auto memory, and then `MEMDIR_TEAM=1` or
/// `teamMemoryEnabled: true` in any settings file.
fn team_enabled(
    env: &Environment,
    settings: &Settings,
    auto_enabled: bool,
    warnings: &mut Vec<String>,
) -> (bool, TeamEnabledBy) {
    if !auto_enabled {
        return (false, TeamEnabledBy::AutoMemoryOff);
    }
    if env.var(ENV_TEAM).is_some_and(|v| v.trim() == "1") {
        return (true, TeamEnabledBy::Env);
    }
    for file in settings.files().iter().rev() {
        match file.values.get("teamMemoryEnabled") {
            Some(Value::Bool(b)) => return (*b, TeamEnabledBy::Settings(file.source)),
            Some(other) => warnings.push(format!(
                "{}: teamMemoryEnabled is {other}, not true or false; ignored",
                file.path.display()
            )),
            None => {}
        }
    }
    (false, TeamEnabledBy::Default)
}
