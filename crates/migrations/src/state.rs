//! memdir's own records of the migrations, beside the agent's files but
//! never in them: done-flags and input fingerprints in
//! `<base>/memdir/state.json`, one JSON line per applied migration in
//! `<base>/memdir/migrations.jsonl`, and the global configuration's
//! backups in `<base>/backups/`.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use memdir_settings::{
    LockDir, SettingsDocument, SettingsPath, read_settings_file, replace_settings_file,
};
use serde::{Deserialize, Serialize};

use crate::{KEPT_BACKUPS, MigrationError};

/// The key of `state.json` that holds the migrations' part.
const STATE_KEY: &str = "migrations";

/// The migrations' part of `state.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct State {
    /// Done-flags: migration id -> when it ran (RFC 3339).
    #[serde(default)]
    pub(crate) done: BTreeMap<String, String>,
    /// How many migrations the table had at the last full run.
    #[serde(default)]
    pub(crate) table: usize,
    /// The inputs of the last full run: path -> fingerprint.
    #[serde(default)]
    pub(crate) inputs: BTreeMap<String, String>,
}

/// `state.json` as read: its whole document (other keys are kept), the
/// bytes for the compare-and-replace, and the migrations' part.
pub(crate) struct StateFile {
    bytes: Option<Vec<u8>>,
    doc: SettingsDocument,
    pub(crate) state: State,
}

impl StateFile {
    /// Reads `path`; a missing file is an empty state. A damaged one is an
    /// error naming it: done-flags that cannot be read must not be taken
    /// as "never ran".
    pub(crate) fn load(file: &SettingsPath) -> Result<StateFile, String> {
        let path = file.path();
        let read = read_settings_file(file, memdir_settings::MAX_SETTINGS_BYTES)
            .map_err(|e| e.to_string())?;
        let state = match read.document.get(STATE_KEY) {
            None => State::default(),
            Some(value) => serde_json::from_value(value).map_err(|e| {
                format!(
                    "cannot read {}: its {STATE_KEY:?} is not in memdir's shape ({e})",
                    path.display()
                )
            })?,
        };
        Ok(StateFile {
            bytes: read.bytes,
            doc: read.document,
            state,
        })
    }

    /// Writes the state back atomically, other keys untouched.
    pub(crate) fn save(
        mut self,
        file: &SettingsPath,
        locks: &LockDir,
    ) -> Result<(), MigrationError> {
        let value = serde_json::to_value(&self.state).expect("the state serialises");
        self.doc.set(STATE_KEY, &value);
        if !self.doc.is_changed() {
            return Ok(());
        }
        replace_settings_file(
            file,
            locks,
            self.bytes.as_deref(),
            &self.doc,
            memdir_settings::MAX_SETTINGS_BYTES,
        )
        .map_err(MigrationError::State)
    }
}

/// A file's identity and version for the cheap "anything new?" test:
/// length, modification time and inode, or `-` when there is no file.
pub(crate) fn fingerprint(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(meta) => {
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            #[cfg(unix)]
            let ino = std::os::unix::fs::MetadataExt::ino(&meta);
            #[cfg(not(unix))]
            let ino = 0;
            format!("{}:{mtime}:{ino}", meta.len())
        }
        Err(_) => "-".to_owned(),
    }
}

/// Appends one event line `{id, at, file, change}` to the log.
pub(crate) fn append_event(
    log: &Path,
    id: &str,
    at: &str,
    file: Option<&Path>,
    change: &str,
) -> Result<(), MigrationError> {
    let line = serde_json::json!({
        "id": id,
        "at": at,
        "file": file.map(|f| f.display().to_string()),
        "change": change,
    });
    let mut text = line.to_string();
    text.push('\n');
    let failed = |source| MigrationError::EventLog {
        path: log.to_owned(),
        source,
    };
    let mut out = OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .map_err(failed)?;
    // One write of one line: O_APPEND keeps concurrent lines whole.
    out.write_all(text.as_bytes()).map_err(failed)?;
    out.sync_data().map_err(failed)
}

/// Copies the global configuration's bytes, as read, to
/// `<base>/backups/.claude.json.backup.<ms since the epoch>` (readable by
/// the owner only: the file names accounts and projects; `backups` never
/// reached through a link), then keeps the [`KEPT_BACKUPS`] newest.
pub(crate) fn backup(base: &Path, name: &str, bytes: &[u8], now_ms: i64) -> io::Result<PathBuf> {
    // Thirteen digits until the year 2286: names sort as they age.
    let stamp = format!("{now_ms:013}");
    memdir_settings::write_backup(
        base,
        Path::new("backups"),
        &format!("{name}.backup."),
        &stamp,
        bytes,
        KEPT_BACKUPS,
    )
}
