//! Every status code of the protocol, with its JSON body, over HTTP.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use memdir_protocol::View;
use serde_json::json;

use crate::support::{Harness, quiet, start};

/// Sends raw bytes and returns the status of the response.
fn raw_status(h: &Harness, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status = out.split(' ').nth(1).unwrap_or("0").parse().unwrap();
    (status, out)
}

#[test]
fn healthz_is_200_without_a_token() {
    let h = start(quiet());
    let r = h.get(None, "/healthz");
    assert_eq!(
        (r.status, r.body),
        (200, json!({"status": "ok", "schemaVersion": 3}))
    );
}

#[test]
fn an_entry_over_the_limit_is_413() {
    let mut config = quiet();
    config.max_entry_bytes = 10;
    let h = start(config);
    let t = h.token("acme");
    let r = h.put(
        &t,
        "o/r",
        None,
        &json!({"ok.md": "short", "big.md": "x".repeat(11)}),
    );
    assert_eq!(r.status, 413);
    assert_eq!(
        r.body,
        json!({
            "error": "entry_too_large",
            "message": "entry \"big.md\" is 11 bytes; the limit is 10 bytes",
            "key": "big.md", "bytes": 11, "limit": 10,
        })
    );
    assert_eq!(h.repo(&t, "o/r").status, 404, "nothing was written");
}

#[test]
fn the_default_entry_limit_is_250_000_bytes() {
    let mut config = quiet();
    config.max_body_bytes = 1_000_000;
    let h = start(config);
    let t = h.token("acme");
    let at = h.put(&t, "o/r", None, &json!({"a.md": "x".repeat(250_000)}));
    assert_eq!(at.status, 200);
    let over = h.put(&t, "o/r", Some("*"), &json!({"b.md": "x".repeat(250_001)}));
    assert_eq!(
        (over.status, &over.body["error"]),
        (413, &json!("entry_too_large"))
    );
}

#[test]
fn a_body_over_200_000_bytes_is_413() {
    let h = start(quiet());
    let t = h.token("acme");
    let body = json!({"entries": {"a.md": "x".repeat(199_000)}}).to_string();
    assert_eq!(h.put_raw(Some(&t), "o/r", None, &body).status, 200);
    let body = json!({"entries": {"b.md": "x".repeat(200_000)}}).to_string();
    let r = h.put_raw(Some(&t), "o/r", Some("*"), &body);
    assert_eq!(r.status, 413);
    assert_eq!(r.body["error"], json!("body_too_large"));
    assert_eq!(
        r.body["message"],
        json!(format!(
            "the body is {} bytes; the limit is 200000 bytes",
            body.len()
        ))
    );
}

#[test]
fn more_entries_than_the_cap_is_413_naming_the_cap() {
    let mut config = quiet();
    config.max_entries = 3;
    let h = start(config);
    let t = h.token("acme");
    let first = h.put(&t, "o/r", None, &json!({"a": "1", "b": "1"}));
    let sum = first.body["checksum"].as_str().unwrap();
    let r = h.put(&t, "o/r", Some(sum), &json!({"a": "2", "c": "1", "d": "1"}));
    assert_eq!(r.status, 413);
    assert_eq!(
        r.body,
        json!({
            "error": "too_many_entries",
            "message": "the repository would hold 4 entries; the cap is 3 entries",
            "maxEntries": 3, "wouldHold": 4,
        })
    );
    assert_eq!(
        h.put(&t, "o/r", Some(sum), &json!({"a": "2", "c": "1"}))
            .status,
        200
    );
}

