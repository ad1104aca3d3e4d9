//! The server's configuration: limits, sizes, deadlines and request logs.
//! Every other module reads it; it depends on none of them.

use std::time::Duration;

use memdir_protocol::{DEFAULT_MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_PUT_BODY_BYTES};

/// Limits and sizes of a server. Build it from [`Config::default`] and
/// change the fields that differ.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The largest entry text, in UTF-8 bytes (R8.3: 250,000,
    /// [`memdir_protocol::MAX_ENTRY_BYTES`]).
    pub max_entry_bytes: usize,
    /// The largest PUT body, in bytes (R8.3: 200,000,
    /// [`memdir_protocol::MAX_PUT_BODY_BYTES`]).
    pub max_body_bytes: usize,
    /// The most entries one repository may hold (2,000,
    /// [`memdir_protocol::DEFAULT_MAX_ENTRIES`]).
    pub max_entries: usize,
    /// Threads of the async runtime that serves connections (0: one per
    /// core). Connections are tasks, not threads: an idle or slow
    /// connection costs a little memory and no thread.
    pub workers: usize,
    /// The most connections open at once (4,096). Past it the server stops
    /// accepting until one closes; the kernel's listen queue holds the
    /// rest.
    pub max_connections: usize,
    /// The most requests whose handler (the database work) runs at once
    /// (64); the others wait their turn, first come first served.
    pub max_in_flight: usize,
    /// How long a request body may take to arrive once its head has (30 s,
    /// the client's own timeout); past it the answer is a 408.
    pub request_timeout: Duration,
    /// How long a connection may take to deliver a whole request head:
    /// after it opens, and after each kept-alive response (5 s). Past it
    /// the connection is closed without an answer, whether it was silent
    /// or trickling a head byte by byte.
    pub idle_timeout: Duration,
    /// Whether to log one JSON line per request (on): an `info` record with
    /// the target [`REQUEST_LOG_TARGET`], whose message is the line. Where
    /// it goes is the application's choice of logger.
    pub log_requests: bool,
    /// Whether the web view's cookies are `Secure` (off): set it when
    /// members reach the server over HTTPS (a TLS proxy in front of it),
    /// so that browsers never send a session over plain HTTP. It also makes
    /// the web view accept forms only from `https://` pages of its own
    /// host.
    pub secure_cookies: bool,
    /// How long a web-view session lasts from sign-in, however it is used
    /// (12 hours); then the member signs in again. Sessions are kept in
    /// the database, so they outlive a restart and hold across several
    /// servers over one PostgreSQL database.
    pub session_lifetime: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_entry_bytes: MAX_ENTRY_BYTES,
            max_body_bytes: MAX_PUT_BODY_BYTES,
            max_entries: DEFAULT_MAX_ENTRIES,
            workers: 0,
            max_connections: 4096,
            max_in_flight: 64,
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(5),
            log_requests: true,
            secure_cookies: false,
            session_lifetime: Duration::from_secs(12 * 60 * 60),
        }
    }
}

/// The `log` target of the request lines and of the shutdown line.
pub const REQUEST_LOG_TARGET: &str = "memdir_teamserver::request";
