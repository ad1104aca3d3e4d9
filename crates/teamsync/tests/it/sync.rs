//! Pull and push against a real server.

use std::collections::BTreeMap;
use std::path::Path;

use memdir_protocol::{Content, RepoData, entry_checksum, repo_checksum};
use memdir_teamserver::{IfMatch, Limits, PutRequest, Store};
use memdir_teamsync::{CONFLICTS_DIR, ErrorType};
use memdir_testkit::{Proxy, Reply, ScriptedServer, dead_url};

use crate::support::{ORG, REPO, client_for, read, start, write, write_thousand};

/// A GitHub token of high entropy: `ghp_` and 36 alphanumerics.
const TOKEN: &str = "ghp_q8Zr2LkW9xTb4YcN7mVd1HsF6jPa3EuG5oRi";

fn md_files(team: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            if name.starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &format!("{prefix}{name}/"), out);
            } else {
                out.insert(
                    format!("{prefix}{name}"),
                    std::fs::read_to_string(e.path()).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(team, "", &mut out);
    out
}

#[test]
fn two_clients_converge() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (h.client(a.path()), h.client(b.path()));
    write(a.path(), "conventions/testing.md", "use nextest\n");
    write(
        a.path(),
        "MEMORY.md",
        "- [testing](conventions/testing.md)\n",
    );
    write(a.path(), "notes.txt", "not a memory\n");
    let r = ca.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 2);
    assert!(r.checksum.as_deref().unwrap().starts_with("sha256:"));

    write(b.path(), "deploy.md", "deploy on fridays, never\n");
    let r = cb.pull();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_pulled, 2);
    let r = cb.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1);
    let r = ca.pull();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_pulled, 1);

    let (fa, fb) = (md_files(a.path()), md_files(b.path()));
    assert_eq!(fa.len(), 4); // three memories and notes.txt
    let fa: BTreeMap<_, _> = fa.into_iter().filter(|(k, _)| k != "notes.txt").collect();
    assert_eq!(fa, fb);
    assert_eq!(fb, h.stored());
    // Nothing left to send either way.
    assert_eq!(ca.push().files_uploaded, 0);
    assert_eq!(cb.push().files_uploaded, 0);
    assert!(a.path().join(".sync-state.json").is_file());
}

#[test]
fn an_out_of_date_copy_never_overwrites_a_newer_edit() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (h.client(a.path()), h.client(b.path()));
    write(a.path(), "x.md", "first\n");
    assert!(ca.push().success);
    assert!(cb.pull().success);
    // B edits x.md and pushes; A, not yet pulled, edits another file.
    write(b.path(), "x.md", "second, from b\n");
    assert_eq!(cb.push().files_uploaded, 1);
    write(a.path(), "y.md", "unrelated\n");
    let status = ca.status();
    assert_eq!(status.to_push, ["y.md"], "status agrees with push");
    assert_eq!(status.to_pull, ["x.md"]);
    let pushed = ca.push();
    assert_eq!(pushed.uploaded, ["y.md"], "A's stale x.md is not sent");
    assert_eq!(h.stored()["x.md"], "second, from b\n");
    // A's next pull brings B's edit without a conflict copy.
    let pulled = ca.pull();
    assert!(pulled.conflict_copies.is_empty(), "{pulled:?}");
    assert_eq!(read(a.path(), "x.md"), "second, from b\n");
}