#[test]
fn keys_failing_the_client_rules_are_400() {
    let h = start(quiet());
    let t = h.token("acme");
    let check = |key: &str, reason: &str| {
        let r = h.put(&t, "o/r", None, &json!({"fine.md": "x", key: "y"}));
        assert_eq!(r.status, 400, "{key:?}");
        assert_eq!(r.body["error"], json!("invalid_key"));
        assert_eq!(r.body["key"], json!(key));
        assert_eq!(r.body["reason"], json!(reason), "{key:?}");
    };
    check("../escape.md", "dot-dot-segment");
    check("/etc/passwd", "absolute");
    check("a\\b.md", "backslash");
    check("..%2fx.md", "percent-encoded");
    check("a//b.md", "empty-segment");
    check("nul\0.md", "nul-byte");
    check("", "empty");
    // Keys that stay inside the folder but are not portable or not
    // unambiguous on every member's machine (R4.10).
    check("notes/\u{202e}evil.md", "format-character");
    check("zero\u{200b}width.md", "format-character");
    check("a\u{2215}b.md", "separator-lookalike");
    check("CON.md", "reserved-name");
    check("notes/lpt1", "reserved-name");
    check("notes:b.md", "colon");
    check("x.md:stream", "colon");
    // One letter and a colon is a drive, whatever follows.
    check("a:b.md", "drive-letter");
    check(".git/config", "hidden-segment");
    check(".sync-state.json", "hidden-segment");
    check("notes./a.md", "trailing-dot-or-space");
    check(&format!("{}b.md", "a/".repeat(600)), "key-too-long");
    assert_eq!(h.repo(&t, "o/r").status, 404, "nothing was written");
}

#[test]
fn malformed_json_and_repositories_are_400() {
    let h = start(quiet());
    let t = h.token("acme");
    for body in [
        "{",
        "[]",
        "{\"entries\": [1]}",
        "{\"entries\": {\"a\": 1}}",
        "{}",
    ] {
        let r = h.put_raw(Some(&t), "o/r", None, body);
        assert_eq!(
            (r.status, &r.body["error"]),
            (400, &json!("invalid_json")),
            "{body}"
        );
    }
    for query in [
        "",
        "?repo=",
        "?repo=noslash",
        "?repo=a/b/c",
        "?repo=../x",
        "?repo=a%20b/c",
        "?view=hashes",
    ] {
        let r = h.get(Some(&t), &format!("/api/claude_code/team_memory{query}"));
        assert_eq!(
            (r.status, &r.body["error"]),
            (400, &json!("invalid_repo")),
            "{query}"
        );
    }
    let r = h.get(
        Some(&t),
        "/api/claude_code/team_memory?repo=o/r&view=bodies",
    );
    assert_eq!((r.status, &r.body["error"]), (400, &json!("invalid_query")));
}

#[test]
fn missing_or_wrong_tokens_are_401() {
    let h = start(quiet());
    let t = h.token("acme");
    h.put(&t, "o/r", None, &json!({"k": "v"}));
    let expected = json!({"error": "unauthorized", "message": "missing or invalid bearer token"});
    for token in [None, Some("mdt_0000000000000000_wrong"), Some("")] {
        let r = h.get(token, "/api/claude_code/team_memory?repo=o/r");
        assert_eq!((r.status, &r.body), (401, &expected), "{token:?}");
        let r = h.put_raw(token, "o/r", None, "{\"entries\": {}}");
        assert_eq!((r.status, &r.body), (401, &expected), "{token:?}");
    }
    // A wrong scheme is no token.
    let r = h
        .agent
        .get(h.url("/api/claude_code/team_memory?repo=o/r"))
        .header("Authorization", format!("Basic {t}"))
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert_eq!(
        r.headers().get("www-authenticate").unwrap(),
        "Bearer realm=\"memdir\""
    );
}

#[test]
fn unknown_paths_are_404_and_other_methods_405() {
    let h = start(quiet());
    let r = h.get(None, "/api/other");
    assert_eq!(
        (r.status, r.body),
        (
            404,
            json!({"error": "not_found", "message": "no such endpoint"})
        )
    );
    let r = h
        .agent
        .delete(h.url("/api/claude_code/team_memory?repo=o/r"))
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    assert_eq!(r.headers().get("allow").unwrap(), "GET, PUT");
}

