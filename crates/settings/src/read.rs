//! Reading the settings files, tolerantly: a missing file is normal, a
//! file that is not a JSON object is a warning naming the file, then
//! ignored. So is a FIFO, socket or device in a settings file's place
//! (never waited on) and a file over [`MAX_SETTINGS_BYTES`].
//!
//! Reading follows symbolic links, as the agent does: a `.claude` folder
//! the user linked is read as the agent reads it, so that memdir and the
//! agent agree on every setting. Writing never follows one
//! ([`crate::update_settings_file`]); and what a linked file may decide is
//! the caller's to judge with [`SettingsFile::is_trusted`].

use std::fmt;
use std::path::{Path, PathBuf};

use memdir_memtypes::{ReadError, read_regular_file};
use serde_json::{Map, Value};

/// At most this many bytes of a settings file are read (SPEC R18.4): real
/// settings files are a few kilobytes; the cap only stops a runaway file.
pub const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// Where a settings file comes from, in increasing precedence: a key set in
/// a later source overrides the same key in an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SettingsSource {
    /// `<base>/settings.json`, the user's own settings.
    User,
    /// `<project>/.claude/settings.json`, committed with the project. It is
    /// *not trusted* for `autoMemoryDirectory`: a repository anyone can
    /// clone must not choose where memdir writes.
    Project,
    /// `<project>/.claude/settings.local.json`, the user's uncommitted
    /// settings for this project. Committed after all (git tracks it), it
    /// is the repository's word and not trusted
    /// ([`SettingsFile::committed`]).
    Local,
    /// A file given on the command line (`--settings FILE`).
    Flag,
    /// The administrator's managed (policy) settings.
    Managed,
}

impl SettingsSource {
    /// All sources, lowest precedence first.
    pub const ALL: [SettingsSource; 5] = [
        SettingsSource::User,
        SettingsSource::Project,
        SettingsSource::Local,
        SettingsSource::Flag,
        SettingsSource::Managed,
    ];

    /// A stable short name: `user`, `project`, `local`, `flag`, `managed`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SettingsSource::User => "user",
            SettingsSource::Project => "project",
            SettingsSource::Local => "local",
            SettingsSource::Flag => "flag",
            SettingsSource::Managed => "managed",
        }
    }

    /// Whether the source may choose where memory is written. Every source
    /// but the committed project file, which comes from whoever wrote the
    /// repository. A file's own trust also depends on git: a local file the
    /// project's git tracks is not trusted either
    /// ([`SettingsFile::is_trusted`]).
    #[must_use]
    pub fn is_trusted(self) -> bool {
        self != SettingsSource::Project
    }
}

impl fmt::Display for SettingsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The system-wide managed settings file of this platform.
#[must_use]
pub fn managed_settings_path() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// The files to read, by source. A source without a path is not read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsLocations {
    /// `<base>/settings.json`.
    pub user: Option<PathBuf>,
    /// `<project>/.claude/settings.json`.
    pub project: Option<PathBuf>,
    /// `<project>/.claude/settings.local.json`.
    pub local: Option<PathBuf>,
    /// The `--settings FILE` flag.
    pub flag: Option<PathBuf>,
    /// The managed settings file.
    pub managed: Option<PathBuf>,
}

impl SettingsLocations {
    /// The standard locations for a memory base folder and a project's
    /// working tree, plus an optional flag file and the platform's managed
    /// file.
    #[must_use]
    pub fn standard(base: &Path, work_tree: &Path, flag: Option<PathBuf>) -> Self {
        SettingsLocations {
            user: Some(base.join("settings.json")),
            project: Some(work_tree.join(".claude").join("settings.json")),
            local: Some(work_tree.join(".claude").join("settings.local.json")),
            flag,
            managed: Some(managed_settings_path()),
        }
    }

    fn by_source(&self) -> [(SettingsSource, Option<&PathBuf>); 5] {
        [
            (SettingsSource::User, self.user.as_ref()),
            (SettingsSource::Project, self.project.as_ref()),
            (SettingsSource::Local, self.local.as_ref()),
            (SettingsSource::Flag, self.flag.as_ref()),
            (SettingsSource::Managed, self.managed.as_ref()),
        ]
    }
}

/// One settings file that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsFile {
    /// Its source.
    pub source: SettingsSource,
    /// Its path.
    pub path: PathBuf,
    /// Its top-level keys.
    pub values: Map<String, Value>,
    /// Whether the project's git tracks the file (or could not tell), so
    /// that it is the repository's word, not the user's
    /// ([`Settings::mark_committed`]).
    pub committed: bool,
}

impl SettingsFile {
    /// Whether the file may choose where memory is written or sent: its
    /// source is trusted ([`SettingsSource::is_trusted`]) and git does not
    /// track it. Pass it to [`Settings::find`] for such keys.
    #[must_use]
    pub fn is_trusted(&self) -> bool {
        self.source.is_trusted() && !self.committed
    }
}