#[test]
fn delta_push_sends_only_the_changed_key() {
    let h = start();
    let proxy = Proxy::start(h.server.local_addr());
    let team = tempfile::tempdir().unwrap();
    let client = client_for(proxy.url(), team.path()).with_token(Some(h.token.clone()));
    write_thousand(team.path());
    let r = client.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1_000);
    let first = proxy.sent();
    assert!(first > 100_000, "the full push sent {first} bytes");
    let version = h.version();

    write(team.path(), "k/0500.md", "changed\n");
    let before = proxy.sent();
    let r = client.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1);
    // The bytes the client sent for the whole delta push (GET hashes plus
    // one PUT, headers included) are a few hundred: one key, not 1,000.
    let delta = proxy.sent() - before;
    assert!(delta < 2_000, "the delta push sent {delta} bytes");
    // And the server saw exactly one more accepted PUT, with the change.
    assert_eq!(h.version(), version + 1);
    let stored = h.stored();
    assert_eq!(stored.len(), 1_000);
    assert_eq!(stored["k/0500.md"], "changed\n");
}

#[test]
fn a_file_with_a_secret_is_never_sent() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    let client = h.client(team.path());
    write(team.path(), "ok.md", "nothing to see\n");
    write(
        team.path(),
        "creds.md",
        &format!("# Credentials\n\nthe ci token is {TOKEN}\n"),
    );
    let r = client.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1);
    assert_eq!(r.skipped_secrets.len(), 1);
    let s = &r.skipped_secrets[0];
    assert_eq!(s.file, "creds.md");
    assert_eq!(s.lines, vec![3]);
    assert!(
        s.rule_ids.iter().any(|id| id.starts_with("github")),
        "{s:?}"
    );
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains(TOKEN), "{json}");
    assert!(json.contains("skippedSecrets"), "{json}");
    let stored = h.stored();
    assert_eq!(stored.keys().collect::<Vec<_>>(), ["ok.md"]);
    assert!(stored.values().all(|t| !t.contains(TOKEN)));
}

/// UTF-16 text without a byte order mark is valid UTF-8 (NUL bytes and
/// all), so it passed the text check; the token inside is still found.
#[test]
fn a_secret_in_utf16_text_without_a_bom_is_never_sent() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    let text: Vec<u8> = format!("ci token: {TOKEN}\n")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert!(
        std::str::from_utf8(&text).is_ok(),
        "the file is valid UTF-8"
    );
    std::fs::write(team.path().join("wide.md"), &text).unwrap();
    write(team.path(), "ok.md", "nothing to see\n");
    let r = h.client(team.path()).push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.skipped_secrets.len(), 1, "{r:?}");
    assert_eq!(r.skipped_secrets[0].file, "wide.md");
    assert_eq!(h.stored().keys().collect::<Vec<_>>(), ["ok.md"]);
}

#[test]
fn oversized_files_are_skipped_and_reported() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    write(team.path(), "big.md", &"x".repeat(250_001));
    write(team.path(), "small.md", "small\n");
    let r = h.client(team.path()).push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 1);
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].key, "big.md");
    assert_eq!(h.stored().keys().collect::<Vec<_>>(), ["small.md"]);
}

#[test]
fn a_412_is_retried_with_a_recomputed_delta() {
    let h = start();
    let proxy = Proxy::start(h.server.local_addr());
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ca = client_for(proxy.url(), a.path()).with_token(Some(h.token.clone()));
    write(a.path(), "seed.md", "seed\n");
    assert!(ca.push().success);
    assert_eq!(proxy.requests("PUT"), 1);

    // Client B writes between A's read of the hashes and A's PUT, straight
    // to the server, so A's If-Match is stale and A gets 412.
    let cb = h.client(b.path());
    write(b.path(), "other.md", "from b\n");
    proxy.before("PUT", 1, move || assert!(cb.push().success));
    write(a.path(), "seed.md", "seed, edited\n");
    let gets = proxy.requests("GET");
    let r = ca.push();
    // One GET of the hashes: the retry took them from the 412 body.
    assert_eq!(proxy.requests("GET") - gets, 1);
    assert!(r.success, "{r:?}");
    assert_eq!(r.conflict, None);
    assert_eq!(r.files_uploaded, 1);
    assert_eq!(
        proxy.requests("PUT"),
        3,
        "the first push, the rejected PUT, the retry"
    );
    let stored = h.stored();
    assert_eq!(stored["seed.md"], "seed, edited\n");
    assert_eq!(stored["other.md"], "from b\n");
    assert_eq!(r.checksum.as_deref(), Some(h.checksum().as_str()));
}