#[test]
fn a_slow_head_is_cut_a_slow_body_is_408_and_a_chunked_body_411() {
    let mut config = quiet();
    config.idle_timeout = Duration::from_millis(300);
    config.request_timeout = Duration::from_millis(300);
    let h = start(config);
    // A head that never ends: the connection is closed, without an answer,
    // once the head deadline passes.
    let started = std::time::Instant::now();
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    assert_eq!(out, "");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    // A silent connection is closed after as long.
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    assert_eq!(s.read(&mut [0u8; 16]).unwrap_or(0), 0);
    // A body that stops short is answered 408.
    let t = h.token("acme");
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let head = format!(
        "PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t}\r\nContent-Length: 100\r\n\r\n{{\"entr"
    );
    s.write_all(head.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408 "), "{out}");
    assert!(out.contains("\"request_timeout\""), "{out}");
    let (status, _) = raw_status(
        &h,
        b"PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    assert_eq!(status, 411);
    let (status, _) = raw_status(&h, b"NONSENSE\r\n\r\n");
    assert_eq!(status, 400);
}

#[test]
fn shutdown_finishes_a_request_under_way() {
    let h = start(quiet());
    let t = h.token("acme");
    let body = json!({"entries": {"k.md": "v"}}).to_string();
    let head = format!(
        "PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut s = TcpStream::connect(h.server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&body.as_bytes()[..5]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let handle = h.server.shutdown_handle();
    handle.shutdown();
    std::thread::sleep(Duration::from_millis(200));
    s.write_all(&body.as_bytes()[5..]).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(
        out.to_ascii_lowercase().contains("connection: close\r\n"),
        "{out}"
    );
    let Harness { server, store, .. } = h;
    server.wait();
    let state = store.get("acme", "o/r", View::Full).unwrap();
    assert_eq!(state.unwrap().version, 1);
}

#[test]
fn a_head_over_the_limit_is_431_even_when_it_arrives_whole() {
    let h = start(quiet());
    let padding = "x".repeat(32_000);
    let request = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: {padding}\r\n\r\n");
    let (status, out) = raw_status(&h, request.as_bytes());
    assert_eq!(status, 431, "{out}");
    // Just under the limit is served.
    let padding = "x".repeat(15_000);
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: {padding}\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(raw_status(&h, request.as_bytes()).0, 200);
}

#[test]
fn conflicting_content_lengths_are_refused_not_chosen_between() {
    let h = start(quiet());
    let t = h.token("acme");
    let put = |lengths: &str| {
        let request = format!(
            "PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {t}\r\n{lengths}Connection: close\r\n\r\n{{\"entries\":{{}}}}"
        );
        raw_status(&h, request.as_bytes())
    };
    let (status, out) = put("Content-Length: 14\r\nContent-Length: 2\r\n");
    assert_eq!(status, 400, "{out}");
    assert_eq!(put("Content-Length: 14, 2\r\n").0, 400);
    for odd in ["+14", "1 4", "0x0e", "-14", ""] {
        let (status, out) = put(&format!("Content-Length: {odd}\r\n"));
        assert_eq!(status, 400, "{odd:?}: {out}");
    }
    // The same length twice is one length (RFC 9112 §6.3).
    let (status, out) = put("Content-Length: 14\r\nContent-Length: 14\r\n");
    assert_ne!(status, 400, "{out}");
}

#[test]
fn a_request_with_bare_lf_line_ends_is_answered_at_once() {
    // RFC 9112 §2.2 lets a server read a bare LF as a line end; what it
    // must not do is wait for a CRLF that never comes.
    let h = start(quiet());
    let started = std::time::Instant::now();
    let (status, out) = raw_status(&h, b"GET /healthz HTTP/1.1\nHost: x\nConnection: close\n\n");
    assert_eq!(status, 200, "{out}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn an_http_1_1_request_without_one_host_is_400() {
    // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request
    // without a Host header, or with more than one.
    let h = start(quiet());
    for request in [
        &b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"[..],
        b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n",
        b"GET /ui/login HTTP/1.1\r\nConnection: close\r\n\r\n",
    ] {
        let (status, out) = raw_status(&h, request);
        assert_eq!(status, 400, "{out}");
        assert!(out.contains("\"error\":\"bad_request\""), "{out}");
    }
    // HTTP/1.0 has no Host requirement.
    let (status, out) = raw_status(&h, b"GET /healthz HTTP/1.0\r\n\r\n");
    assert_eq!(status, 200, "{out}");
    let (status, out) = raw_status(
        &h,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 200, "{out}");
}
