//! The protocol of SPEC R8.1 over parsed requests: routing, bearer-token
//! authentication, validation and the JSON bodies. The paths, the query,
//! the repository and key rules, the bodies and the error codes are
//! `memdir-protocol`'s; this module applies them.
//!
//! Errors are `{"error": code, "message": text, …}` ([`ErrorBody`]) with a
//! stable `snake_case` code ([`ErrorCode`]). A repository is always looked up under the caller's
//! own organisation, so "no such repository" and "another organisation's
//! repository" are the same lookup and the same 404 — nothing can tell
//! them apart.

use std::collections::BTreeMap;

use memdir_protocol::{
    Content, ErrorBody, ErrorCode, HEALTH_PATH, PREFERENCE_APPLIED_HEADER, ProtocolError, PutBody,
    RETURN_MINIMAL, RepoData, TEAM_MEMORY_PATH, TeamMemoryQuery, View, etag, none_match_hits,
    prefers_minimal, validate_team_mem_key_text,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::config::Config;
use crate::http::{Request, Response};
use crate::store::{IfMatch, Limits, PutOutcome, PutRequest, RepoState, Store};

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
        HEALTH_PATH => health(store, req),
        TEAM_MEMORY_PATH => team_memory(store, config, req, query, &mut handled),
        p if p == crate::web::UI_PREFIX || p.starts_with("/ui/") => {
            crate::web::handle(store, config, req)
        }
        _ => error(404, ErrorCode::NotFound, "no such endpoint"),
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
            error(503, ErrorCode::Unavailable, "the database is not available")
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
    let params = match TeamMemoryQuery::parse(query) {
        Ok(q) => q,
        Err(e) => return query_error(&e),
    };
    handled.repo = Some(params.repo.clone());
    let result = if req.method == "GET" {
        get(store, req, &org, &params)
    } else {
        put(store, config, req, &org, &params.repo)
    };
    result.unwrap_or_else(|e| {
        log_internal(&e);
        error(500, ErrorCode::Internal, "internal server error")
    })
}

fn authenticate(store: &dyn Store, req: &Request) -> Result<String, Response> {
    let token = req.header("authorization").and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    let unauthorized = || {
        let mut r = error(
            401,
            ErrorCode::Unauthorized,
            "missing or invalid bearer token",
        );
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
            Err(error(500, ErrorCode::Internal, "internal server error"))
        }
    }
}

/// The answer to a query the protocol refuses.
fn query_error(e: &ProtocolError) -> Response {
    let message = e.to_string();
    let body = match e {
        ProtocolError::InvalidRepo { repo } => {
            ErrorBody::new(ErrorCode::InvalidRepo, message).with("repo", repo.as_str())
        }
        ProtocolError::MissingRepo => ErrorBody::new(ErrorCode::InvalidRepo, message),
        _ => ErrorBody::new(ErrorCode::InvalidQuery, message),
    };
    error_body(400, &body)
}