#[test]
fn pull_keeps_a_copy_of_a_local_edit_it_overwrites() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (h.client(a.path()), h.client(b.path()));
    write(a.path(), "x.md", "v1\n");
    write(a.path(), "y.md", "y1\n");
    assert!(ca.push().success);
    assert!(cb.pull().success);

    write(b.path(), "x.md", "b's local edit\n");
    write(a.path(), "x.md", "v2\n");
    write(a.path(), "y.md", "y2\n");
    assert!(ca.push().success);
    let r = cb.pull();
    assert!(r.success, "{r:?}");
    assert_eq!(read(b.path(), "x.md"), "v2\n");
    assert_eq!(read(b.path(), "y.md"), "y2\n");
    // Only x.md was edited locally; y.md was as last synced.
    assert_eq!(r.conflict_copies.len(), 1, "{r:?}");
    let copy = &r.conflict_copies[0];
    assert!(
        copy.starts_with(&format!("{CONFLICTS_DIR}/x.md.")),
        "{copy}"
    );
    assert_eq!(read(b.path(), copy), "b's local edit\n");
    // The conflict copy is hidden: the next push does not send it.
    assert_eq!(cb.push().files_uploaded, 0);
    assert_eq!(h.stored().len(), 2);
}

#[test]
fn a_deleted_file_comes_back_on_pull() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    let client = h.client(team.path());
    write(team.path(), "deep/er/keep.md", "keep me\n");
    assert!(client.push().success);
    std::fs::remove_dir_all(team.path().join("deep")).unwrap();
    // Deletions do not propagate (R8.4).
    assert_eq!(client.push().files_uploaded, 0);
    assert_eq!(h.stored().len(), 1);
    let r = client.pull();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_pulled, 1);
    assert!(r.conflict_copies.is_empty());
    assert_eq!(read(team.path(), "deep/er/keep.md"), "keep me\n");
}

#[test]
fn bad_keys_from_the_server_are_skipped_never_written() {
    let h = start();
    // Straight into the store: the HTTP layer would refuse these keys.
    let entries = BTreeMap::from([
        ("good.md".to_owned(), "good\n".to_owned()),
        ("../escape.md".to_owned(), "evil\n".to_owned()),
        ("..%2fescape2.md".to_owned(), "evil\n".to_owned()),
        (".sync-state.json".to_owned(), "{}".to_owned()),
    ]);
    let limits = Limits { max_entries: 100 };
    h.store
        .put(&PutRequest {
            org: ORG,
            repo: REPO,
            entries: &entries,
            if_match: &IfMatch::Absent,
            limits,
        })
        .unwrap();
    let root = tempfile::tempdir().unwrap();
    let team = root.path().join("team");
    let r = h.client(&team).pull();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_pulled, 1);
    let skipped: Vec<&str> = r.skipped.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(
        skipped,
        ["..%2fescape2.md", "../escape.md", ".sync-state.json"]
    );
    assert!(!root.path().join("escape.md").exists());
    assert_eq!(read(&team, "good.md"), "good\n");
    assert_ne!(read(&team, ".sync-state.json"), "{}");
}

#[test]
fn keys_are_nfc() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // "café.md" spelled with a combining accent (NFD).
    write(a.path(), "cafe\u{301}.md", "coffee\n");
    assert!(h.client(a.path()).push().success);
    assert_eq!(h.stored().keys().collect::<Vec<_>>(), ["caf\u{e9}.md"]);
    assert!(h.client(b.path()).pull().success);
    assert_eq!(read(b.path(), "caf\u{e9}.md"), "coffee\n");
}

