//! `status`: the pending work in both directions, writing nothing.

use std::collections::BTreeMap;
use std::path::Path;

use memdir_teamsync::{ErrorType, STATE_FILE};

use crate::support::{client_for, start, write};

/// A GitHub token of high entropy: `ghp_` and 36 alphanumerics.
const TOKEN: &str = "ghp_q8Zr2LkW9xTb4YcN7mVd1HsF6jPa3EuG5oRi";

/// Every file under `dir` (hidden ones too), path → bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), out);
            } else {
                out.insert(
                    e.path().display().to_string(),
                    std::fs::read(e.path()).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

#[test]
fn status_reports_both_directions_and_writes_nothing() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (h.client(a.path()), h.client(b.path()));
    write(a.path(), "a.md", "one\n");
    write(a.path(), "b.md", "two\n");
    write(a.path(), "notes/d.md", "four\n");
    write(a.path(), "e.md", "five\n");
    assert!(ca.push().success);
    assert!(cb.pull().success);

    // The server moves on: a.md and e.md change.
    write(a.path(), "a.md", "one, v2\n");
    write(a.path(), "e.md", "five, edited on a\n");
    assert!(ca.push().success);
    // Local work on b: an edit nobody else made, an edit that meets a's,
    // a new file, a secret, a big file, a deletion.
    write(b.path(), "b.md", "two, edited here\n");
    write(b.path(), "e.md", "five, edited on b\n");
    write(b.path(), "c.md", "three\n");
    write(
        b.path(),
        "secret.md",
        &format!("line one\ntoken = {TOKEN}\n"),
    );
    write(b.path(), "big.md", &"x".repeat(300_000));
    std::fs::remove_file(b.path().join("notes/d.md")).unwrap();

    let before = snapshot(b.path());
    let version = h.version();
    let s = cb.status();
    assert!(s.success, "{s:?}");
    assert_eq!(s.checksum.as_deref(), Some(h.checksum().as_str()));
    // A stale a.md (unchanged here since the last sync) is not pushed: the
    // server's newer edit is pulled instead.
    // b.md was edited only here: pushed, never pulled over (R8.2). e.md
    // was edited on both sides: a pull keeps b's copy aside and writes a's;
    // a push holds it back rather than overwrite a's edit unseen.
    assert_eq!(s.to_push, ["b.md", "c.md"]);
    assert_eq!(s.to_pull, ["a.md", "e.md", "notes/d.md"]);
    assert_eq!(s.conflicts, ["e.md"]);
    assert_eq!(s.skipped_secrets.len(), 1);
    assert_eq!(s.skipped_secrets[0].file, "secret.md");
    assert_eq!(s.skipped_secrets[0].rule_ids, ["github-pat"]);
    assert_eq!(s.skipped_secrets[0].lines, [2]);
    let skipped: Vec<&str> = s.skipped.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(skipped, ["big.md", "e.md"], "{:?}", s.skipped);
    assert!(
        s.skipped[1].reason.contains("pull first"),
        "{:?}",
        s.skipped
    );

    let json = serde_json::to_string(&s).unwrap();
    assert!(!json.contains(TOKEN), "{json}");
    for field in [
        "\"toPush\"",
        "\"toPull\"",
        "\"conflicts\"",
        "\"skippedSecrets\"",
        "\"ruleIds\"",
    ] {
        assert!(json.contains(field), "{field} in {json}");
    }
    // Nothing written, locally or on the server.
    assert_eq!(snapshot(b.path()), before);
    assert_eq!(h.version(), version);
}

#[test]
fn status_before_anything_is_stored() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.md", "x\n");
    let s = h.client(dir.path()).status();
    assert!(s.success, "{s:?}");
    assert_eq!(s.checksum, None);
    assert_eq!(s.to_push, ["x.md"]);
    assert!(s.to_pull.is_empty());
    assert!(!dir.path().join(STATE_FILE).exists());
    assert_eq!(s.suppressed, None);
    // A watcher's recorded suppression shows, and is never a file to push.
    std::fs::write(
        dir.path().join(memdir_teamsync::SUPPRESSED_FILE),
        "server answered 401",
    )
    .unwrap();
    let s = h.client(dir.path()).status();
    assert_eq!(s.suppressed.as_deref(), Some("server answered 401"));
    assert_eq!(s.to_push, ["x.md"]);
}

#[test]
fn status_without_credentials_or_with_a_bad_token() {
    let h = start();
    let dir = tempfile::tempdir().unwrap();
    let s = client_for(&h.url(), dir.path()).status();
    assert!(!s.success);
    assert_eq!(s.error_type, Some(ErrorType::NoOauth));
    let s = client_for(&h.url(), dir.path())
        .with_token(Some(h.token.clone()))
        .with_repo(None)
        .status();
    assert_eq!(s.error_type, Some(ErrorType::NoRepo));
    let s = client_for(&h.url(), dir.path())
        .with_token(Some("mdt_not-a-real-token".to_owned()))
        .status();
    assert_eq!(s.error_type, Some(ErrorType::Auth), "{s:?}");
    assert!(s.to_push.is_empty());
}
