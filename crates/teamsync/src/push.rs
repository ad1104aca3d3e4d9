//! Push (R8.3): send only what changed, never a secret, in bounded bodies.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, MemoryFolder};
use memdir_memtypes::walk::{EntryKind, Walk, WalkError};
use memdir_protocol::{
    PutBody, RepoData, entry_checksum, fold_team_mem_key, normalize_team_mem_key,
    validate_team_mem_key_text,
};

use crate::client::{Client, MAX_CONFLICT_RETRIES, MAX_FILE_SIZE_BYTES, MAX_PUT_BODY_BYTES};
use crate::error::SyncError;
use crate::http::Transport;
use crate::result::{SkippedKey, SkippedSecret, SyncResult};
use crate::state::{SyncState, open_or_create};

/// A local file ready to send.
pub(crate) struct Local {
    text: String,
    pub(crate) sum: String,
}

/// Pushes the local files whose content differs from the server's, except
/// those unchanged since the last sync (the server then holds a newer edit).
///
/// Lists `*.md` files under the team folder (hidden files and folders
/// left out), keys relative with `/` in NFC; reads the server's hashes;
/// sends the changed keys in PUT bodies of at most
/// [`MAX_PUT_BODY_BYTES`] with `If-Match`. A file with a secret-scanner
/// finding or over [`MAX_FILE_SIZE_BYTES`] is not sent and is reported. On
/// 412 the delta is recomputed from the hashes in the answer, up to
/// [`MAX_CONFLICT_RETRIES`] times, then the result says `conflict`.
#[must_use]
pub fn push(client: &Client) -> SyncResult {
    run(client).0
}

impl Client {
    /// Pushes changed local files to the server; see [`push`].
    #[must_use]
    pub fn push(&self) -> SyncResult {
        push(self)
    }
}

/// [`push`], and the error that stopped it, if one did. The result keeps
/// what the push did and found before the error (uploads, skipped files).
pub(crate) fn run(client: &Client) -> (SyncResult, Option<SyncError>) {
    let mut result = SyncResult::default();
    match try_push(client, &mut result) {
        Ok(()) => (result, None),
        Err(e) => {
            result.fail(&e);
            (result, Some(e))
        }
    }
}

fn try_push(client: &Client, result: &mut SyncResult) -> Result<(), SyncError> {
    let (token, repo) = client.credentials()?;
    let team = open_or_create(&client.team_dir)?;
    // What the listing found is reported only once it is complete.
    let mut scanned = SyncResult::default();
    let local = collect(Some(&team), &mut scanned)?;
    *result = scanned;
    let transport = Transport::new(client, token, repo);
    let mut state = SyncState::load(Some(&team), repo);

    // R9.3: a state that mirrors the server's whole hashes view lets the
    // server answer "not modified" instead of sending it again.
    let held = state.complete_view();
    let reply = transport.get_hashes(held.as_ref().and_then(|v| v.checksum.as_deref()))?;
    let mut server = match (reply.status, held) {
        (200, _) => reply.data()?,
        (304, Some(held)) => held,
        (404, _) => RepoData::default(),
        _ => return Err(reply.error()),
    };

    // The keys whose base this push moves, for the state saved at the end.
    let mut touched: BTreeMap<String, String> = BTreeMap::new();
    let mut held: Vec<SkippedKey> = Vec::new();
    let mut conflicts = 0;
    'attempt: loop {
        // Send what differs from the server, except a file unchanged since
        // the last sync: there the server holds someone's newer edit, which
        // a pull will bring, and sending the old copy would lose it.
        let delta = delta(&local, &server, &state, &mut held);
        for (key, l) in &local {
            if server.content.entry_checksums.get(key) == Some(&l.sum) {
                state.entries.insert(key.clone(), l.sum.clone());
                touched.insert(key.clone(), l.sum.clone());
            }
        }
        for body in pack(&delta, result) {
            let reply = transport.put(&body.json, server.checksum.as_deref())?;
            match reply.status {
                200 => {
                    let data = reply.data()?;
                    let data = if reply.minimal {
                        written_into(server, data)
                    } else {
                        data
                    };
                    result.files_uploaded += body.keys.len();
                    result.uploaded.extend(body.keys.iter().cloned());
                    for key in &body.keys {
                        let sum = delta[key.as_str()].sum.clone();
                        state.entries.insert(key.clone(), sum.clone());
                        touched.insert(key.clone(), sum);
                    }
                    server = data;
                }
                412 | 428 if conflicts < MAX_CONFLICT_RETRIES => {
                    conflicts += 1;
                    server = reply.data()?;
                    continue 'attempt;
                }
                412 | 428 => {
                    result.conflict = Some(true);
                    return Err(SyncError::Conflict);
                }
                _ => return Err(reply.error()),
            }
        }
        break;
    }
    result.skipped.extend(held);
    result.success = true;
    result.checksum.clone_from(&server.checksum);
    save_state(&team, repo, touched, server.checksum.clone())
}

