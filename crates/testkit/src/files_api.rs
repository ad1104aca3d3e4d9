//! A fake of the Anthropic Files API (`POST /v1/files`) on 127.0.0.1, for
//! tests of uploads: real HTTP/1.1 (hyper), concurrent connections, and a
//! real `multipart/form-data` parser (multer), so an encoder is checked by
//! an implementation other than its own.
//!
//! Each request is checked as the real API would: the credential
//! (`x-api-key` or `Authorization: Bearer`, 401 otherwise), the
//! `anthropic-version` and `anthropic-beta` headers (400 otherwise), and a
//! body with exactly one `file` part. A good upload is stored and answered
//! 200 with `{type, id, filename, mime_type, size_bytes, created_at,
//! downloadable}`; every error body has the Anthropic shape
//! `{type: "error", error: {type, message}}`.
//!
//! [`Rule`]s script faults: a 429 with or without `retry-after`, any other
//! status, a delay, or a gate that holds requests until enough are in
//! flight at once, for the Nth request or for a given file name, a given
//! number of times. The fake records every request ([`SeenRequest`]) and
//! the most requests it had in flight at once.
//!
//! ```
//! use memdir_testkit::files_api::{FakeAuth, FilesApi};
//!
//! let api = FilesApi::start(FakeAuth::ApiKey("sk-test".into()));
//! assert!(api.url().starts_with("http://127.0.0.1:"));
//! assert_eq!(api.request_count(), 0);
//! ```

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyDataStream, BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::sync::Notify;

/// The `anthropic-version` the fake requires.
pub const API_VERSION: &str = "2023-06-01";
/// The beta the fake requires among the `anthropic-beta` values.
pub const FILES_BETA: &str = "files-api-2025-04-14";
/// The `created_at` of every stored file: a fixed time keeps answers
/// comparable between runs.
pub const CREATED_AT: &str = "2026-01-01T00:00:00Z";

/// The credential the fake accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeAuth {
    /// `x-api-key: <key>`.
    ApiKey(String),
    /// `Authorization: Bearer <token>`.
    Bearer(String),
}

/// What a [`Rule`] does to a request it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answers 429 `rate_limit_error`, with `retry-after` when given.
    RateLimited {
        /// The `retry-after` value, sent as it is.
        retry_after: Option<String>,
    },
    /// Answers this status with an error body (`api_error` for 5xx).
    Status(u16),
    /// Waits this long, then handles the request as usual.
    Delay(Duration),
    /// Holds the request until `in_flight` requests have been in flight at
    /// once (or `timeout` passes), then handles it as usual; once that
    /// many were, the gate stays open.
    Gate {
        /// How many requests in flight open the gate.
        in_flight: usize,
        /// The longest hold.
        timeout: Duration,
    },
}

/// Which requests a [`Rule`] matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum When {
    /// The Nth request the fake received (1-based).
    Request(usize),
    /// A request uploading a file of this name.
    File(String),
    /// Every request.
    Every,
}

/// A scripted fault: which requests, what happens, how many times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    when: When,
    fault: Fault,
    times: usize,
}

impl Rule {
    /// `fault` for the Nth request (1-based).
    #[must_use]
    pub fn on_request(n: usize, fault: Fault) -> Self {
        Rule {
            when: When::Request(n),
            fault,
            times: 1,
        }
    }

    /// `fault` for every upload of a file named `name`, until
    /// [`Rule::times`] says otherwise.
    #[must_use]
    pub fn for_file(name: impl Into<String>, fault: Fault) -> Self {
        Rule {
            when: When::File(name.into()),
            fault,
            times: usize::MAX,
        }
    }

    /// `fault` for every request.
    #[must_use]
    pub fn always(fault: Fault) -> Self {
        Rule {
            when: When::Every,
            fault,
            times: usize::MAX,
        }
    }

    /// Fires at most `times` times.
    #[must_use]
    pub fn times(mut self, times: usize) -> Self {
        self.times = times;
        self
    }
}

