//! Pull (R8.2): the server wins per key; local edits are kept aside.

use std::path::{Path, PathBuf};

use memdir_paths::{normalize_team_mem_key, validate_team_mem_key};

use crate::client::Client;
use crate::http::{Failure, Transport};
use crate::result::{SkippedKey, SyncResult};
use crate::state::{CONFLICTS_DIR, SyncState, sha256};

/// Pulls every entry of the client's repository into its team folder.
///
/// Every key is checked with [`validate_team_mem_key`] before anything is
/// written; a key that fails (or names a hidden file) is skipped and
/// reported. A local file that differs from the server and was modified
/// since the last sync is first copied to `.conflicts/<key>.<timestamp>`.
/// Each file is written atomically. Deleted local files come back (R8.4).
#[must_use]
pub fn pull(client: &Client) -> SyncResult {
    let (token, repo) = match crate::credentials(client) {
        Ok(v) => v,
        Err(r) => return *r,
    };
    let transport = Transport::new(client, token, repo);
    let reply = match transport.get(false) {
        Ok(r) => r,
        Err(f) => return failed(f),
    };
    let data = match reply.status {
        200 => match reply.data() {
            Ok(d) => d,
            Err(f) => return failed(f),
        },
        // Nothing stored yet: nothing to pull.
        404 => {
            return SyncResult {
                success: true,
                ..SyncResult::default()
            };
        }
        _ => return failed(Failure::status(&reply)),
    };
    let team = client.team_dir.as_path();
    let mut result = SyncResult {
        success: true,
        checksum: data.checksum.clone(),
        ..SyncResult::default()
    };

    // Validate every key before writing anything.
    let mut accepted: Vec<(String, PathBuf, &str)> = Vec::new();
    for (key, text) in &data.content.entries {
        match validate_team_mem_key(key, team) {
            Ok(_) if is_hidden(key) => result.skipped.push(SkippedKey {
                key: key.clone(),
                reason: "hidden file names are reserved".to_owned(),
            }),
            Ok(path) => accepted.push((normalize_team_mem_key(key), path, text)),
            Err(e) => result.skipped.push(SkippedKey {
                key: key.clone(),
                reason: e.reason.to_string(),
            }),
        }
    }

    let mut state = SyncState::load(team, repo);
    for (key, path, text) in accepted {
        let server_sum = sha256(text.as_bytes());
        match write_entry(team, &key, &path, text, &server_sum, &state) {
            Ok(outcome) => {
                if outcome.written {
                    result.files_pulled += 1;
                    result.pulled.push(key.clone());
                }
                result.conflict_copies.extend(outcome.conflict_copy);
                state.entries.insert(key, server_sum);
            }
            Err(message) => {
                result.success = false;
                result.error = Some(message);
            }
        }
    }
    state.checksum.clone_from(&data.checksum);
    if let Err(message) = state.save(team) {
        result.success = false;
        result.error = Some(message);
    }
    result
}

fn failed(f: Failure) -> SyncResult {
    SyncResult::failed(f.error_type, f.message)
}

/// Whether any segment of a key names a hidden file (`.sync-state.json`,
/// `.conflicts/…`): those names belong to the client.
pub(crate) fn is_hidden(key: &str) -> bool {
    key.split('/').any(|s| s.starts_with('.'))
}

struct Written {
    written: bool,
    conflict_copy: Option<String>,
}

fn write_entry(
    team: &Path,
    key: &str,
    path: &Path,
    text: &str,
    server_sum: &str,
    state: &SyncState,
) -> Result<Written, String> {
    let mut conflict_copy = None;
    match std::fs::read(path) {
        Ok(local) => {
            let local_sum = sha256(&local);
            if local_sum == server_sum {
                return Ok(Written {
                    written: false,
                    conflict_copy: None,
                });
            }
            // A local edit since the last sync (or a file never synced) would
            // be lost: keep a copy.
            if state.entries.get(key) != Some(&local_sum) {
                conflict_copy = Some(save_conflict_copy(team, key, &local)?);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    memdir_memtypes::atomic_write(path, text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(Written {
        written: true,
        conflict_copy,
    })
}

fn save_conflict_copy(team: &Path, key: &str, local: &[u8]) -> Result<String, String> {
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%S%.3fZ")
        .to_string();
    let mut rel = format!("{CONFLICTS_DIR}/{key}.{stamp}");
    let mut n = 1;
    while team.join(&rel).exists() {
        rel = format!("{CONFLICTS_DIR}/{key}.{stamp}-{n}");
        n += 1;
    }
    let path = team.join(&rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    memdir_memtypes::atomic_write(&path, local).map_err(|e| e.to_string())?;
    Ok(rel)
}
