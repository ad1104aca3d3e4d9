//! Team memory: key validation, the server's request handling and the
//! client's reading of server answers.

use std::path::{Component, Path};

use memdir_protocol::validate_team_mem_key_text;
use memdir_teamserver::{Config, SqliteStore, Store, respond};

/// Validating any key: an accepted key is canonical (validating it again
/// gives it back), relative, and joins a folder to a path below it; a
/// refusal explains itself on one line.
pub(crate) fn key(data: &[u8]) {
    let Some(raw) = crate::text(data) else {
        return;
    };
    match validate_team_mem_key_text(raw) {
        Ok(key) => {
            assert_eq!(
                validate_team_mem_key_text(&key).as_deref(),
                Ok(key.as_str())
            );
            assert!(!key.is_empty() && !key.contains(['\\', '\0']), "{key:?}");
            let joined = Path::new("/team").join(&key);
            let mut parts = joined.components();
            assert_eq!(parts.next(), Some(Component::RootDir));
            assert_eq!(parts.next(), Some(Component::Normal("team".as_ref())));
            let below: Vec<_> = parts.collect();
            assert!(!below.is_empty(), "{key:?} names the folder itself");
            assert!(
                below.iter().all(|c| matches!(c, Component::Normal(_))),
                "{key:?} leaves the folder"
            );
            assert_eq!(
                below.len(),
                key.split('/').count(),
                "{key:?} has empty segments"
            );
        }
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "{e}");
            assert!(!e.reason.code().is_empty());
        }
    }
}

/// What fuzz inputs write where a valid bearer token belongs.
const TOKEN_PLACEHOLDER: &[u8] = b"@TOKEN@";

/// Serving any bytes as one connection, on a fresh store with small limits
/// and a token for organisation `acme`: every response is well framed
/// HTTP/1.x with a JSON body (or hyper's own empty refusal of a request it
/// cannot parse), nothing is a 500, and a `Connection: close`
/// response is the last.
pub(crate) fn server_http(data: &[u8]) {
    let store = SqliteStore::open(Path::new(":memory:")).expect("an in-memory store opens");
    let token = store.create_token("acme").expect("a token is created");
    let input = replace(data, TOKEN_PLACEHOLDER, token.token.as_bytes());
    let mut config = Config::default();
    config.max_body_bytes = 2048;
    config.max_entry_bytes = 512;
    config.max_entries = 8;
    config.log_requests = false;
    let out = respond(&store, &config, &input);
    let mut rest = out.as_slice();
    while !rest.is_empty() {
        let (status, close, body, next) = split_response(rest);
        assert_ne!(
            status,
            500,
            "an internal error for {:?}",
            String::from_utf8_lossy(&input)
        );
        // hyper answers a request it cannot parse (400, 414, 431) itself,
        // with no body; every answer of the handlers is JSON.
        let framing_refusal = matches!(status, 400 | 414 | 431) && body.is_empty() && close;
        if status != 100 && !framing_refusal {
            let json: Result<serde_json::Value, _> = serde_json::from_slice(body);
            assert!(json.is_ok(), "a body that is not JSON: {body:?}");
        }
        assert!(
            !close || next.is_empty(),
            "a response after Connection: close"
        );
        rest = next;
    }
}

/// One response off the front of `bytes`: status, whether it closes the
/// connection, body, and what follows.
fn split_response(bytes: &[u8]) -> (u16, bool, &[u8], &[u8]) {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head ends with a blank line");
    let head = std::str::from_utf8(&bytes[..end]).expect("a UTF-8 response head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    // An HTTP/1.0 request is answered in HTTP/1.0, which closes unless it
    // says otherwise.
    let http10 = status_line.starts_with("HTTP/1.0 ");
    let status: u16 = status_line
        .strip_prefix("HTTP/1.1 ")
        .or_else(|| status_line.strip_prefix("HTTP/1.0 "))
        .and_then(|s| s.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a bad status line {status_line:?}"));
    let mut length = 0;
    let mut close = http10;
    for line in lines {
        let (name, value) = line.split_once(": ").expect("a header is `name: value`");
        assert!(!value.contains(['\r', '\n']));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().expect("a numeric Content-Length"),
            "connection" => close = !value.eq_ignore_ascii_case("keep-alive"),
            _ => {}
        }
    }
    let rest = &bytes[end + 4..];
    assert!(
        rest.len() >= length,
        "a body shorter than its Content-Length"
    );
    (status, close, &rest[..length], &rest[length..])
}

fn replace(data: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// The client's reading of any server answer (see
/// [`memdir_teamsync::fuzzing::server_answer`]).
pub(crate) fn client_answer(data: &[u8]) {
    memdir_teamsync::fuzzing::server_answer(data);
}