/// Something wrong with a settings file or value that was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsWarning {
    /// The file concerned.
    pub path: PathBuf,
    /// What was wrong, naming the key where there is one.
    pub message: String,
}

impl fmt::Display for SettingsWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// All settings files that were read, and what was wrong with them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The files read, lowest precedence first.
    files: Vec<SettingsFile>,
    /// Files that exist but could not be used.
    pub warnings: Vec<SettingsWarning>,
}

impl Settings {
    /// Reads every location that exists. Never fails: a missing file is
    /// skipped silently, an unreadable or invalid one with a warning.
    #[must_use]
    pub fn load(locations: &SettingsLocations) -> Self {
        let mut settings = Settings::default();
        for (source, path) in locations.by_source() {
            let Some(path) = path else { continue };
            match read_object(path) {
                Ok(Some(values)) => {
                    settings.files.push(SettingsFile {
                        source,
                        path: path.clone(),
                        values,
                        committed: false,
                    });
                }
                Ok(None) => {}
                Err(unusable) => settings.warnings.push(SettingsWarning {
                    path: path.clone(),
                    message: format!("{unusable}; ignored"),
                }),
            }
        }
        settings
    }

    /// Settings made of files already read, in any order.
    #[must_use]
    pub fn from_files(mut files: Vec<SettingsFile>) -> Self {
        files.sort_by_key(|f| f.source);
        Settings {
            files,
            warnings: Vec::new(),
        }
    }

    /// The value of a top-level key from the highest-precedence file that
    /// sets it, among the files `accept` allows: [`SettingsFile::is_trusted`]
    /// for a key that decides where memory is written or sent.
    pub fn find(
        &self,
        key: &str,
        accept: impl Fn(&SettingsFile) -> bool,
    ) -> Option<(&SettingsFile, &Value)> {
        self.files
            .iter()
            .rev()
            .filter(|f| accept(f))
            .find_map(|f| f.values.get(key).map(|v| (f, v)))
    }

    /// Marks the file of `source` as one the project's git tracks (or one
    /// whose status could not be told, which counts the same): from then on
    /// it is not [trusted](SettingsFile::is_trusted). Returns whether a
    /// file of that source was read.
    pub fn mark_committed(&mut self, source: SettingsSource) -> bool {
        let mut found = false;
        for file in self.files.iter_mut().filter(|f| f.source == source) {
            file.committed = true;
            found = true;
        }
        found
    }

    /// The file read for `source`, if any.
    #[must_use]
    pub fn file(&self, source: SettingsSource) -> Option<&SettingsFile> {
        self.files.iter().find(|f| f.source == source)
    }

    /// The files read, lowest precedence first.
    #[must_use]
    pub fn files(&self) -> &[SettingsFile] {
        &self.files
    }
}

/// Why a settings file that exists cannot be used. The read side turns it
/// into a warning, the write side into a [`crate::SettingsWriteError`].
#[derive(Debug)]
pub(crate) enum Unusable {
    /// A FIFO, socket, device or folder: `kind` says which.
    NotAFile(&'static str),
    /// Over the limit, in bytes.
    TooLarge(u64),
    /// Opening or reading failed.
    Io(std::io::Error),
    /// Any other failure of the bounded read.
    Read(ReadError),
    /// Not JSON.
    InvalidJson(serde_json::Error),
    /// JSON, but not an object.
    NotAnObject,
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unusable::NotAFile(kind) => {
                write!(f, "cannot read settings (it is {kind}, not a regular file)")
            }
            Unusable::TooLarge(limit) => {
                write!(f, "cannot read settings (over the {limit}-byte limit)")
            }
            Unusable::Io(source) => write!(f, "cannot read settings ({source})"),
            Unusable::Read(e) => write!(f, "{e}"),
            Unusable::InvalidJson(e) => write!(f, "settings are not valid JSON ({e})"),
            Unusable::NotAnObject => f.write_str("settings are not a JSON object"),
        }
    }
}

/// The bytes of the settings file at `path`, read with the bound: `Ok(None)`
/// when there is no file.
pub(crate) fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, Unusable> {
    read_bytes_up_to(path, MAX_SETTINGS_BYTES)
}

/// [`read_bytes`] with another limit.
pub(crate) fn read_bytes_up_to(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, Unusable> {
    match read_regular_file(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(ReadError::NotAFile { kind, .. }) => Err(Unusable::NotAFile(kind)),
        Err(ReadError::TooLarge { limit, .. }) => Err(Unusable::TooLarge(limit)),
        Err(ReadError::Io { source, .. }) => Err(Unusable::Io(source)),
        Err(e) => Err(Unusable::Read(e)),
    }
}

/// The top-level keys of a settings file's text, which must be a JSON
/// object.
pub(crate) fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, Unusable> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Unusable::NotAnObject),
        Err(e) => Err(Unusable::InvalidJson(e)),
    }
}