/// A scripted server's answer holding `pairs`, as a server that keeps
/// keys as sent gives it (one whose data predates the refusal of keys that
/// name one file, say): for `status` (hashes) and then `pull` (full).
fn answers_with(pairs: &[(&str, &str)]) -> ScriptedServer {
    let entries: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let sums: BTreeMap<String, String> = entries
        .iter()
        .map(|(k, v)| (k.clone(), entry_checksum(v)))
        .collect();
    let data = |full: bool| RepoData {
        organization_id: ORG.to_owned(),
        repo: REPO.to_owned(),
        version: 1,
        last_modified: None,
        checksum: Some(repo_checksum(&sums)),
        content: Content {
            entries: if full {
                entries.clone()
            } else {
                BTreeMap::new()
            },
            entry_checksums: sums.clone(),
        },
    };
    let reply = |full| Reply::json(200, &serde_json::to_value(data(full)).unwrap());
    ScriptedServer::start(vec![reply(false), reply(true)])
}

/// A client of a scripted server, on `team`.
fn scripted_client(server: &ScriptedServer, team: &Path) -> memdir_teamsync::Client {
    client_for(server.url(), team).with_token(Some("t".to_owned()))
}

#[test]
fn two_spellings_of_one_name_write_one_file_once() {
    let server = answers_with(&[("cafe\u{301}.md", "nfd\n"), ("caf\u{e9}.md", "nfc\n")]);
    let team = tempfile::tempdir().unwrap();
    // Status judges keys as pull does: one file to pull, one key skipped.
    let st = scripted_client(&server, team.path()).status();
    assert_eq!(st.to_pull, ["caf\u{e9}.md"], "{st:?}");
    let skipped: Vec<&str> = st.skipped.iter().map(|s| s.key.as_str()).collect();
    assert_eq!(skipped, ["cafe\u{301}.md"]);
    let r = scripted_client(&server, team.path()).pull();
    assert!(r.success, "{r:?}");
    assert_eq!(
        (r.files_pulled, r.pulled.as_slice()),
        (1, ["caf\u{e9}.md".to_owned()].as_slice())
    );
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].key, "cafe\u{301}.md");
    assert!(
        r.skipped[0].reason.contains("same file"),
        "{:?}",
        r.skipped[0]
    );
    assert_eq!(read(team.path(), "caf\u{e9}.md"), "nfc\n");
}

