//! One request, from hyper's parts to hyper's response: the body read
//! within its limit and deadline, the handler run, the request logged.
//!
//! The same function serves sockets ([`crate::Server`]) and bytes
//! ([`crate::respond`]); they differ only in where the handler runs — on a
//! blocking thread, since the database calls block, or inline.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body, Incoming};
use jiff::Timestamp;
use memdir_protocol::ErrorCode;
use serde_json::json;
use tokio::sync::{Semaphore, watch};

use crate::api::{self, Handled};
use crate::config::{Config, REQUEST_LOG_TARGET};
use crate::http::{Request, Response};
use crate::store::Store;

/// How much of a refused body is read and discarded, as a multiple of the
/// limit, so that a client still sending it sees the 413 rather than a
/// reset; past that the answer comes with a closed connection.
const DRAIN_FACTOR: u64 = 16;

/// Where a request's handler runs.
pub(crate) enum Handler<'a> {
    /// On tokio's blocking pool, a panic answered with a 500.
    Blocking(&'a Arc<dyn Store>, &'a Arc<Config>),
    /// On the caller's thread; a panic propagates (for fuzzing).
    Inline(&'a dyn Store, &'a Config),
}

/// What serving one request needs.
pub(crate) struct Ctx<'a> {
    pub(crate) handler: Handler<'a>,
    /// Bounds the handlers running at once; `None`: no bound.
    pub(crate) in_flight: Option<&'a Semaphore>,
    /// True once the server stops: answers then ask to close the
    /// connection. `None`: never.
    pub(crate) stopping: Option<&'a watch::Receiver<bool>>,
}

impl Ctx<'_> {
    fn config(&self) -> &Config {
        match &self.handler {
            Handler::Blocking(_, config) => config,
            Handler::Inline(_, config) => config,
        }
    }
}

/// Why a request got no answer: the client went away mid-body. hyper
/// closes the connection.
#[derive(Debug, thiserror::Error)]
#[error("the request body could not be read")]
pub(crate) struct Unanswered(#[source] Box<dyn std::error::Error + Send + Sync>);

/// Serves one request.
pub(crate) async fn serve(
    ctx: &Ctx<'_>,
    req: hyper::Request<Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, Unanswered> {
    let started = Instant::now();
    let config = ctx.config();
    let (head, body) = req.into_parts();
    let (response, handled, refused) = match read_request(config, &head, body).await? {
        Err(refusal) => (refusal, Handled::default(), true),
        Ok(bytes) => {
            let (response, handled) = handle(ctx, Request::from_parts(&head, bytes)).await;
            (response, handled, false)
        }
    };
    // A refused request may have left its body unread: the connection
    // cannot carry another request.
    let close = refused || ctx.stopping.is_some_and(|stop| *stop.borrow());
    log(config, &head, &response, started, &handled);
    Ok(response.into_hyper(close))
}

/// The body of a request whose head is acceptable, whole and within the
/// limit; or the refusal to answer.
async fn read_request(
    config: &Config,
    head: &hyper::http::request::Parts,
    body: Incoming,
) -> Result<Result<Vec<u8>, Response>, Unanswered> {
    // RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or with
    // more than one, is answered 400. (The web view's check of a form's
    // Origin needs the one host the request names.) The body is left
    // unread: the connection closes after the answer.
    let hosts = head.headers.get_all(hyper::header::HOST).iter().count();
    if head.version == hyper::Version::HTTP_11 && hosts != 1 {
        return Ok(Err(api::error(
            400,
            ErrorCode::BadRequest,
            "an HTTP/1.1 request needs exactly one Host header",
        )));
    }
    read_body(config, head, body).await
}

/// The body, whole and within the limit; or the refusal to answer.
async fn read_body(
    config: &Config,
    head: &hyper::http::request::Parts,
    body: Incoming,
) -> Result<Result<Vec<u8>, Response>, Unanswered> {
    if head.headers.contains_key(hyper::header::TRANSFER_ENCODING) {
        return Ok(Err(api::error(
            411,
            ErrorCode::LengthRequired,
            "send the body with a Content-Length",
        )));
    }
    let max = config.max_body_bytes;
    // hyper has checked the Content-Length (one length, digits only): the
    // size is exact, and refused before a byte of the body is read.
    let declared = body.size_hint().exact().unwrap_or(0);
    if declared > max as u64 {
        let response = api::error(
            413,
            ErrorCode::BodyTooLarge,
            &format!("the body is {declared} bytes; the limit is {max} bytes"),
        );
        // A client waiting for `100 Continue` never sends the body; one
        // sending a modest excess has it read and dropped.
        let expects_continue = head
            .headers
            .get(hyper::header::EXPECT)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
        if !expects_continue && declared <= (max as u64).saturating_mul(DRAIN_FACTOR) {
            let drain = async {
                let mut body = body;
                while let Some(Ok(_)) = body.frame().await {}
            };
            let _ = tokio::time::timeout(config.request_timeout, drain).await;
        }
        return Ok(Err(response));
    }
    let read = tokio::time::timeout(config.request_timeout, Limited::new(body, max).collect());
    match read.await {
        Err(_) => Ok(Err(api::error(
            408,
            ErrorCode::RequestTimeout,
            "the request did not arrive in time",
        ))),
        Ok(Ok(collected)) => Ok(Ok(collected.to_bytes().to_vec())),
        Ok(Err(e)) => Err(Unanswered(e)),
    }
}

/// Runs the handler where the context says, within the in-flight bound.
async fn handle(ctx: &Ctx<'_>, request: Request) -> (Response, Handled) {
    let _permit = match ctx.in_flight {
        Some(semaphore) => semaphore.acquire().await.ok(),
        None => None,
    };
    match &ctx.handler {
        Handler::Inline(store, config) => api::handle(*store, config, &request),
        Handler::Blocking(store, config) => {
            let (store, config) = (Arc::clone(store), Arc::clone(config));
            let run =
                move || catch_unwind(AssertUnwindSafe(|| api::handle(&*store, &config, &request)));
            match tokio::task::spawn_blocking(run).await {
                Ok(Ok(answer)) => answer,
                // The handler panicked, or the pool is shutting down.
                _ => (
                    api::error(500, ErrorCode::Internal, "internal server error"),
                    Handled::default(),
                ),
            }
        }
    }
}

fn log(
    config: &Config,
    head: &hyper::http::request::Parts,
    response: &Response,
    started: Instant,
    handled: &Handled,
) {
    if !config.log_requests {
        return;
    }
    // The path only: the query names the repository, logged as `repo` once
    // it is known to be valid. Headers (tokens) are never logged.
    let line = json!({
        "time": Timestamp::now().to_string(),
        "method": head.method.as_str(),
        "path": head.uri.path(),
        "repo": handled.repo,
        "org": handled.org,
        "status": response.status,
        "durationMs": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    log::info!(target: REQUEST_LOG_TARGET, "{line}");
}