/// Reads a JSON object from `path`: `Ok(None)` when there is no file.
fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, Unusable> {
    read_bytes(path)?
        .map(|bytes| parse_object(&bytes))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_invalid_and_valid_files() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.json");
        let bad = dir.path().join("bad.json");
        let list = dir.path().join("list.json");
        std::fs::write(&good, r#"{"autoMemoryEnabled": false}"#).unwrap();
        std::fs::write(&bad, "{not json").unwrap();
        std::fs::write(&list, "[1, 2]").unwrap();
        let settings = Settings::load(&SettingsLocations {
            user: Some(good.clone()),
            project: Some(bad.clone()),
            local: Some(list.clone()),
            flag: Some(dir.path().join("missing.json")),
            managed: Some(dir.path().to_owned()), // a folder: unreadable
        });
        assert_eq!(settings.files().len(), 1);
        assert_eq!(settings.files()[0].source, SettingsSource::User);
        let warned: Vec<_> = settings.warnings.iter().map(|w| w.path.clone()).collect();
        assert_eq!(warned, [bad, list, dir.path().to_owned()]);
        assert!(
            settings.warnings[0]
                .message
                .starts_with("settings are not valid JSON")
        );
        assert!(settings.warnings[0].to_string().contains("bad.json: "));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_a_device_or_a_huge_file_is_a_warning_not_a_wait() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("settings.json");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let huge = dir.path().join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_SETTINGS_BYTES + 1)
            .unwrap();
        let settings = Settings::load(&SettingsLocations {
            user: Some(fifo.clone()),
            local: Some(huge.clone()),
            flag: Some(PathBuf::from("/dev/zero")),
            ..SettingsLocations::default()
        });
        assert!(settings.files().is_empty());
        let messages: Vec<_> = settings.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                format!(
                    "{}: cannot read settings (it is a FIFO, not a regular file); ignored",
                    fifo.display()
                ),
                format!(
                    "{}: cannot read settings (over the 1048576-byte limit); ignored",
                    huge.display()
                ),
                "/dev/zero: cannot read settings (it is a device, not a regular file); ignored"
                    .to_owned(),
            ]
        );
    }

    #[test]
    fn higher_precedence_wins_and_filters_apply() {
        let file = |source, json: &str| SettingsFile {
            source,
            path: PathBuf::from(format!("/{source}.json")),
            values: serde_json::from_str(json).unwrap(),
            committed: false,
        };
        let settings = Settings::from_files(vec![
            file(SettingsSource::Project, r#"{"k": "project"}"#),
            file(SettingsSource::User, r#"{"k": "user"}"#),
            file(SettingsSource::Local, r#"{"other": 1}"#),
        ]);
        let (f, v) = settings.find("k", |_| true).unwrap();
        assert_eq!(
            (f.source, v.as_str()),
            (SettingsSource::Project, Some("project"))
        );
        let (f, _) = settings.find("k", SettingsFile::is_trusted).unwrap();
        assert_eq!(f.source, SettingsSource::User);
        assert!(settings.find("missing", |_| true).is_none());
    }

    #[test]
    fn a_committed_local_file_is_not_trusted() {
        let file = |source, json: &str| SettingsFile {
            source,
            path: PathBuf::from(format!("/{source}.json")),
            values: serde_json::from_str(json).unwrap(),
            committed: false,
        };
        let mut settings = Settings::from_files(vec![
            file(SettingsSource::User, r#"{"k": "user"}"#),
            file(SettingsSource::Local, r#"{"k": "local"}"#),
        ]);
        let (f, _) = settings.find("k", SettingsFile::is_trusted).unwrap();
        assert_eq!(f.source, SettingsSource::Local);
        assert!(settings.mark_committed(SettingsSource::Local));
        assert!(!settings.mark_committed(SettingsSource::Flag));
        let (f, v) = settings.find("k", SettingsFile::is_trusted).unwrap();
        assert_eq!((f.source, v.as_str()), (SettingsSource::User, Some("user")));
        // Keys any source may set still come from it.
        let (f, _) = settings.find("k", |_| true).unwrap();
        assert_eq!(f.source, SettingsSource::Local);
        assert!(settings.file(SettingsSource::Local).unwrap().committed);
    }

    #[test]
    fn the_project_file_is_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("settings.json");
        std::fs::write(&project, r#"{"autoMemoryDirectory": "~/x"}"#).unwrap();
        let settings = Settings::load(&SettingsLocations {
            project: Some(project),
            ..SettingsLocations::default()
        });
        assert!(
            settings
                .find("autoMemoryDirectory", SettingsFile::is_trusted)
                .is_none()
        );
        assert!(!settings.files()[0].committed);
    }
}
