//! Pull (R8.2): each key judged three ways against the last sync; local
//! edits nobody else touched are kept, local edits that meet a newer server
//! edit are kept aside in `.conflicts/`.

use std::collections::BTreeMap;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, FolderLock};
use memdir_paths::validate_team_mem_key_text;

use crate::client::{Client, MAX_FILE_SIZE_BYTES};
use crate::http::{Failure, RepoData, Transport};
use crate::result::{SkippedKey, SyncResult};
use crate::state::{CONFLICTS_DIR, SyncState, describe, open_or_create, sha256};

/// The most of a local file a pull reads to compare it: well above what a
/// push may send, so that an over-long local edit is still kept aside
/// rather than lost.
pub(crate) const MAX_LOCAL_BYTES: u64 = 4 * MAX_FILE_SIZE_BYTES as u64;

/// Pulls every entry of the client's repository into its team folder.
///
/// Every key must pass [`validate_team_mem_key_text`] (R4.10); a key that
/// fails is skipped and reported, never written. Each key is then judged
/// against the checksum recorded at the last sync (the base):
///
/// | server | local | pull |
/// |---|---|---|
/// | changed | unchanged | writes the server's entry |
/// | unchanged | changed | keeps the local file (a push sends it) |
/// | changed | changed, differently | copies the local file to `.conflicts/<key>.<time>`, then writes the server's entry |
/// | — | missing | writes the server's entry (deletions do not propagate, R8.4) |
///
/// A key never synced before counts as changed on both sides. Every write
/// goes through the team folder's lock and stays inside the folder, even
/// if a folder in it is swapped for a symbolic link while the pull runs.
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
    let mut result = SyncResult {
        success: true,
        checksum: data.checksum.clone(),
        ..SyncResult::default()
    };

    // Validate every key before writing anything.
    let (accepted, skipped) = accept_entries(&data);
    result.skipped = skipped;

    let team = match open_or_create(&client.team_dir) {
        Ok(t) => t,
        Err(message) => return SyncResult::failed(None, message),
    };
    let lock = match team.lock(DEFAULT_LOCK_TIMEOUT) {
        Ok(l) => l,
        Err(e) => return SyncResult::failed(None, describe(&e)),
    };
    let mut state = SyncState::load(Some(&team), repo);
    let mut failures = Vec::new();
    for (key, text) in accepted {
        let server_sum = sha256(text.as_bytes());
        let base = state.entries.get(&key).cloned();
        match merge_entry(&lock, &key, text, &server_sum, base.as_deref()) {
            Ok(Merged::Same) => {
                state.entries.insert(key, server_sum);
            }
            Ok(Merged::Written { conflict_copy }) => {
                result.files_pulled += 1;
                result.pulled.push(key.clone());
                result.conflict_copies.extend(conflict_copy);
                state.entries.insert(key, server_sum);
            }
            // The base stays: the next push sends the local edit.
            Ok(Merged::KeptLocal) => result.kept_local.push(key),
            Err(reason) => {
                failures.push(format!("{key}: {reason}"));
                result.skipped.push(SkippedKey { key, reason });
            }
        }
    }
    state.checksum.clone_from(&data.checksum);
    if let Err(message) = state.save(&lock) {
        failures.push(message);
    }
    if !failures.is_empty() {
        result.success = false;
        result.error = Some(match failures.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
            [] => unreachable!("failures is not empty"),
        });
    }
    result
}

/// The entries of a server's answer that a pull may write, by canonical
/// (NFC) key, and the keys it skips, with why.
///
/// Every key must pass [`validate_team_mem_key_text`]. Two spellings of
/// one name (NFC and NFD, say) would write one file twice: the spelling
/// already in NFC is kept (or, when none is, the first in byte order) and
/// the others are skipped.
pub(crate) fn accept_entries(data: &RepoData) -> (Vec<(String, &str)>, Vec<SkippedKey>) {
    let mut skipped = Vec::new();
    let mut by_name: BTreeMap<String, (&str, &str)> = BTreeMap::new();
    for (key, text) in &data.content.entries {
        let nfc = match validate_team_mem_key_text(key) {
            Ok(nfc) => nfc,
            Err(e) => {
                skipped.push(SkippedKey {
                    key: key.clone(),
                    reason: e.reason.to_string(),
                });
                continue;
            }
        };
        let loser = match by_name.get(&nfc) {
            None => None,
            // The keys come in byte order: a later key replaces the kept
            // one only when it is the canonical spelling.
            Some(&(kept, _)) if *key == nfc => Some(kept.to_owned()),
            Some(_) => Some(key.clone()),
        };
        if let Some(loser) = &loser {
            skipped.push(SkippedKey {
                key: loser.clone(),
                reason: format!("another key names the same file ({nfc})"),
            });
        }
        if loser.as_deref() != Some(key.as_str()) {
            by_name.insert(nfc, (key, text));
        }
    }
    let accepted = by_name
        .into_iter()
        .map(|(nfc, (_, text))| (nfc, text))
        .collect();
    (accepted, skipped)
}

fn failed(f: Failure) -> SyncResult {
    SyncResult::failed(f.error_type, f.message)
}

/// What a pull did with one key.
enum Merged {
    /// The local file already holds the server's entry.
    Same,
    /// The server's entry was written; a local edit it replaced was copied.
    Written { conflict_copy: Option<String> },
    /// The local file is an edit of the base the server still holds.
    KeptLocal,
}

fn merge_entry(
    lock: &FolderLock<'_>,
    key: &str,
    text: &str,
    server_sum: &str,
    base: Option<&str>,
) -> Result<Merged, String> {
    let local = lock
        .folder()
        .read(key, MAX_LOCAL_BYTES)
        .map_err(|e| describe(&e))?;
    let mut conflict_copy = None;
    if let Some(local) = local {
        let local_sum = sha256(&local);
        if local_sum == server_sum {
            return Ok(Merged::Same);
        }
        let server_changed = base != Some(server_sum);
        let local_changed = base != Some(local_sum.as_str());
        if !server_changed {
            return Ok(Merged::KeptLocal);
        }
        if local_changed {
            conflict_copy = Some(save_conflict_copy(lock, key, &local)?);
        }
    }
    lock.write(key, text.as_bytes()).map_err(|e| describe(&e))?;
    Ok(Merged::Written { conflict_copy })
}

/// Copies a local edit to `.conflicts/<key>.<time>` (created exclusively,
/// so two copies in one millisecond get two names).
fn save_conflict_copy(lock: &FolderLock<'_>, key: &str, local: &[u8]) -> Result<String, String> {
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%S%.3fZ")
        .to_string();
    let mut n = 0;
    loop {
        let rel = if n == 0 {
            format!("{CONFLICTS_DIR}/{key}.{stamp}")
        } else {
            format!("{CONFLICTS_DIR}/{key}.{stamp}-{n}")
        };
        match lock.create_new(&rel, local) {
            Ok(()) => return Ok(rel),
            Err(FolderError::AlreadyExists { .. }) if n < 100 => n += 1,
            Err(e) => {
                return Err(format!(
                    "cannot keep the local edit aside: {}",
                    describe(&e)
                ));
            }
        }
    }
}
