//! Status: what a push would send and what a pull would write, computed
//! from one `view=hashes` GET and the local files, writing nothing.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::error::SyncError;
use memdir_protocol::{RepoData, entry_checksum};

use crate::error::ErrorType;
use crate::http::Transport;
use crate::push::{DIVERGED, FileNames, Judgement, judge};
use crate::result::{SkippedKey, SkippedSecret, SyncResult};
use crate::state::{SyncState, open_existing};

/// The outcome of [`status`]: the pending work in both directions, a
/// `serde::Serialize` type. Empty and absent fields are left out of the
/// JSON (camelCase).
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
    /// Keys a pull would write: the local file is missing, or the server
    /// changed the entry since the last sync and the local file differs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_pull: Vec<String>,
    /// The keys of `to_pull` whose local file changed since the last sync
    /// too, so that a pull would first save a copy under `.conflicts/`.
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

/// What a push would send and what a pull would write, from one
/// `view=hashes` GET and the local files. Writes nothing: not the files,
/// not the sync state.
#[must_use]
pub fn status(client: &Client) -> SyncStatus {
    try_status(client).unwrap_or_else(|e| SyncStatus {
        error_type: e.error_type(),
        error: Some(e.describe()),
        ..SyncStatus::default()
    })
}

impl Client {
    /// What a push would send and a pull would write; see [`status`].
    #[must_use]
    pub fn status(&self) -> SyncStatus {
        status(self)
    }
}

fn try_status(client: &Client) -> Result<SyncStatus, SyncError> {
    let (token, repo) = client.credentials()?;
    let team = client.team_dir.as_path();
    let folder = open_existing(team)?;
    let mut scan = SyncResult::default();
    let local = crate::push::collect(folder.as_ref(), &mut scan)?;
    let transport = Transport::new(client, token, repo);
    let reply = transport.get_hashes(None)?;
    let server = match reply.status {
        200 => reply.data()?,
        404 => RepoData::default(),
        _ => return Err(reply.error()),
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
    let state = SyncState::load(folder.as_ref(), repo);
    // As push decides: changed from the server, and not merely out of date
    // (unchanged since the last sync while someone else's edit is newer).
    let mut names = FileNames::new(sums);
    for (key, l) in &local {
        match judge(&l.sum, sums.get(key), state.entries.get(key)) {
            Judgement::Send => match names.claim(key) {
                Ok(()) => out.to_push.push(key.clone()),
                Err(reason) => out.skipped.push(SkippedKey {
                    key: key.clone(),
                    reason,
                }),
            },
            Judgement::Diverged => out.skipped.push(SkippedKey {
                key: key.clone(),
                reason: DIVERGED.to_owned(),
            }),
            Judgement::Keep => {}
        }
    }
    // As pull decides: the three-way rule against the last sync's base.
    let mut to_pull = BTreeSet::new();
    let (accepted, skipped) = crate::pull::accept_entries(sums);
    out.skipped.extend(skipped);
    for (key, server_sum) in accepted {
        let local = folder
            .as_ref()
            .and_then(|f| f.read(&key, crate::pull::MAX_LOCAL_BYTES).ok().flatten());
        let Some(bytes) = local else {
            to_pull.insert(key);
            continue;
        };
        let local_sum = entry_checksum(&bytes);
        let base = state.entries.get(&key);
        if local_sum != server_sum && base.map(String::as_str) != Some(server_sum) {
            if base != Some(&local_sum) {
                out.conflicts.push(key.clone());
            }
            to_pull.insert(key);
        }
    }
    out.to_pull = to_pull.into_iter().collect();
    out.conflicts.sort();
    out.conflicts.dedup();
    Ok(out)
}