/// A file the fake stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// The id it answered (`file_` and a number).
    pub id: String,
    /// The file name, as the client sent it (percent-decoded `%22`, `%0D`,
    /// `%0A`).
    pub filename: String,
    /// The part's `Content-Type`.
    pub content_type: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// A request the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenRequest {
    /// Its number, 1-based, in order of arrival.
    pub number: usize,
    /// The method.
    pub method: String,
    /// The path and query.
    pub target: String,
    /// The headers, names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The uploaded file's name, when the body was read that far.
    pub filename: Option<String>,
    /// The status answered.
    pub status: u16,
}

impl SeenRequest {
    /// The first value of header `name` (lower-case).
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One part of a parsed `multipart/form-data` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedPart {
    /// The form field name.
    pub field: String,
    /// The file name, percent-decoded as [`StoredFile::filename`].
    pub filename: Option<String>,
    /// The part's `Content-Type`.
    pub content_type: Option<String>,
    /// The part's bytes.
    pub bytes: Vec<u8>,
}

/// Parses a `multipart/form-data` body with multer, as a server would.
pub fn parse_multipart(content_type: &str, body: &[u8]) -> Result<Vec<ParsedPart>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let boundary = multer::parse_boundary(content_type).map_err(|e| e.to_string())?;
    let stream = BodyDataStream::new(Full::new(Bytes::copy_from_slice(body)));
    runtime.block_on(read_parts(multer::Multipart::new(stream, boundary)))
}

async fn read_parts(mut multipart: multer::Multipart<'_>) -> Result<Vec<ParsedPart>, String> {
    let mut parts = Vec::new();
    while let Some(mut field) = multipart.next_field().await.map_err(|e| e.to_string())? {
        let name = field.name().unwrap_or_default().to_owned();
        let filename = field.file_name().map(percent_decode_name);
        let content_type = field.content_type().map(ToString::to_string);
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(|e| e.to_string())? {
            bytes.extend_from_slice(&chunk);
        }
        parts.push(ParsedPart {
            field: name,
            filename,
            content_type,
            bytes,
        });
    }
    Ok(parts)
}

/// Undoes the RFC 7578 / WHATWG quoting of a name: `%22`, `%0D`, `%0A`.
fn percent_decode_name(name: &str) -> String {
    name.replace("%22", "\"")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
}

/// What the fake knows, shared by its connections.
struct State {
    auth: FakeAuth,
    rules: Mutex<Vec<Rule>>,
    seen: Mutex<Vec<SeenRequest>>,
    stored: Mutex<Vec<StoredFile>>,
    received: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    changed: Notify,
}

