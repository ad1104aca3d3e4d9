//! Status: what a push would send and what a pull would write, computed
//! from one `view=hashes` GET and the local files, writing nothing.

use std::collections::BTreeSet;

use memdir_paths::{normalize_team_mem_key, validate_team_mem_key};
use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::http::{Failure, RepoData, Transport};
use crate::pull::is_hidden;
use crate::result::{ErrorType, SkippedKey, SkippedSecret, SyncResult};
use crate::state::{SyncState, sha256};

/// The outcome of [`status`]: the pending work in both directions. Empty
/// and absent fields are left out of the JSON (camelCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// Whether the status could be computed.
    pub success: bool,
    /// The repository checksum on the server (absent when it stores
    /// nothing yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Keys a push would send: local content differs from the server's and
    /// changed since the last sync.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_push: Vec<String>,
    /// Files a push would hold back because of a secret finding (rule ids
    /// and lines, never the secret).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_secrets: Vec<SkippedSecret>,
    /// Files a push would not send for another reason (over
    /// [`crate::MAX_FILE_SIZE_BYTES`], not UTF-8), and server keys a pull
    /// would not write (invalid or hidden).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedKey>,
    /// Keys a pull would write: the server's checksum differs from the
    /// local file, or the local file is missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_pull: Vec<String>,
    /// The keys of `to_pull` whose local file changed since the last sync,
    /// so that a pull would first save a copy under `.conflicts/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// Why a watcher on this folder holds pushes back after a permanent
    /// failure (cleared when a file is deleted), if one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<String>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<ErrorType>,
    /// A human-readable message for a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl SyncStatus {
    fn failed(error_type: Option<ErrorType>, message: String) -> Self {
        Self {
            success: false,
            error_type,
            error: Some(message),
            ..Self::default()
        }
    }

    /// The status as JSON text.
    ///
    /// # Panics
    ///
    /// Never: every field is a plain string, number, list or enum.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a SyncStatus always serialises")
    }
}

/// What a push would send and what a pull would write, from one
/// `view=hashes` GET and the local files. Writes nothing: not the files,
/// not the sync state.
#[must_use]
pub fn status(client: &Client) -> SyncStatus {
    let (token, repo) = match crate::credentials(client) {
        Ok(v) => v,
        Err(r) => return SyncStatus::failed(r.error_type, r.error.unwrap_or_default()),
    };
    let team = client.team_dir.as_path();
    let mut scan = SyncResult::default();
    let local = match crate::push::collect(team, &mut scan) {
        Ok(l) => l,
        Err(message) => return SyncStatus::failed(None, message),
    };
    let transport = Transport::new(client, token, repo);
    let server = match transport.get(true) {
        Ok(reply) => match reply.status {
            200 => match reply.data() {
                Ok(d) => d,
                Err(f) => return failed(f),
            },
            404 => RepoData::default(),
            _ => return failed(Failure::status(&reply)),
        },
        Err(f) => return failed(f),
    };
    let sums = &server.content.entry_checksums;
    let mut out = SyncStatus {
        success: true,
        checksum: server.checksum.clone(),
        skipped_secrets: scan.skipped_secrets,
        skipped: scan.skipped,
        suppressed: crate::watch::suppression(team),
        ..SyncStatus::default()
    };
    let state = SyncState::load(team, repo);
    // As push decides: changed from the server, and not merely out of date
    // (unchanged since the last sync while someone else's edit is newer).
    out.to_push = local
        .iter()
        .filter(|(k, l)| sums.get(*k) != Some(&l.sum) && state.entries.get(*k) != Some(&l.sum))
        .map(|(k, _)| k.clone())
        .collect();
    let mut to_pull = BTreeSet::new();
    for (key, server_sum) in sums {
        let path = match validate_team_mem_key(key, team) {
            Ok(_) if is_hidden(key) => {
                out.skipped.push(SkippedKey {
                    key: key.clone(),
                    reason: "hidden file names are reserved".to_owned(),
                });
                continue;
            }
            Ok(path) => path,
            Err(e) => {
                out.skipped.push(SkippedKey {
                    key: key.clone(),
                    reason: e.reason.to_string(),
                });
                continue;
            }
        };
        let key = normalize_team_mem_key(key);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let local_sum = sha256(&bytes);
                if &local_sum != server_sum {
                    if state.entries.get(&key) != Some(&local_sum) {
                        out.conflicts.push(key.clone());
                    }
                    to_pull.insert(key);
                }
            }
            Err(_) => {
                to_pull.insert(key);
            }
        }
    }
    out.to_pull = to_pull.into_iter().collect();
    out.conflicts.sort();
    out.conflicts.dedup();
    out
}

fn failed(f: Failure) -> SyncStatus {
    SyncStatus::failed(f.error_type, f.message)
}
