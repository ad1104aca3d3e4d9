//! The server's answer to one connection's bytes, without a socket: the
//! same parsing, limits and handlers as [`Server`](crate::Server), for
//! tests and fuzzing of the request handling.

use crate::api::{self, refusal};
use crate::config::Config;
use crate::http::{self, ReadError};
use crate::store::Store;

/// Serves `input`, the bytes a client sent on one connection before it
/// closed, and returns the bytes the server writes back.
///
/// Requests are served in order while the connection stays open
/// (HTTP/1.1 keep-alive, as over a socket). A request the input holds only
/// part of is not answered, as when a client hangs up mid-request; a
/// malformed one gets its refusal (400, 411, 413, 431) and ends the
/// connection. Unlike the server, a handler that panics is not turned into
/// a 500 here: the panic propagates, so that a fuzzer sees it.
///
/// ```
/// use memdir_teamserver::{Config, SqliteStore, Store, respond};
/// let store = SqliteStore::open(std::path::Path::new(":memory:"))?;
/// let out = respond(&store, &Config::default(), b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
/// assert!(out.starts_with(b"HTTP/1.1 200 OK\r\n"));
/// # Ok::<(), memdir_teamserver::StoreError>(())
/// ```
#[must_use]
pub fn respond(store: &dyn Store, config: &Config, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = input;
    loop {
        let head_end = match http::head_end(rest) {
            Ok(Some(end)) => end,
            Ok(None) => return out,
            Err(e) => {
                refuse(&mut out, &e, config);
                return out;
            }
        };
        let (mut request, length) =
            match http::parse_request_head(&rest[..head_end], config.max_body_bytes) {
                Ok(v) => v,
                Err(e) => {
                    refuse(&mut out, &e, config);
                    return out;
                }
            };
        let body_start = head_end + 4;
        if length > 0 && http::expects_continue(&request) {
            out.extend_from_slice(http::CONTINUE);
        }
        let Some(body) = rest.get(body_start..body_start + length) else {
            return out;
        };
        request.body = body.to_vec();
        rest = &rest[body_start + length..];
        let (response, _) = api::handle(store, config, &request);
        out.extend(http::encode_response(&response, request.keep_alive));
        if !request.keep_alive {
            return out;
        }
    }
}

fn refuse(out: &mut Vec<u8>, e: &ReadError, config: &Config) {
    let (response, _) = refusal(e, config.max_body_bytes);
    out.extend(http::encode_response(&response, false));
}