/// The fake Files API server; it stops when dropped.
pub struct FilesApi {
    addr: SocketAddr,
    state: Arc<State>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for FilesApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilesApi")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FilesApi {
    /// Starts the fake on a free port of 127.0.0.1, accepting `auth`.
    #[must_use]
    pub fn start(auth: FakeAuth) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State {
            auth,
            rules: Mutex::new(Vec::new()),
            seen: Mutex::new(Vec::new()),
            stored: Mutex::new(Vec::new()),
            received: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            changed: Notify::new(),
        });
        runtime.spawn(accept_loop(listener, Arc::clone(&state)));
        FilesApi {
            addr,
            state,
            runtime: Some(runtime),
        }
    }

    /// `http://127.0.0.1:<port>`, the base URL clients are given.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Adds a scripted fault; rules are tried in the order added.
    pub fn add_rule(&self, rule: Rule) {
        self.state.rules.lock().unwrap().push(rule);
    }

    /// The files stored, in order of upload.
    #[must_use]
    pub fn stored(&self) -> Vec<StoredFile> {
        self.state.stored.lock().unwrap().clone()
    }

    /// Every request answered, in order of answer.
    #[must_use]
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.state.seen.lock().unwrap().clone()
    }

    /// How many requests arrived (answered or not).
    #[must_use]
    pub fn request_count(&self) -> usize {
        self.state.received.load(Ordering::SeqCst)
    }

    /// The most requests that were in flight at once.
    #[must_use]
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for FilesApi {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn accept_loop(listener: tokio::net::TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let state = Arc::clone(&state);
                async move { Ok::<_, Infallible>(handle(&state, req).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Counts a request in flight for as long as it lives, even when the
/// client goes away and the handler is dropped.
struct InFlight<'a>(&'a State);

impl<'a> InFlight<'a> {
    fn enter(state: &'a State) -> Self {
        let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        state.max_in_flight.fetch_max(now, Ordering::SeqCst);
        state.changed.notify_waiters();
        InFlight(state)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

/// An answer: status, extra headers, JSON body.
struct Answer {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: serde_json::Value,
}

fn error_answer(status: u16, kind: &str, message: &str) -> Answer {
    Answer {
        status,
        headers: Vec::new(),
        body: json!({"type": "error", "error": {"type": kind, "message": message}}),
    }
}

async fn handle(state: &State, req: hyper::Request<Incoming>) -> hyper::Response<Full<Bytes>> {
    let _in_flight = InFlight::enter(state);
    let number = state.received.fetch_add(1, Ordering::SeqCst) + 1;
    let (head, body) = req.into_parts();
    let mut seen = SeenRequest {
        number,
        method: head.method.to_string(),
        target: head
            .uri
            .path_and_query()
            .map_or_else(|| head.uri.path().to_owned(), ToString::to_string),
        headers: head
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        filename: None,
        status: 0,
    };
    let answer = answer(state, &mut seen, body).await;
    seen.status = answer.status;
    state.seen.lock().unwrap().push(seen);
    let mut response = hyper::Response::new(Full::new(Bytes::from(answer.body.to_string())));
    *response.status_mut() = hyper::StatusCode::from_u16(answer.status).unwrap();
    let headers = response.headers_mut();
    headers.insert("content-type", "application/json".parse().unwrap());
    for (name, value) in answer.headers {
        headers.insert(name, value.parse().unwrap());
    }
    response
}

async fn answer(state: &State, seen: &mut SeenRequest, body: Incoming) -> Answer {
    if seen.method != "POST" || seen.target != "/v1/files" {
        return error_answer(404, "not_found_error", "no such endpoint");
    }
    if let Some(refused) = check_headers(state, seen) {
        // Drain the body so the client sees the answer, not a reset.
        let _ = body.collect().await;
        return refused;
    }
    let content_type = seen.header("content-type").unwrap_or_default().to_owned();
    let parts = match multer::parse_boundary(&content_type) {
        Ok(boundary) => {
            read_parts(multer::Multipart::new(BodyDataStream::new(body), boundary)).await
        }
        Err(e) => Err(e.to_string()),
    };
    let parts = match parts {
        Ok(parts) => parts,
        Err(e) => return error_answer(400, "invalid_request_error", &format!("multipart: {e}")),
    };
    let [part] = parts.as_slice() else {
        return error_answer(400, "invalid_request_error", "expected exactly one part");
    };
    let (Some(filename), "file") = (&part.filename, part.field.as_str()) else {
        return error_answer(
            400,
            "invalid_request_error",
            "expected a file part named file",
        );
    };
    seen.filename = Some(filename.clone());
    if let Some(faulted) = apply_rules(state, seen.number, filename).await {
        return faulted;
    }
    let content_type = part
        .content_type
        .clone()
        .unwrap_or_else(|| "application/octet-stream".to_owned());
    let mut stored = state.stored.lock().unwrap();
    let id = format!("file_{:024}", stored.len() + 1);
    let body = json!({
        "type": "file",
        "id": id,
        "filename": filename,
        "mime_type": content_type,
        "size_bytes": part.bytes.len(),
        "created_at": CREATED_AT,
        "downloadable": false,
    });
    stored.push(StoredFile {
        id,
        filename: filename.clone(),
        content_type,
        bytes: part.bytes.clone(),
    });
    Answer {
        status: 200,
        headers: Vec::new(),
        body,
    }
}

/// The 401 or 400 of a request whose credential or API headers are wrong.
fn check_headers(state: &State, seen: &SeenRequest) -> Option<Answer> {
    let authorized = match &state.auth {
        FakeAuth::ApiKey(key) => seen.header("x-api-key") == Some(key.as_str()),
        FakeAuth::Bearer(token) => {
            seen.header("authorization") == Some(format!("Bearer {token}").as_str())
        }
    };
    if !authorized {
        return Some(error_answer(
            401,
            "authentication_error",
            "invalid x-api-key or bearer token",
        ));
    }
    if seen.header("anthropic-version") != Some(API_VERSION) {
        return Some(error_answer(
            400,
            "invalid_request_error",
            "anthropic-version: missing or unsupported",
        ));
    }
    let beta = seen.header("anthropic-beta").unwrap_or_default();
    if !beta.split(',').any(|b| b.trim() == FILES_BETA) {
        return Some(error_answer(
            400,
            "invalid_request_error",
            "the Files API needs anthropic-beta: files-api-2025-04-14",
        ));
    }
    None
}

/// Runs the rules that match; returns the answer of a terminal fault.
async fn apply_rules(state: &State, number: usize, filename: &str) -> Option<Answer> {
    let fired: Vec<Fault> = {
        let mut rules = state.rules.lock().unwrap();
        rules
            .iter_mut()
            .filter(|r| {
                r.times > 0
                    && match &r.when {
                        When::Request(n) => *n == number,
                        When::File(name) => name == filename,
                        When::Every => true,
                    }
            })
            .map(|r| {
                r.times -= 1;
                r.fault.clone()
            })
            .collect()
    };
    for fault in fired {
        match fault {
            Fault::Delay(pause) => tokio::time::sleep(pause).await,
            Fault::Gate { in_flight, timeout } => gate(state, in_flight, timeout).await,
            Fault::RateLimited { retry_after } => {
                let mut answer = error_answer(429, "rate_limit_error", "slow down");
                if let Some(value) = retry_after {
                    answer.headers.push(("retry-after", value));
                }
                return Some(answer);
            }
            Fault::Status(status) => {
                let kind = if status >= 500 {
                    "api_error"
                } else {
                    "invalid_request_error"
                };
                return Some(error_answer(status, kind, "scripted failure"));
            }
        }
    }
    None
}

/// Waits until `count` requests have been in flight at once (at any time
/// since the fake started), or `timeout` passes. Once reached, the gate
/// stays open: a request that was slow to get here is not held for a
/// second crowd that its own client cannot send while it waits.
async fn gate(state: &State, count: usize, timeout: Duration) {
    let wait = async {
        loop {
            let changed = state.changed.notified();
            if state.max_in_flight.load(Ordering::SeqCst) >= count {
                return;
            }
            changed.await;
        }
    };
    let _ = tokio::time::timeout(timeout, wait).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_decoded_as_the_form_encoding_says() {
        assert_eq!(percent_decode_name("a %22b%22%0D%0A.md"), "a \"b\"\r\n.md");
        assert_eq!(percent_decode_name("报告.md"), "报告.md");
    }

    #[test]
    fn a_hand_written_body_parses() {
        let body =
            b"--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\
            Content-Type: text/plain\r\n\r\nhello\r\n--xyz--\r\n";
        let parts = parse_multipart("multipart/form-data; boundary=xyz", body).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].field, "file");
        assert_eq!(parts[0].filename.as_deref(), Some("a.txt"));
        assert_eq!(parts[0].content_type.as_deref(), Some("text/plain"));
        assert_eq!(parts[0].bytes, b"hello");
    }
}
