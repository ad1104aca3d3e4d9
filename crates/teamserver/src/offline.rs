//! The server's answer to one connection's bytes, without a socket: the
//! same hyper connection, limits and handlers as [`Server`](crate::Server),
//! over an in-memory pipe, for tests and fuzzing of the request handling.

use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::Config;
use crate::http::MAX_HEAD_BYTES;
use crate::service::{self, Ctx, Handler};
use crate::store::Store;

/// How long an offline connection may take in all: a bound for inputs that
/// would wait on a deadline (a head that never ends is cut by
/// [`Config::idle_timeout`]).
const OFFLINE_LIMIT: Duration = Duration::from_secs(60);

/// Serves `input`, the bytes a client sent on one connection before it
/// stopped sending, and returns the bytes the server writes back.
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
/// let out = respond(&store, &Config::default(), b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
/// assert!(out.starts_with(b"HTTP/1.1 200 OK\r\n"));
/// # Ok::<(), memdir_teamserver::StoreError>(())
/// ```
#[must_use]
pub fn respond(store: &dyn Store, config: &Config, input: &[u8]) -> Vec<u8> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    else {
        return Vec::new();
    };
    runtime.block_on(async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(config.idle_timeout)
            .max_header_size(MAX_HEAD_BYTES)
            // The input ends where the client stopped sending; it still
            // reads what the server answers.
            .half_close(true);
        let ctx = Ctx {
            handler: Handler::Inline(store, config),
            in_flight: None,
            stopping: None,
        };
        let service = service_fn(|req| service::serve(&ctx, req));
        let conn = http.serve_connection(TokioIo::new(server), service);
        let (mut read, mut write) = tokio::io::split(client);
        let send = async {
            let _ = write.write_all(input).await;
            let _ = write.shutdown().await;
        };
        let mut out = Vec::new();
        let receive = read.read_to_end(&mut out);
        let all = async {
            let ((), _, ()) = tokio::join!(send, receive, async {
                let _ = conn.await;
            });
        };
        let _ = tokio::time::timeout(OFFLINE_LIMIT, all).await;
        out
    })
}