/// The server's view after a PUT whose answer was minimal: the view the
/// PUT was made against (its If-Match held, so nothing else changed) with
/// the written keys' checksums and the new version and checksum.
fn written_into(mut before: RepoData, written: RepoData) -> RepoData {
    before
        .content
        .entry_checksums
        .extend(written.content.entry_checksums);
    before.checksum = written.checksum;
    before.version = written.version;
    before.last_modified = written.last_modified;
    before.organization_id = written.organization_id;
    before.repo = written.repo;
    before
}

/// The files to send, by the three-way rule; `held` gets those held back
/// because both sides changed ([`DIVERGED`]) or because the key names the
/// file of another ([`FileNames`]).
fn delta<'a>(
    local: &'a BTreeMap<String, Local>,
    server: &RepoData,
    state: &SyncState,
    held: &mut Vec<SkippedKey>,
) -> BTreeMap<&'a str, &'a Local> {
    let mut delta = BTreeMap::new();
    held.clear();
    let sums = &server.content.entry_checksums;
    let mut names = FileNames::new(sums);
    for (key, l) in local {
        match judge(&l.sum, sums.get(key), state.entries.get(key)) {
            Judgement::Send => match names.claim(key) {
                Ok(()) => {
                    delta.insert(key.as_str(), l);
                }
                Err(reason) => held.push(SkippedKey {
                    key: key.clone(),
                    reason,
                }),
            },
            Judgement::Diverged => held.push(SkippedKey {
                key: key.clone(),
                reason: DIVERGED.to_owned(),
            }),
            Judgement::Keep => {}
        }
    }
    delta
}

/// The files a repository's keys name on a case-insensitive file system
/// ([`fold_team_mem_key`]), for holding back a new key that names the file
/// of another: the server refuses such a key (409, `key_collision`), and
/// the whole body with it.
pub(crate) struct FileNames<'a> {
    held: &'a BTreeMap<String, String>,
    /// Folded form → the key that names it.
    taken: HashMap<String, &'a str>,
}

impl<'a> FileNames<'a> {
    /// The names of the server's keys (`held`: key → checksum).
    pub(crate) fn new(held: &'a BTreeMap<String, String>) -> Self {
        let mut taken = HashMap::with_capacity(held.len());
        for key in held.keys() {
            taken.entry(fold_team_mem_key(key)).or_insert(key.as_str());
        }
        Self { held, taken }
    }

    /// Takes the file `key` names, for a key about to be sent (keys in key
    /// order); or says why it cannot be sent. A key the server holds under
    /// this very spelling is always fine.
    pub(crate) fn claim(&mut self, key: &'a str) -> Result<(), String> {
        if self.held.contains_key(key) {
            return Ok(());
        }
        match self.taken.entry(fold_team_mem_key(key)) {
            Entry::Occupied(other) => Err(format!(
                "names the same file as {} on macOS and Windows (letter case or Unicode \
                 normalisation apart); rename it, or merge it into {}",
                other.get(),
                other.get()
            )),
            Entry::Vacant(slot) => {
                slot.insert(key);
                Ok(())
            }
        }
    }
}

/// Records the bases this push moved. The state is read again under the
/// lock and only this push's keys are changed in it, so that a pull that
/// ran meanwhile keeps its own.
fn save_state(
    team: &MemoryFolder,
    repo: &str,
    touched: BTreeMap<String, String>,
    checksum: Option<String>,
) -> Result<(), SyncError> {
    let lock = team.lock(DEFAULT_LOCK_TIMEOUT)?;
    let mut saved = SyncState::load(Some(team), repo);
    saved.entries.extend(touched);
    saved.checksum = checksum;
    saved.save(&lock)
}