fn get(
    store: &dyn Store,
    req: &Request,
    org: &str,
    q: &TeamMemoryQuery,
) -> Result<Response, crate::StoreError> {
    Ok(match store.get(org, &q.repo, q.view)? {
        // R9.3: the hashes view a client already holds costs a 304.
        Some(state)
            if q.view == View::Hashes
                && req
                    .header("if-none-match")
                    .is_some_and(|v| none_match_hits(v, &state.checksum)) =>
        {
            Response {
                status: 304,
                headers: vec![("ETag", etag(&state.checksum))],
                body: Vec::new(),
            }
        }
        Some(state) => state_response(200, state, None),
        None => error(
            404,
            ErrorCode::NotFound,
            "no team memory for this repository",
        ),
    })
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
            let body = ErrorBody::new(
                ErrorCode::InvalidJson,
                "the body must be {\"entries\": {key: text}}",
            )
            .with("detail", e.to_string());
            return Ok(error_body(400, &body));
        }
    };
    for (key, text) in &body.entries {
        // The client's own text rules (R4.10), without a file system: the
        // server writes no files, and a key it accepts must be one that
        // every member's machine can write.
        if let Err(e) = validate_team_mem_key_text(key) {
            let body = ErrorBody::new(
                ErrorCode::InvalidKey,
                format!("key {key:?} rejected: {}", e.reason),
            )
            .with("key", key.as_str())
            .with("reason", e.reason.code());
            return Ok(error_body(400, &body));
        }
        if text.len() > config.max_entry_bytes {
            let body = ErrorBody::new(
                ErrorCode::EntryTooLarge,
                format!(
                    "entry {key:?} is {} bytes; the limit is {} bytes",
                    text.len(),
                    config.max_entry_bytes
                ),
            )
            .with("key", key.as_str())
            .with("bytes", text.len())
            .with("limit", config.max_entry_bytes);
            return Ok(error_body(413, &body));
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
    let request = PutRequest {
        org,
        repo,
        entries: &body.entries,
        if_match: &if_match,
        limits,
    };
    let minimal = req.header("prefer").is_some_and(prefers_minimal);
    let outcome = store.put(&request)?;
    Ok(put_answer(outcome, minimal, &body.entries))
}

/// The answer to a PUT from what the store did with it; `minimal` for
/// `Prefer: return=minimal`, `written` the keys the PUT sent.
fn put_answer(outcome: PutOutcome, minimal: bool, written: &BTreeMap<String, String>) -> Response {
    match outcome {
        PutOutcome::Accepted(mut state) if minimal => {
            // R9.3: only the checksums of the keys written; the client
            // knew the rest, since its If-Match held.
            state.entries = None;
            state
                .entry_checksums
                .retain(|key, _| written.contains_key(key));
            let mut response = state_response(200, state, None);
            response
                .headers
                .push((PREFERENCE_APPLIED_HEADER, RETURN_MINIMAL.to_owned()));
            response
        }
        PutOutcome::Accepted(state) => state_response(200, state, None),
        PutOutcome::PreconditionFailed(state) => state_response(
            412,
            state,
            Some(ErrorBody::new(
                ErrorCode::PreconditionFailed,
                "If-Match is not the current checksum; the current checksums are in this body",
            )),
        ),
        PutOutcome::PreconditionRequired(state) => state_response(
            428,
            state,
            Some(ErrorBody::new(
                ErrorCode::PreconditionRequired,
                "the repository has entries: send If-Match with the checksum you last saw",
            )),
        ),
        PutOutcome::KeyCollision { key, existing } => {
            let body = ErrorBody::new(
                ErrorCode::KeyCollision,
                format!(
                    "key {key:?} names the same file as {existing:?} on a case-insensitive file system (macOS, Windows); write to {existing:?} instead"
                ),
            )
            .with("key", key)
            .with("existing", existing);
            error_body(409, &body)
        }
        PutOutcome::TooManyEntries {
            max_entries,
            would_hold,
        } => {
            let body = ErrorBody::new(
                ErrorCode::TooManyEntries,
                format!(
                    "the repository would hold {would_hold} entries; the cap is {max_entries} entries"
                ),
            )
            .with("maxEntries", max_entries)
            .with("wouldHold", would_hold);
            error_body(413, &body)
        }
    }
}

/// A response carrying a repository's data and its checksum as the ETag;
/// with an error's code and message beside the data for 412 and 428.
fn state_response(status: u16, state: RepoState, err: Option<ErrorBody>) -> Response {
    let tag = etag(&state.checksum);
    let data = RepoData {
        organization_id: state.organization_id,
        repo: state.repo,
        version: state.version,
        last_modified: state.last_modified.map(|t| t.to_string()),
        checksum: Some(state.checksum),
        content: Content {
            entries: state.entries.unwrap_or_default(),
            entry_checksums: state.entry_checksums,
        },
    };
    let mut value = to_value(&data);
    if let (Some(err), Value::Object(map)) = (err, &mut value) {
        map.insert("error".to_owned(), Value::from(err.error));
        map.insert("message".to_owned(), Value::from(err.message));
    }
    let mut response = json_response(status, &value);
    response.headers.push(("ETag", tag));
    response
}

fn method_not_allowed(allow: &str) -> Response {
    let mut r = error(
        405,
        ErrorCode::MethodNotAllowed,
        &format!("allowed methods: {allow}"),
    );
    r.headers.push(("Allow", allow.to_owned()));
    r
}

/// A JSON error body `{"error": code, "message": message}`.
pub(crate) fn error(status: u16, code: ErrorCode, message: &str) -> Response {
    error_body(status, &ErrorBody::new(code, message))
}

fn error_body(status: u16, body: &ErrorBody) -> Response {
    json_response(status, &to_value(body))
}

/// A body as a JSON value (an object's keys in order, as every answer
/// writes them).
fn to_value(body: &impl Serialize) -> Value {
    serde_json::to_value(body).unwrap_or(Value::Null)
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
    fn keys_use_the_client_text_rules() {
        assert!(validate_team_mem_key_text("notes/testing.md").is_ok());
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
            let err = validate_team_mem_key_text(bad).unwrap_err();
            assert_eq!(err.reason.code(), code, "{bad:?}");
        }
    }
}
