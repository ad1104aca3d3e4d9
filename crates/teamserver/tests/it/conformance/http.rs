//! The HTTP cases: the protocol as a client sees it through a real server
//! on 127.0.0.1, over each backend.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use memdir_protocol::entry_checksum;
use serde_json::{Value, json};

use crate::support::{Harness, checksum_of};

/// An object's keys, sorted.
fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

/// A raw request (`head` is the request line without the version) with
/// the token, extra header lines and a body: the status, the response head
/// in lower case (header names are not case-sensitive), and the body.
fn raw(h: &Harness, token: &str, head: &str, extra: &str, body: &str) -> (u16, String, String) {
    let request = format!(
        "{head} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.split(' ').nth(1).unwrap_or("0").parse().unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

pub(super) fn get_and_put_in_the_r8_1_shape(h: &Harness) {
    let t = h.token("acme");
    let put = h.put(
        &t,
        "owner/name",
        None,
        &json!({"b.md": "two", "a/x.md": "one"}),
    );
    let sum = checksum_of(&[("a/x.md", "one"), ("b.md", "two")]);
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(put.body["checksum"], json!(sum));
    assert_eq!(put.body["version"], json!(1));
    assert_eq!(put.etag.as_deref(), Some(format!("\"{sum}\"").as_str()));

    let full = h.repo(&t, "owner/name");
    assert_eq!(full.status, 200);
    assert_eq!(full.etag, put.etag);
    assert_eq!(
        keys(&full.body),
        [
            "checksum",
            "content",
            "lastModified",
            "organizationId",
            "repo",
            "version"
        ]
    );
    assert_eq!(full.body["checksum"], json!(sum));
    let modified: jiff::Timestamp = full.body["lastModified"].as_str().unwrap().parse().unwrap();
    assert!(modified <= jiff::Timestamp::now());
    assert_eq!(full.body["organizationId"], json!("acme"));
    assert_eq!(full.body["repo"], json!("owner/name"));
    assert_eq!(full.body["version"], json!(1));
    assert_eq!(full.body["lastModified"], put.body["lastModified"]);
    assert!(full.body["lastModified"].is_string(), "{}", full.body);
    assert_eq!(
        full.body["content"],
        json!({
            "entries": {"a/x.md": "one", "b.md": "two"},
            "entryChecksums": {"a/x.md": entry_checksum("one"), "b.md": entry_checksum("two")},
        })
    );
    // The repository's slash may come percent-encoded.
    let hashes = h.hashes(&t, "owner%2Fname");
    assert_eq!(hashes.status, 200);
    assert_eq!(hashes.body["checksum"], json!(sum));
    assert_eq!(
        hashes.body["content"],
        json!({"entryChecksums": full.body["content"]["entryChecksums"]})
    );
    for never in [h.repo(&t, "owner/never"), h.hashes(&t, "owner/never")] {
        assert_eq!(
            (never.status, never.body),
            (
                404,
                json!({"error": "not_found", "message": "no team memory for this repository"})
            )
        );
    }
    // An empty PUT is accepted and counted, and leaves nothing to read.
    assert_eq!(h.put(&t, "o/empty", None, &json!({})).status, 200);
    assert_eq!(h.repo(&t, "o/empty").status, 404);
    let next = h.put(&t, "o/empty", None, &json!({"k.md": "v"}));
    assert_eq!((next.status, &next.body["version"]), (200, &json!(2)));
}

pub(super) fn stale_and_missing_preconditions_are_412_and_428(h: &Harness) {
    let t = h.token("acme");
    let first = h.put(&t, "o/r", None, &json!({"k.md": "1"}));
    let seen = first.body["checksum"].as_str().unwrap().to_owned();
    let second = h.put(&t, "o/r", Some(&seen), &json!({"k.md": "2", "l.md": "x"}));
    assert_eq!((second.status, &second.body["version"]), (200, &json!(2)));
    let stale = h.put(&t, "o/r", Some(&seen), &json!({"k.md": "3"}));
    assert_eq!(stale.status, 412);
    assert_eq!(stale.body["error"], json!("precondition_failed"));
    assert_eq!(stale.body["checksum"], second.body["checksum"]);
    assert_eq!(stale.body["version"], json!(2));
    assert_eq!(
        stale.body["content"],
        json!({"entryChecksums": {"k.md": entry_checksum("2"), "l.md": entry_checksum("x")}})
    );
    assert_eq!(stale.etag, second.etag);
    let required = h.put(&t, "o/r", None, &json!({"k.md": "3"}));
    assert_eq!(required.status, 428);
    assert_eq!(required.body["error"], json!("precondition_required"));
    assert_eq!(required.body["checksum"], second.body["checksum"]);
    assert_eq!(
        h.repo(&t, "o/r").body["content"]["entries"],
        json!({"k.md": "2", "l.md": "x"}),
        "a refused PUT writes nothing"
    );
    // The client recomputes from the 412 body at once; the ETag form with
    // quotes is accepted too.
    let retry = h.put(&t, "o/r", stale.etag.as_deref(), &json!({"k.md": "3"}));
    assert_eq!((retry.status, &retry.body["version"]), (200, &json!(3)));
    let wild = h.put(&t, "o/r", Some("*"), &json!({"m.md": "4"}));
    assert_eq!((wild.status, &wild.body["version"]), (200, &json!(4)));
    assert_eq!(h.hashes(&t, "o/r").body["version"], json!(4));
    // `*` on a repository never written is a 412 of version 0.
    let none = h.put(&t, "o/none", Some("*"), &json!({"m.md": "4"}));
    assert_eq!(none.status, 412);
    assert_eq!(none.body["version"], json!(0));
    assert_eq!(none.body["lastModified"], Value::Null);
}

pub(super) fn the_hashes_view_answers_304_to_its_tag(h: &Harness) {
    let t = h.token("acme");
    assert_eq!(h.put(&t, "o/r", None, &json!({"a.md": "one"})).status, 200);
    let sum = checksum_of(&[("a.md", "one")]);
    let hashes = "GET /api/claude_code/team_memory?repo=o/r&view=hashes";
    let tag = format!("If-None-Match: \"{sum}\"\r\n");
    let (status, head, body) = raw(h, &t, hashes, &tag, "");
    assert_eq!(status, 304, "{head}");
    assert_eq!(body, "");
    assert!(head.contains(&format!("etag: \"{sum}\"")), "{head}");
    assert!(!head.contains("content-length"), "{head}");
    // A list holding the tag, and `*`, match too; another tag does not.
    let list = format!("If-None-Match: W/\"other\", \"{sum}\"\r\n");
    assert_eq!(raw(h, &t, hashes, &list, "").0, 304);
    assert_eq!(raw(h, &t, hashes, "If-None-Match: *\r\n", "").0, 304);
    let (status, _, body) = raw(h, &t, hashes, "If-None-Match: \"sha256:0\"\r\n", "");
    assert_eq!(status, 200);
    assert!(body.contains(&entry_checksum("one")), "{body}");
    // Only the hashes view is conditional: the full view always answers.
    let full = "GET /api/claude_code/team_memory?repo=o/r";
    assert_eq!(raw(h, &t, full, &tag, "").0, 200);
    // After a write the old tag no longer matches.
    assert_eq!(
        h.put(&t, "o/r", Some(&sum), &json!({"b.md": "two"})).status,
        200
    );
    assert_eq!(raw(h, &t, hashes, &tag, "").0, 200);
    let other = h.token("other");
    assert_eq!(raw(h, &other, hashes, &tag, "").0, 404);
}

pub(super) fn a_minimal_put_answers_only_the_keys_it_wrote(h: &Harness) {
    let t = h.token("acme");
    let first = h.put(&t, "o/r", None, &json!({"a.md": "one", "b.md": "two"}));
    let before = first.body["checksum"].as_str().unwrap().to_owned();
    let put = "PUT /api/claude_code/team_memory?repo=o/r";
    let extra = format!(
        "If-Match: {before}\r\nPrefer: return=minimal\r\nContent-Type: application/json\r\n"
    );
    let (status, head, body) = raw(h, &t, put, &extra, r#"{"entries": {"c.md": "three"}}"#);
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("preference-applied: return=minimal"),
        "{head}"
    );
    let body: Value = serde_json::from_str(&body).unwrap();
    let all = checksum_of(&[("a.md", "one"), ("b.md", "two"), ("c.md", "three")]);
    assert_eq!(body["checksum"], json!(all));
    assert_eq!(body["version"], json!(2));
    assert_eq!(
        body["content"]["entryChecksums"],
        json!({"c.md": entry_checksum("three")})
    );
    // Without the preference, the full answer of R8.1.
    let extra = format!("If-Match: {all}\r\nContent-Type: application/json\r\n");
    let (status, head, body) = raw(h, &t, put, &extra, r#"{"entries": {"d.md": "four"}}"#);
    assert_eq!(status, 200);
    assert!(!head.contains("preference-applied"), "{head}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["content"]["entryChecksums"].as_object().unwrap().len(),
        4
    );
    // A 412 stays full, minimal or not: the client needs every hash.
    let extra =
        "If-Match: sha256:stale\r\nPrefer: return=minimal\r\nContent-Type: application/json\r\n";
    let (status, _, body) = raw(h, &t, put, extra, r#"{"entries": {"e.md": "five"}}"#);
    assert_eq!(status, 412);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        body["content"]["entryChecksums"].as_object().unwrap().len(),
        4
    );
}

pub(super) fn unknown_and_revoked_tokens_are_401(h: &Harness) {
    let created = h.store.create_token("acme").unwrap();
    assert_eq!(
        h.put(&created.token, "o/r", None, &json!({"k.md": "v"}))
            .status,
        200
    );
    // The token with its last digit changed.
    let (head, last) = created.token.split_at(created.token.len() - 1);
    let unknown = format!("{head}{}", if last == "0" { "1" } else { "0" });
    for token in [None, Some("mdt_nope"), Some(unknown.as_str())] {
        let r = h.get(token, "/api/claude_code/team_memory?repo=o/r");
        assert_eq!((r.status, &r.body["error"]), (401, &json!("unauthorized")));
    }
    assert!(h.store.revoke_token(&created.prefix).unwrap());
    assert_eq!(h.repo(&created.token, "o/r").status, 401);
    let put = h.put(&created.token, "o/r", Some("*"), &json!({"k.md": "w"}));
    assert_eq!(put.status, 401);
    // Nothing was written by the refused PUT.
    let other = h.token("acme");
    let now = h.repo(&other, "o/r");
    assert_eq!(now.body["content"]["entries"], json!({"k.md": "v"}));
}

pub(super) fn another_organisations_repository_is_404_like_none(h: &Harness) {
    let (acme, other) = (h.token("acme"), h.token("other"));
    assert_eq!(
        h.put(&acme, "acme/app", None, &json!({"a.md": "secret plan"}))
            .status,
        200
    );
    for view in ["", "&view=hashes"] {
        let foreign = h.get(
            Some(&other),
            &format!("/api/claude_code/team_memory?repo=acme/app{view}"),
        );
        let missing = h.get(
            Some(&other),
            &format!("/api/claude_code/team_memory?repo=acme/nothing{view}"),
        );
        assert_eq!(
            (foreign.status, &foreign.body, &foreign.etag),
            (missing.status, &missing.body, &missing.etag)
        );
        assert_eq!(
            (foreign.status, foreign.body),
            (
                404,
                json!({"error": "not_found", "message": "no team memory for this repository"})
            )
        );
    }
    // A write under the same name makes the other organisation's own
    // repository; the first one is untouched.
    let own = h.put(&other, "acme/app", None, &json!({"b.md": "theirs"}));
    assert_eq!(
        (
            own.status,
            &own.body["version"],
            &own.body["organizationId"]
        ),
        (200, &json!(1), &json!("other"))
    );
    let acme_view = h.repo(&acme, "acme/app");
    assert_eq!(
        acme_view.body["content"]["entries"],
        json!({"a.md": "secret plan"})
    );
    assert_eq!(acme_view.body["version"], json!(1));
    assert_eq!(
        h.repo(&other, "acme/app").body["content"]["entries"],
        json!({"b.md": "theirs"})
    );
}

pub(super) fn a_key_naming_the_file_of_another_is_409(h: &Harness) {
    let t = h.token("acme");
    let first = h.put(
        &t,
        "o/r",
        None,
        &json!({"deploy.md": "one", "MEMORY.md": "- [deploy](deploy.md)", "caf\u{e9}.md": "nfc"}),
    );
    assert_eq!(first.status, 200, "{}", first.body);
    let sum = first.body["checksum"].as_str().unwrap().to_owned();
    // Each of these is one file on a case-insensitive or
    // normalisation-insensitive file system (macOS, Windows).
    for (key, existing) in [
        ("Deploy.md", "deploy.md"),
        ("DEPLOY.MD", "deploy.md"),
        ("memory.md", "MEMORY.md"),
        ("cafe\u{301}.md", "caf\u{e9}.md"),
        ("CAF\u{c9}.md", "caf\u{e9}.md"),
    ] {
        let r = h.put(&t, "o/r", Some(&sum), &json!({"new.md": "x", key: "two"}));
        assert_eq!(r.status, 409, "{key:?}: {}", r.body);
        assert_eq!(r.body["error"], json!("key_collision"), "{key:?}");
        assert_eq!(r.body["key"], json!(key));
        assert_eq!(r.body["existing"], json!(existing));
    }
    // Two new keys of one file in one body: the later one is refused.
    let r = h.put(
        &t,
        "o/r",
        Some(&sum),
        &json!({"Notes.md": "a", "notes.md": "b"}),
    );
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(
        (&r.body["key"], &r.body["existing"]),
        (&json!("notes.md"), &json!("Notes.md"))
    );
    // Nothing of a refused PUT was written.
    let now = h.repo(&t, "o/r");
    assert_eq!(now.body["version"], json!(1));
    assert_eq!(now.body["checksum"], json!(sum));
    // The stored spelling itself is written as ever.
    let r = h.put(&t, "o/r", Some(&sum), &json!({"deploy.md": "three"}));
    assert_eq!(r.status, 200, "{}", r.body);
}
