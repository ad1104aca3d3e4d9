//! The protocol of SPEC R8.1 over parsed requests: routing, bearer-token
//! authentication, validation and the JSON bodies.
//!
//! Errors are `{"error": code, "message": text, …}` with a stable
//! `snake_case` `code`. A repository is always looked up under the caller's
//! own organisation, so "no such repository" and "another organisation's
//! repository" are the same lookup and the same 404 — nothing can tell
//! them apart.

use std::collections::BTreeMap;

use percent_encoding::percent_decode_str;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::http::{Request, Response};
use crate::server::Config;
use crate::store::{IfMatch, Limits, PutOutcome, RepoState, Store, View};

/// The protocol's one resource.
pub(crate) const TEAM_MEMORY_PATH: &str = "/api/claude_code/team_memory";

/// What a request did, for the request log.
#[derive(Debug, Default)]
pub(crate) struct Handled {
    pub(crate) org: Option<String>,
    pub(crate) repo: Option<String>,
}

/// Answers one request.
pub(crate) fn handle(store: &dyn Store, config: &Config, req: &Request) -> (Response, Handled) {
    let mut handled = Handled::default();
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    let response = match path {
        "/healthz" => health(store, req),
        TEAM_MEMORY_PATH => team_memory(store, config, req, query, &mut handled),
        _ => error(404, "not_found", "no such endpoint"),
    };
    (response, handled)
}

fn health(store: &dyn Store, req: &Request) -> Response {
    if req.method != "GET" {
        return method_not_allowed("GET");
    }
    match store.schema_version() {
        Ok(v) => json_response(200, &json!({"status": "ok", "schemaVersion": v})),
        Err(e) => {
            log_internal(&e);
            error(503, "unavailable", "the database is not available")
        }
    }
}

fn team_memory(
    store: &dyn Store,
    config: &Config,
    req: &Request,
    query: &str,
    handled: &mut Handled,
) -> Response {
    if req.method != "GET" && req.method != "PUT" {
        return method_not_allowed("GET, PUT");
    }
    let org = match authenticate(store, req) {
        Ok(org) => org,
        Err(response) => return response,
    };
    handled.org = Some(org.clone());
    let params = match Query::parse(query) {
        Ok(q) => q,
        Err(response) => return response,
    };
    handled.repo = Some(params.repo.clone());
    let result = if req.method == "GET" {
        get(store, &org, &params)
    } else {
        put(store, config, req, &org, &params.repo)
    };
    result.unwrap_or_else(|e| {
        log_internal(&e);
        error(500, "internal", "internal server error")
    })
}

fn authenticate(store: &dyn Store, req: &Request) -> Result<String, Response> {
    let token = req.header("authorization").and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    let unauthorized = || {
        let mut r = error(401, "unauthorized", "missing or invalid bearer token");
        r.headers
            .push(("WWW-Authenticate", "Bearer realm=\"memdir\"".to_owned()));
        r
    };
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Err(unauthorized());
    };
    match store.verify_token(token) {
        Ok(Some(org)) => Ok(org),
        Ok(None) => Err(unauthorized()),
        Err(e) => {
            log_internal(&e);
            Err(error(500, "internal", "internal server error"))
        }
    }
}

struct Query {
    repo: String,
    view: View,
}

