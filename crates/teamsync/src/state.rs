//! The hidden sync state file: what each key held at the last sync, so
//! that a pull can tell a local edit from a stale copy.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

impl SyncState {
    fn path(team_dir: &Path) -> PathBuf {
        team_dir.join(STATE_FILE)
    }

    /// The state for `repo`; empty when there is none, it is unreadable,
    /// or it belongs to another repository.
    pub(crate) fn load(team_dir: &Path, repo: &str) -> Self {
        std::fs::read(Self::path(team_dir))
            .ok()
            .and_then(|b| serde_json::from_slice::<Self>(&b).ok())
            .filter(|s| s.repo == repo)
            .unwrap_or_else(|| Self {
                repo: repo.to_owned(),
                ..Self::default()
            })
    }

    /// Writes the state atomically.
    pub(crate) fn save(&self, team_dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(team_dir)
            .map_err(|e| format!("cannot create {}: {e}", team_dir.display()))?;
        let text = serde_json::to_vec_pretty(self).expect("the state always serialises");
        memdir_memtypes::atomic_write(&Self::path(team_dir), &text)
            .map_err(|e| format!("cannot write the sync state: {e}"))
    }
}

/// `sha256:<hex>` of bytes, as the server computes entry checksums.
pub(crate) fn sha256(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}