#[test]
fn keys_differing_only_in_case_write_one_file_once() {
    // On macOS and Windows each pair is one file: writing both would
    // leave one member's folder with whichever came last.
    let server = answers_with(&[
        ("deploy.md", "lower\n"),
        ("Deploy.md", "upper\n"),
        ("MEMORY.md", "- [deploy](Deploy.md)\n"),
        ("memory.md", "a stray index\n"),
        ("notes/A.md", "a\n"),
        ("Notes/a.md", "b\n"),
    ]);
    let team = tempfile::tempdir().unwrap();
    let st = scripted_client(&server, team.path()).status();
    assert_eq!(
        st.to_pull,
        ["Deploy.md", "MEMORY.md", "Notes/a.md"],
        "{st:?}"
    );
    let r = scripted_client(&server, team.path()).pull();
    assert!(r.success, "{r:?}");
    // The first of each pair in sorted (byte) order is written ...
    assert_eq!(r.pulled, ["Deploy.md", "MEMORY.md", "Notes/a.md"]);
    assert_eq!(
        md_files(team.path()),
        BTreeMap::from([
            ("Deploy.md".to_owned(), "upper\n".to_owned()),
            ("MEMORY.md".to_owned(), "- [deploy](Deploy.md)\n".to_owned()),
            ("Notes/a.md".to_owned(), "b\n".to_owned()),
        ])
    );
    // ... and the other reported, naming the one written.
    let skipped: Vec<(&str, &str)> = r
        .skipped
        .iter()
        .map(|s| (s.key.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    for (key, kept) in [
        ("deploy.md", "Deploy.md"),
        ("memory.md", "MEMORY.md"),
        ("notes/A.md", "Notes/a.md"),
    ] {
        let reason = skipped
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("{key} not skipped: {skipped:?}"))
            .1;
        assert!(
            reason.contains("same file") && reason.contains(kept),
            "{key}: {reason}"
        );
    }
}

#[test]
fn credentials_and_faults() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    write(team.path(), "a.md", "a\n");

    let bad = h
        .client(team.path())
        .with_token(Some("mdt_0000_bad".to_owned()));
    for r in [bad.pull(), bad.push()] {
        assert!(!r.success);
        assert_eq!(r.error_type, Some(ErrorType::Auth), "{r:?}");
    }
    let none = h.client(team.path()).with_token(None);
    for r in [none.pull(), none.push()] {
        assert_eq!(r.error_type, Some(ErrorType::NoOauth), "{r:?}");
        assert!(
            serde_json::to_string(&r)
                .unwrap()
                .contains(r#""errorType":"no_oauth""#)
        );
    }
    let no_repo = h.client(team.path()).with_repo(None);
    assert_eq!(no_repo.push().error_type, Some(ErrorType::NoRepo));

    // Nothing listens: a network error, after quick retries.
    let down = client_for(&dead_url(), team.path()).with_token(Some(h.token.clone()));
    assert_eq!(down.push().error_type, Some(ErrorType::Network));
    assert!(h.stored().is_empty());
}

#[test]
fn conflict_after_the_retries_run_out() {
    let h = start();
    let proxy = Proxy::start(h.server.local_addr());
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ca = client_for(proxy.url(), a.path()).with_token(Some(h.token.clone()));
    write(a.path(), "seed.md", "seed\n");
    assert!(ca.push().success);

    // Another writer gets in before every one of A's PUTs.
    let cb = h.client(b.path());
    let mut writes = 0;
    let team_b = b.path().to_owned();
    proxy.before("PUT", 10, move || {
        writes += 1;
        write(&team_b, "busy.md", &format!("write {writes}\n"));
        assert!(cb.push().success);
    });
    write(a.path(), "seed.md", "seed, edited\n");
    let before = proxy.requests("PUT");
    let r = ca.push();
    assert!(!r.success);
    assert_eq!(r.conflict, Some(true));
    assert_eq!(r.error_type, Some(ErrorType::Conflict));
    assert_eq!(
        proxy.requests("PUT") - before,
        3,
        "the first PUT and two retries"
    );
    assert_eq!(h.stored()["seed.md"], "seed\n");
    assert!(
        serde_json::to_string(&r)
            .unwrap()
            .contains(r#""conflict":true"#)
    );
}

#[test]
fn a_file_naming_the_file_of_a_server_key_is_not_sent() {
    let h = start();
    let team = tempfile::tempdir().unwrap();
    write(team.path(), "deploy.md", "first\n");
    assert!(h.client(team.path()).push().success);
    // Two files here (Linux tells case apart) that are one file on macOS
    // and Windows: the server would refuse the new one, and with it the
    // whole body.
    write(team.path(), "Deploy.md", "a second copy\n");
    write(team.path(), "other.md", "other\n");
    write(team.path(), "Notes.md", "n\n");
    write(team.path(), "notes.md", "m\n");
    let r = h.client(team.path()).push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.uploaded, ["Notes.md", "other.md"]);
    let skipped: Vec<(&str, &str)> = r
        .skipped
        .iter()
        .map(|s| (s.key.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[0].0, "Deploy.md");
    assert!(skipped[0].1.contains("deploy.md"), "{skipped:?}");
    assert_eq!(skipped[1].0, "notes.md");
    assert!(skipped[1].1.contains("Notes.md"), "{skipped:?}");
    assert_eq!(
        h.stored().keys().collect::<Vec<_>>(),
        ["Notes.md", "deploy.md", "other.md"]
    );
}
