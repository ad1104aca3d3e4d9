//! Pull (R8.2): each key judged three ways against the last sync; local
//! edits nobody else touched are kept, local edits that meet a newer server
//! edit are kept aside in `.conflicts/`.

use std::collections::BTreeMap;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, FolderLock};
use memdir_protocol::{entry_checksum, fold_team_mem_key, validate_team_mem_key_text};

use crate::client::{Client, MAX_FILE_SIZE_BYTES};
use crate::error::SyncError;
use crate::http::Transport;
use crate::result::{SkippedKey, SyncResult};
use crate::state::{CONFLICTS_DIR, SyncState, open_or_create};

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
    run(client).0
}

impl Client {
    /// Pulls the server's entries into the team folder; see [`pull`].
    #[must_use]
    pub fn pull(&self) -> SyncResult {
        pull(self)
    }
}

/// [`pull`], and the error that stopped it, if one did (a key that could
/// not be written stops nothing: it is reported in the result).
pub(crate) fn run(client: &Client) -> (SyncResult, Option<SyncError>) {
    match try_pull(client) {
        Ok(result) => (result, None),
        Err(e) => (SyncResult::from_error(&e), Some(e)),
    }
}

fn try_pull(client: &Client) -> Result<SyncResult, SyncError> {
    let (token, repo) = client.credentials()?;
    let transport = Transport::new(client, token, repo);
    let reply = transport.get_full()?;
    let data = match reply.status {
        200 => reply.data()?,
        // Nothing stored yet: nothing to pull.
        404 => {
            return Ok(SyncResult {
                success: true,
                ..SyncResult::default()
            });
        }
        _ => return Err(reply.error()),
    };
    let mut result = SyncResult {
        success: true,
        checksum: data.checksum.clone(),
        ..SyncResult::default()
    };

    // Validate every key before writing anything.
    let (accepted, skipped) = accept_entries(&data.content.entries);
    result.skipped = skipped;

    let team = open_or_create(&client.team_dir)?;
    let lock = team.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut state = SyncState::load(Some(&team), repo);
    let mut failures = Vec::new();
    for (key, text) in accepted {
        let server_sum = entry_checksum(text);
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
            Err(e) => {
                let reason = e.describe();
                failures.push(format!("{key}: {reason}"));
                result.skipped.push(SkippedKey { key, reason });
            }
        }
    }
    state.checksum.clone_from(&data.checksum);
    if let Err(e) = state.save(&lock) {
        failures.push(e.describe());
    }
    if !failures.is_empty() {
        result.success = false;
        result.error = Some(match failures.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
            [] => unreachable!("failures is not empty"),
        });
    }
    Ok(result)
}

/// The entries of a server's answer (texts, or checksums in the hashes
/// view) that a pull may write, by canonical (NFC) key, and the keys it
/// skips, with why. Pull and status both judge keys through it.
///
/// Every key must pass [`validate_team_mem_key_text`]. Keys that name one
/// file on some member's machine — spellings of one name that differ in
/// Unicode normalisation or in letter case, equal under
/// [`fold_team_mem_key`] — would write one file twice, or two files on
/// Linux and one on macOS and Windows: one of them is written, the others
/// skipped. The one written is the first in byte order, except that a
/// spelling already in NFC goes before one that is not, so that every
/// member's machine writes the same key.
pub(crate) fn accept_entries(
    entries: &BTreeMap<String, String>,
) -> (Vec<(String, &str)>, Vec<SkippedKey>) {
    let mut skipped = Vec::new();
    // Folded form → the key kept (as sent), its NFC form and its entry.
    let mut by_file: BTreeMap<String, (&str, String, &str)> = BTreeMap::new();
    // Keys that lost to another, by the folded form they share.
    let mut losers: Vec<(&str, String)> = Vec::new();
    for (key, text) in entries {
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
        let folded = fold_team_mem_key(&nfc);
        match by_file.get_mut(&folded) {
            None => {
                by_file.insert(folded, (key, nfc, text));
            }
            // The keys come in byte order: a later key replaces the kept
            // one only when it is in NFC and the kept one is not.
            Some(kept) if *key == nfc && kept.0 != kept.1 => {
                let lost = std::mem::replace(kept, (key, nfc, text));
                losers.push((lost.0, folded));
            }
            Some(_) => losers.push((key, folded)),
        }
    }
    for (key, folded) in losers {
        let kept = by_file.get(&folded).map_or("", |k| k.1.as_str());
        skipped.push(SkippedKey {
            key: key.to_owned(),
            reason: format!(
                "another key names the same file on some machine (letter case or Unicode \
                 normalisation apart): {kept}, which is written instead"
            ),
        });
    }
    let accepted = by_file
        .into_values()
        .map(|(_, nfc, text)| (nfc, text))
        .collect();
    (accepted, skipped)
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
) -> Result<Merged, SyncError> {
    let local = lock.folder().read(key, MAX_LOCAL_BYTES)?;
    let mut conflict_copy = None;
    if let Some(local) = local {
        let local_sum = entry_checksum(&local);
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
    lock.write(key, text.as_bytes())?;
    Ok(Merged::Written { conflict_copy })
}

/// Copies a local edit to `.conflicts/<key>.<time>` (created exclusively,
/// so two copies in one millisecond get two names).
fn save_conflict_copy(lock: &FolderLock<'_>, key: &str, local: &[u8]) -> Result<String, SyncError> {
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
            Err(e) => return Err(SyncError::ConflictCopy(e)),
        }
    }
}
