//! Push (R8.3): send only what changed, never a secret, in bounded bodies.

use std::collections::BTreeMap;
use std::path::Path;

use memdir_paths::normalize_team_mem_key;

use crate::client::{Client, MAX_CONFLICT_RETRIES, MAX_FILE_SIZE_BYTES, MAX_PUT_BODY_BYTES};
use crate::http::{Failure, RepoData, Transport};
use crate::result::{ErrorType, SkippedKey, SkippedSecret, SyncResult};
use crate::state::{SyncState, sha256};

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
    let (token, repo) = match crate::credentials(client) {
        Ok(v) => v,
        Err(r) => return *r,
    };
    let team = client.team_dir.as_path();
    let mut result = SyncResult::default();
    let local = match collect(team, &mut result) {
        Ok(l) => l,
        Err(message) => return SyncResult::failed(None, message),
    };
    let transport = Transport::new(client, token, repo);
    let mut state = SyncState::load(team, repo);

    let reply = match transport.get(true) {
        Ok(r) => r,
        Err(f) => return failed(f, result),
    };
    let mut server = match reply.status {
        200 => match reply.data() {
            Ok(d) => d,
            Err(f) => return failed(f, result),
        },
        404 => RepoData::default(),
        _ => return failed(Failure::status(&reply), result),
    };

    let mut conflicts = 0;
    'attempt: loop {
        // Send what differs from the server, except a file unchanged since
        // the last sync: there the server holds someone's newer edit, which
        // a pull will bring, and sending the old copy would lose it.
        let delta: BTreeMap<&str, &Local> = local
            .iter()
            .filter(|(k, l)| {
                server.content.entry_checksums.get(*k) != Some(&l.sum)
                    && state.entries.get(*k) != Some(&l.sum)
            })
            .map(|(k, l)| (k.as_str(), l))
            .collect();
        for (key, l) in &local {
            if server.content.entry_checksums.get(key) == Some(&l.sum) {
                state.entries.insert(key.clone(), l.sum.clone());
            }
        }
        for body in pack(&delta, &mut result) {
            let reply = match transport.put(&body.json, server.checksum.as_deref()) {
                Ok(r) => r,
                Err(f) => return failed(f, result),
            };
            match reply.status {
                200 => {
                    let data = match reply.data() {
                        Ok(d) => d,
                        Err(f) => return failed(f, result),
                    };
                    result.files_uploaded += body.keys.len();
                    result.uploaded.extend(body.keys.iter().cloned());
                    for key in &body.keys {
                        state
                            .entries
                            .insert(key.clone(), delta[key.as_str()].sum.clone());
                    }
                    server = data;
                }
                412 | 428 if conflicts < MAX_CONFLICT_RETRIES => {
                    conflicts += 1;
                    match reply.data() {
                        Ok(d) => server = d,
                        Err(f) => return failed(f, result),
                    }
                    continue 'attempt;
                }
                412 | 428 => {
                    result.conflict = Some(true);
                    return failed(
                        Failure {
                            error_type: Some(ErrorType::Conflict),
                            message: "the repository kept changing under the push".to_owned(),
                        },
                        result,
                    );
                }
                _ => return failed(Failure::status(&reply), result),
            }
        }
        break;
    }
    result.success = true;
    result.checksum.clone_from(&server.checksum);
    state.checksum.clone_from(&server.checksum);
    if let Err(message) = state.save(team) {
        result.success = false;
        result.error = Some(message);
    }
    result
}

fn failed(f: Failure, mut partial: SyncResult) -> SyncResult {
    partial.success = false;
    partial.error_type = f.error_type;
    partial.error = Some(f.message);
    partial
}

