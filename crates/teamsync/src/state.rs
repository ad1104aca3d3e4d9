//! The hidden sync state file: what each key held at the last sync, so
//! that a pull can tell a local edit from a stale copy.

use std::collections::BTreeMap;
use std::path::Path;

use memdir_folder::{FolderLock, MemoryFolder};
use memdir_protocol::{Content, RepoData, repo_checksum};

use serde::{Deserialize, Serialize};

use crate::error::SyncError;

/// The state file's name in the team folder. Hidden, so never scanned as a
/// memory and never pushed.
pub const STATE_FILE: &str = ".sync-state.json";
/// The folder, in the team folder, that keeps local edits a pull replaced.
pub const CONFLICTS_DIR: &str = ".conflicts";

/// What the last sync saw.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SyncState {
    /// The repository the state belongs to.
    #[serde(default)]
    pub(crate) repo: String,
    /// The repository checksum last seen.
    #[serde(default)]
    pub(crate) checksum: Option<String>,
    /// Key (NFC) → `sha256:<hex>` of the content last synced.
    #[serde(default)]
    pub(crate) entries: BTreeMap<String, String>,
}

/// The most a state file may hold: a checksum per key for a repository of
/// tens of thousands of entries.
const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;

impl SyncState {
    /// The state for `repo`; empty when there is none, it is unreadable,
    /// or it belongs to another repository.
    pub(crate) fn load(team: Option<&MemoryFolder>, repo: &str) -> Self {
        team.and_then(|t| t.read(STATE_FILE, MAX_STATE_BYTES).ok().flatten())
            .and_then(|b| serde_json::from_slice::<Self>(&b).ok())
            .filter(|s| s.repo == repo)
            .unwrap_or_else(|| Self {
                repo: repo.to_owned(),
                ..Self::default()
            })
    }

    /// The server's hashes view as this state recorded it, when the state
    /// holds all of it: its entry checksums add up to its checksum. Then a
    /// `304 Not Modified` for that checksum means the server still holds
    /// exactly these entries.
    pub(crate) fn complete_view(&self) -> Option<RepoData> {
        let checksum = self.checksum.as_ref()?;
        (repo_checksum(&self.entries) == *checksum).then(|| RepoData {
            checksum: Some(checksum.clone()),
            content: Content {
                entries: BTreeMap::new(),
                entry_checksums: self.entries.clone(),
            },
            ..RepoData::default()
        })
    }

    /// Writes the state atomically, under the team folder's lock.
    pub(crate) fn save(&self, lock: &FolderLock<'_>) -> Result<(), SyncError> {
        let text = serde_json::to_vec_pretty(self).expect("the state always serialises");
        lock.write(STATE_FILE, &text).map_err(SyncError::StateWrite)
    }
}

/// Opens the team folder when it exists (`None` when it does not).
pub(crate) fn open_existing(team: &Path) -> Result<Option<MemoryFolder>, SyncError> {
    match MemoryFolder::open(team) {
        Ok(f) => Ok(Some(f)),
        Err(memdir_folder::FolderError::NotAFolder { .. }) if !team.exists() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Opens the team folder, creating it when missing.
pub(crate) fn open_or_create(team: &Path) -> Result<MemoryFolder, SyncError> {
    Ok(MemoryFolder::create(team)?)
}