/// Why a push holds back a file edited here while the server's copy
/// changed too.
pub(crate) const DIVERGED: &str =
    "changed on the server too since the last sync; pull first (it keeps this edit in .conflicts/)";

/// What a push does with one local file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judgement {
    /// Send it: changed here, and the server still holds the base (or has
    /// no such key).
    Send,
    /// Leave it: the server holds the same, or the local file is the base
    /// and the server's newer edit is for a pull to bring.
    Keep,
    /// Hold it back: both sides changed since the last sync, and sending
    /// would overwrite someone's edit unseen. A pull resolves it.
    Diverged,
}

/// The three-way rule of a push (R8.2, R8.3): `local` against the server's
/// checksum and the base recorded at the last sync.
pub(crate) fn judge(local: &str, server: Option<&String>, base: Option<&String>) -> Judgement {
    let local_changed = base.map(String::as_str) != Some(local);
    if server.map(String::as_str) == Some(local) || !local_changed {
        Judgement::Keep
    } else if server.is_none() || server == base {
        Judgement::Send
    } else {
        Judgement::Diverged
    }
}

/// Reads, checks and scans every local memory file. A file whose name
/// holds a secret is not sent either, and is reported by a redacted name.
pub(crate) fn collect(
    team: Option<&MemoryFolder>,
    result: &mut SyncResult,
) -> Result<BTreeMap<String, Local>, SyncError> {
    let Some(team) = team else {
        return Ok(BTreeMap::new());
    };
    let mut files = Vec::new();
    list_md(team.path(), "", &mut files, result)?;
    let mut local = BTreeMap::new();
    for (key, rel) in files {
        let name_findings = memdir_secrets::scan_for_secrets(&key);
        if !name_findings.is_empty() {
            result.skipped_secrets.push(SkippedSecret {
                file: memdir_secrets::redact_secrets(&key),
                rule_ids: rule_ids(&name_findings),
                // A finding in the name is on no line of the file.
                lines: Vec::new(),
            });
            continue;
        }
        let bytes = match team.read(&rel, MAX_FILE_SIZE_BYTES as u64) {
            Ok(Some(b)) => b,
            // Gone since the listing: nothing to send.
            Ok(None) => continue,
            Err(FolderError::Read(memdir_memtypes::ReadError::TooLarge { .. })) => {
                result.skipped.push(SkippedKey {
                    key,
                    reason: SyncError::TooLarge {
                        limit: MAX_FILE_SIZE_BYTES,
                    }
                    .to_string(),
                });
                continue;
            }
            Err(e) => {
                result.skipped.push(SkippedKey {
                    key,
                    reason: SyncError::from(e).describe(),
                });
                continue;
            }
        };
        let Ok(text) = String::from_utf8(bytes) else {
            result.skipped.push(SkippedKey {
                key,
                reason: SyncError::NotUtf8.to_string(),
            });
            continue;
        };
        // Read every way a secret can hide: UTF-16 text without a byte
        // order mark is valid UTF-8, NULs and all.
        let findings = memdir_secrets::scan_for_secrets_in_bytes(text.as_bytes());
        if !findings.is_empty() {
            let mut lines: Vec<usize> = findings.iter().map(|f| f.line).collect();
            lines.sort_unstable();
            lines.dedup();
            let mut ids: Vec<String> = findings.iter().map(|f| f.rule_id.clone()).collect();
            ids.sort();
            ids.dedup();
            result.skipped_secrets.push(SkippedSecret {
                file: key,
                rule_ids: ids,
                lines,
            });
            continue;
        }
        let sum = entry_checksum(&text);
        local.insert(key, Local { text, sum });
    }
    Ok(local)
}