/// Reads, checks and scans every local memory file.
pub(crate) fn collect(
    team: &Path,
    result: &mut SyncResult,
) -> Result<BTreeMap<String, Local>, String> {
    let mut files = Vec::new();
    if team.is_dir() {
        list_md(team, "", &mut files, result)?;
    }
    let mut local = BTreeMap::new();
    for (key, path) in files {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        if bytes.len() > MAX_FILE_SIZE_BYTES {
            result.skipped.push(SkippedKey {
                key,
                reason: format!(
                    "{} bytes, over the {MAX_FILE_SIZE_BYTES}-byte limit",
                    bytes.len()
                ),
            });
            continue;
        }
        let Ok(text) = String::from_utf8(bytes) else {
            result.skipped.push(SkippedKey {
                key,
                reason: "not UTF-8 text".to_owned(),
            });
            continue;
        };
        let findings = memdir_secrets::scan_for_secrets(&text);
        if !findings.is_empty() {
            let mut rule_ids: Vec<String> = findings.iter().map(|f| f.rule_id.clone()).collect();
            rule_ids.sort();
            rule_ids.dedup();
            let mut lines: Vec<usize> = findings.iter().map(|f| f.line).collect();
            lines.sort_unstable();
            lines.dedup();
            result.skipped_secrets.push(SkippedSecret {
                file: key,
                rule_ids,
                lines,
            });
            continue;
        }
        let sum = sha256(text.as_bytes());
        local.insert(key, Local { text, sum });
    }
    Ok(local)
}

/// `*.md` files under `dir`, hidden entries and symbolic links left out,
/// with their NFC keys.
fn list_md(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, std::path::PathBuf)>,
    result: &mut SyncResult,
) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            result.skipped.push(SkippedKey {
                key: format!("{prefix}{}", name.to_string_lossy()),
                reason: "the file name is not UTF-8".to_owned(),
            });
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry
            .file_type()
            .map_err(|e| format!("cannot inspect {}: {e}", entry.path().display()))?;
        let key = normalize_team_mem_key(&format!("{prefix}{name}"));
        if file_type.is_dir() {
            list_md(&entry.path(), &format!("{key}/"), out, result)?;
        } else if file_type.is_file()
            && Path::new(name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        {
            out.push((key, entry.path()));
        }
    }
    Ok(())
}

/// One PUT body and the keys in it.
struct Body {
    json: String,
    keys: Vec<String>,
}

/// Packs entries into bodies of at most [`MAX_PUT_BODY_BYTES`]; an entry
/// that cannot fit even alone is skipped and reported.
fn pack(delta: &BTreeMap<&str, &Local>, result: &mut SyncResult) -> Vec<Body> {
    const FRAME: usize = r#"{"entries":{}}"#.len();
    let mut bodies = Vec::new();
    let mut current: Vec<(String, String)> = Vec::new();
    let mut size = FRAME;
    for (key, l) in delta {
        let pair = (
            serde_json::to_string(key).expect("a string serialises"),
            serde_json::to_string(&l.text).expect("a string serialises"),
        );
        // `"key":"value"` plus a comma when it is not the first.
        let bytes = pair.0.len() + 1 + pair.1.len();
        if FRAME + bytes > MAX_PUT_BODY_BYTES {
            result.skipped.push(SkippedKey {
                key: (*key).to_owned(),
                reason: format!("too large for one {MAX_PUT_BODY_BYTES}-byte request"),
            });
            continue;
        }
        let added = bytes + usize::from(!current.is_empty());
        if size + added > MAX_PUT_BODY_BYTES {
            bodies.push(finish(std::mem::take(&mut current)));
            size = FRAME;
        }
        size += bytes + usize::from(!current.is_empty());
        current.push(pair);
    }
    if !current.is_empty() {
        bodies.push(finish(current));
    }
    bodies
}

fn finish(pairs: Vec<(String, String)>) -> Body {
    let mut json = String::from(r#"{"entries":{"#);
    let mut keys = Vec::with_capacity(pairs.len());
    for (i, (k, v)) in pairs.into_iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&k);
        json.push(':');
        json.push_str(&v);
        keys.push(serde_json::from_str(&k).expect("the key was serialised just above"));
    }
    json.push_str("}}");
    Body { json, keys }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_stay_under_the_limit_and_hold_everything() {
        let locals: Vec<(String, Local)> = (0..30)
            .map(|i| {
                let text = format!("\"quoted\" line {i}\n").repeat(1_000 + i * 37);
                let sum = sha256(text.as_bytes());
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
            sum: sha256(text.as_bytes()),
            text,
        };
        let delta = BTreeMap::from([("big.md", &l)]);
        let mut result = SyncResult::default();
        assert!(pack(&delta, &mut result).is_empty());
        assert_eq!(result.skipped[0].key, "big.md");
    }
}