impl Query {
    fn parse(query: &str) -> Result<Self, Response> {
        let mut repo = None;
        let mut view = View::Full;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = value.replace('+', " ");
            let Ok(value) = percent_decode_str(&value).decode_utf8() else {
                return Err(error(400, "invalid_query", "the query is not valid UTF-8"));
            };
            match name {
                "repo" if repo.is_none() => repo = Some(value.into_owned()),
                "repo" => return Err(error(400, "invalid_query", "repo is given twice")),
                "view" => {
                    view = match &*value {
                        "hashes" => View::Hashes,
                        "full" => View::Full,
                        _ => {
                            return Err(error(
                                400,
                                "invalid_query",
                                "view must be 'hashes' or 'full'",
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        let Some(repo) = repo else {
            return Err(error(
                400,
                "invalid_repo",
                "the repo parameter (owner/name) is missing",
            ));
        };
        if !valid_repo(&repo) {
            return Err(error_with(
                400,
                "invalid_repo",
                "repo must be owner/name of letters, digits, '.', '_' and '-'",
                json!({"repo": repo}),
            ));
        }
        Ok(Self { repo, view })
    }
}

/// `owner/name`, GitHub's alphabet, each part 1–100 characters and not
/// `.` or `..`.
fn valid_repo(repo: &str) -> bool {
    let part_ok = |p: &str| {
        (1..=100).contains(&p.len())
            && p != "."
            && p != ".."
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    repo.split_once('/')
        .is_some_and(|(owner, name)| part_ok(owner) && part_ok(name))
}

fn get(store: &dyn Store, org: &str, q: &Query) -> Result<Response, crate::StoreError> {
    Ok(match store.get(org, &q.repo, q.view)? {
        Some(state) => state_response(200, &state, None),
        None => error(404, "not_found", "no team memory for this repository"),
    })
}

#[derive(Deserialize)]
struct PutBody {
    entries: BTreeMap<String, String>,
}

fn put(
    store: &dyn Store,
    config: &Config,
    req: &Request,
    org: &str,
    repo: &str,
) -> Result<Response, crate::StoreError> {
    let body: PutBody = match serde_json::from_slice(&req.body) {
        Ok(b) => b,
        Err(e) => {
            return Ok(error_with(
                400,
                "invalid_json",
                "the body must be {\"entries\": {key: text}}",
                json!({"detail": e.to_string()}),
            ));
        }
    };
    for (key, text) in &body.entries {
        // The client's own text rules (R4.10), without a file system: the
        // server writes no files, and a key it accepts must be one that
        // every member's machine can write.
        if let Err(e) = memdir_protocol::validate_team_mem_key_text(key) {
            return Ok(error_with(
                400,
                "invalid_key",
                &format!("key {key:?} rejected: {}", e.reason),
                json!({"key": key, "reason": e.reason.code()}),
            ));
        }
        if text.len() > config.max_entry_bytes {
            return Ok(error_with(
                413,
                "entry_too_large",
                &format!(
                    "entry {key:?} is {} bytes; the limit is {} bytes",
                    text.len(),
                    config.max_entry_bytes
                ),
                json!({"key": key, "bytes": text.len(), "limit": config.max_entry_bytes}),
            ));
        }
    }
    let if_match = match req.header("if-match") {
        None => IfMatch::Absent,
        Some("*") => IfMatch::Any,
        Some(v) => IfMatch::Checksum(v.trim_matches('"').to_owned()),
    };
    let limits = Limits {
        max_entries: config.max_entries,
    };
    Ok(
        match store.put(org, repo, &body.entries, &if_match, limits)? {
            PutOutcome::Accepted(state) => state_response(200, &state, None),
            PutOutcome::PreconditionFailed(state) => state_response(
                412,
                &state,
                Some((
                    "precondition_failed",
                    "If-Match is not the current checksum; the current checksums are in this body",
                )),
            ),
            PutOutcome::PreconditionRequired(state) => state_response(
                428,
                &state,
                Some((
                    "precondition_required",
                    "the repository has entries: send If-Match with the checksum you last saw",
                )),
            ),
            PutOutcome::TooManyEntries {
                max_entries,
                would_hold,
            } => error_with(
                413,
                "too_many_entries",
                &format!(
                    "the repository would hold {would_hold} entries; the cap is {max_entries} entries"
                ),
                json!({"maxEntries": max_entries, "wouldHold": would_hold}),
            ),
        },
    )
}

/// The R8.1 data of a repository.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RepoBody<'a> {
    organization_id: &'a str,
    repo: &'a str,
    version: u64,
    last_modified: Option<String>,
    checksum: &'a str,
    content: ContentBody<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContentBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<&'a BTreeMap<String, String>>,
    entry_checksums: &'a BTreeMap<String, String>,
}

/// A response carrying a repository's data and its checksum as the ETag;
/// with an error code and message merged in for 412 and 428.
fn state_response(status: u16, state: &RepoState, err: Option<(&str, &str)>) -> Response {
    let body = RepoBody {
        organization_id: &state.organization_id,
        repo: &state.repo,
        version: state.version,
        last_modified: state.last_modified.map(|t| t.to_string()),
        checksum: &state.checksum,
        content: ContentBody {
            entries: state.entries.as_ref(),
            entry_checksums: &state.entry_checksums,
        },
    };
    let mut value = serde_json::to_value(&body).unwrap_or(Value::Null);
    if let (Some((code, message)), Value::Object(map)) = (err, &mut value) {
        map.insert("error".to_owned(), Value::from(code));
        map.insert("message".to_owned(), Value::from(message));
    }
    let mut response = json_response(status, &value);
    response
        .headers
        .push(("ETag", format!("\"{}\"", state.checksum)));
    response
}

fn method_not_allowed(allow: &str) -> Response {
    let mut r = error(
        405,
        "method_not_allowed",
        &format!("allowed methods: {allow}"),
    );
    r.headers.push(("Allow", allow.to_owned()));
    r
}

/// A JSON error body `{"error": code, "message": message}`.
pub(crate) fn error(status: u16, code: &str, message: &str) -> Response {
    error_with(status, code, message, json!({}))
}

fn error_with(status: u16, code: &str, message: &str, extra: Value) -> Response {
    let mut body = json!({"error": code, "message": message});
    if let (Value::Object(map), Value::Object(extra)) = (&mut body, extra) {
        map.extend(extra);
    }
    json_response(status, &body)
}

fn json_response(status: u16, body: &Value) -> Response {
    Response {
        status,
        headers: vec![("Content-Type", "application/json".to_owned())],
        body: body.to_string().into_bytes(),
    }
}

fn log_internal(e: &crate::StoreError) {
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        detail.push_str(": ");
        detail.push_str(&s.to_string());
        source = s.source();
    }
    log::error!(
        target: "memdir_teamserver::internal",
        "{}",
        json!({"level": "error", "error": detail})
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_names() {
        for ok in ["owner/name", "a-b/c.d_e", "O/N"] {
            assert!(valid_repo(ok), "{ok}");
        }
        for bad in [
            "", "owner", "/name", "owner/", "a/b/c", "../x", "a/..", "a b/c", "a/%2e",
        ] {
            assert!(!valid_repo(bad), "{bad}");
        }
    }

    #[test]
    fn keys_use_the_client_text_rules() {
        assert!(memdir_protocol::validate_team_mem_key_text("notes/testing.md").is_ok());
        for (bad, code) in [
            ("../x.md", "dot-dot-segment"),
            ("/etc/passwd", "absolute"),
            ("a\\b", "backslash"),
            ("%2e%2e%2fx", "percent-encoded"),
            ("a//b", "empty-segment"),
            ("", "empty"),
            ("notes/\u{202e}evil.md", "format-character"),
            ("a\u{2215}b.md", "separator-lookalike"),
            ("CON.md", "reserved-name"),
            ("notes:b.md", "colon"),
            ("a:b.md", "drive-letter"),
            (".git/config", "hidden-segment"),
            ("notes./a.md", "trailing-dot-or-space"),
        ] {
            let err = memdir_protocol::validate_team_mem_key_text(bad).unwrap_err();
            assert_eq!(err.reason.code(), code, "{bad:?}");
        }
    }
}