fn rule_ids(findings: &[memdir_secrets::SecretMatch]) -> Vec<String> {
    let mut ids: Vec<String> = findings.iter().map(|f| f.rule_id.clone()).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// `*.md` files under `dir`, hidden entries and symbolic links left out
/// (the one folder walk of [`memdir_memtypes::walk`]): their keys (NFC) and
/// their names on disk relative to the team folder.
fn list_md(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, String)>,
    result: &mut SyncResult,
) -> Result<(), SyncError> {
    for item in Walk::new(dir) {
        let entry = match item {
            Ok(entry) => entry,
            Err(WalkError::NonUtf8Name { path, .. }) => {
                // Named lossily in the report only; never sent.
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                result.skipped.push(SkippedKey {
                    key: format!("{prefix}{}", rel.to_string_lossy()),
                    reason: SyncError::NameNotUtf8.to_string(),
                });
                continue;
            }
            Err(e) => {
                return Err(SyncError::List {
                    path: e.path().to_owned(),
                    source: e.into_io_error(),
                });
            }
        };
        if entry.kind() == EntryKind::File
            && Path::new(entry.name())
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        {
            let rel = format!("{prefix}{}", entry.rel());
            // A name the server would refuse, or another member's machine
            // could not hold, is reported here rather than failing a PUT.
            match validate_team_mem_key_text(&rel) {
                Ok(key) => out.push((key, rel)),
                Err(e) => result.skipped.push(SkippedKey {
                    key: normalize_team_mem_key(&rel),
                    reason: e.reason.to_string(),
                }),
            }
        }
    }
    Ok(())
}

/// One PUT body, serialised, and the keys in it.
struct Body {
    json: String,
    keys: Vec<String>,
}

/// Packs entries into [`PutBody`]s of at most [`MAX_PUT_BODY_BYTES`]
/// serialised; an entry that cannot fit even alone is skipped and
/// reported.
fn pack(delta: &BTreeMap<&str, &Local>, result: &mut SyncResult) -> Vec<Body> {
    const FRAME: usize = r#"{"entries":{}}"#.len();
    let mut bodies = Vec::new();
    let mut current = PutBody::default();
    let mut size = FRAME;
    for (key, l) in delta {
        // `"key":"value"` as serde_json writes it, plus a comma when it is
        // not the first.
        let bytes = json_len(key) + 1 + json_len(&l.text);
        if FRAME + bytes > MAX_PUT_BODY_BYTES {
            result.skipped.push(SkippedKey {
                key: (*key).to_owned(),
                reason: SyncError::TooLargeForRequest {
                    limit: MAX_PUT_BODY_BYTES,
                }
                .to_string(),
            });
            continue;
        }
        let added = bytes + usize::from(!current.entries.is_empty());
        if size + added > MAX_PUT_BODY_BYTES {
            bodies.push(finish(&std::mem::take(&mut current)));
            size = FRAME;
        }
        size += bytes + usize::from(!current.entries.is_empty());
        current.entries.insert((*key).to_owned(), l.text.clone());
    }
    if !current.entries.is_empty() {
        bodies.push(finish(&current));
    }
    bodies
}

/// The length of a string as a JSON string literal.
fn json_len(text: &str) -> usize {
    serde_json::to_string(text)
        .expect("a string serialises")
        .len()
}

fn finish(body: &PutBody) -> Body {
    Body {
        json: serde_json::to_string(body).expect("a PUT body serialises"),
        keys: body.entries.keys().cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_stay_under_the_limit_and_hold_everything() {
        let locals: Vec<(String, Local)> = (0..30)
            .map(|i| {
                let text = format!("\"quoted\" line {i}\n").repeat(1_000 + i * 37);
                let sum = entry_checksum(&text);
                (format!("k{i:02}.md"), Local { text, sum })
            })
            .collect();
        let delta: BTreeMap<&str, &Local> = locals.iter().map(|(k, l)| (k.as_str(), l)).collect();
        let mut result = SyncResult::default();
        let bodies = pack(&delta, &mut result);
        assert!(bodies.len() > 1);
        let mut seen = 0;
        for b in &bodies {
            assert!(b.json.len() <= MAX_PUT_BODY_BYTES, "{}", b.json.len());
            let v: serde_json::Value = serde_json::from_str(&b.json).unwrap();
            let entries = v["entries"].as_object().unwrap();
            assert_eq!(entries.len(), b.keys.len());
            for k in &b.keys {
                assert_eq!(entries[k].as_str().unwrap(), delta[k.as_str()].text);
            }
            seen += entries.len();
        }
        assert_eq!(seen, 30);
        assert!(result.skipped.is_empty());
    }

    #[test]
    fn an_entry_too_large_for_any_body_is_reported() {
        let text = "\"".repeat(150_000); // escapes to 300,000 bytes
        let l = Local {
            sum: entry_checksum(&text),
            text,
        };
        let delta = BTreeMap::from([("big.md", &l)]);
        let mut result = SyncResult::default();
        assert!(pack(&delta, &mut result).is_empty());
        assert_eq!(result.skipped[0].key, "big.md");
    }
}
