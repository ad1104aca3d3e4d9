//! Test support for the memdir workspace: the network fixtures that several
//! crates' integration tests share, on 127.0.0.1 and plain `std::net`.
//!
//! - [`ScriptedServer`] answers each HTTP/1.1 request with the next
//!   [`Reply`] of a script and records what it received as [`Recorded`].
//! - [`anthropic`] builds its replies in the Anthropic Messages API's
//!   format, for tests that play a model's turns.
//! - [`Proxy`] forwards connections to an upstream address, counting the
//!   bytes clients send and the requests by method, with a hook that runs
//!   before chosen requests are forwarded.
//! - [`files_api::FilesApi`] fakes the Anthropic Files API (`POST
//!   /v1/files`) with hyper and a real multipart parser, scriptable with
//!   429s, 5xx, delays and gates, recording the most requests in flight.
//! - [`dead_url`] names a port nobody listens on, for refused connections.
//! - [`run_test_with_proxy`] runs one test of the current binary again as
//!   a child with a proxy in its environment.
//! - [`Folders`] is a temporary home and project folder under one canonical
//!   root, [`write_file`] writes a file with its folders, and [`fixture`]
//!   names a golden input under the workspace's `fixtures/`.
//! - [`corpus`] generates the project and memories the citation benches
//!   measure.
//! - [`samples`] builds a valid PNG image and zip archive in memory, for
//!   tests of what reads or uploads binary files.
//! - [`PgDatabase`] is a fresh PostgreSQL database for one test on the
//!   server that `MEMDIR_TEST_POSTGRES_URL` names, dropped afterwards;
//!   without the variable the test is skipped, said on stderr (or fails,
//!   with `MEMDIR_REQUIRE_POSTGRES=1`).
//!
//! ```
//! use std::io::{Read, Write};
//! use memdir_testkit::{Reply, ScriptedServer};
//!
//! let server = ScriptedServer::start(vec![Reply::text(201, "made")]);
//! let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
//! stream.write_all(b"POST /x HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi").unwrap();
//! let mut answer = String::new();
//! stream.read_to_string(&mut answer).unwrap();
//! assert!(answer.starts_with("HTTP/1.1 201 "));
//! assert!(answer.ends_with("\r\n\r\nmade"));
//! let request = server.only_request();
//! assert_eq!((request.method.as_str(), request.target.as_str()), ("POST", "/x"));
//! assert_eq!(request.body, b"hi");
//! ```
//!
//! This crate is tooling: it is never published and only ever a
//! dev-dependency. Setup failures (a port that cannot be bound, a poisoned
//! lock) panic, which is how a test should fail.

#![allow(
    clippy::unwrap_used,
    reason = "test support: a setup failure should fail the test loudly"
)]
#![allow(
    clippy::missing_panics_doc,
    reason = "test support: every setup failure panics, as the crate doc says once"
)]

pub mod anthropic;
mod child;
pub mod corpus;
pub mod files_api;
mod postgres;
mod proxy;
pub mod samples;
mod server;
mod wire;
mod world;

use std::net::TcpListener;

pub use child::run_test_with_proxy;
pub use postgres::{POSTGRES_URL_VAR, PgDatabase, REQUIRE_POSTGRES_VAR, with_dbname};
pub use proxy::Proxy;
pub use server::{Recorded, Reply, ScriptedServer};
pub use world::{Folders, copy_tree, fixture, write_file};

/// `http://127.0.0.1:<port>` for a port nobody listens on (bound, then
/// released), so a connection to it is refused.
#[must_use]
pub fn dead_url() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}")
}

#[cfg(test)]
mod tests {
    use std::net::TcpStream;

    #[test]
    fn a_dead_url_refuses_connections() {
        let url = super::dead_url();
        let addr = url.strip_prefix("http://").unwrap();
        assert!(addr.starts_with("127.0.0.1:"), "{url}");
        assert!(TcpStream::connect(addr).is_err());
    }
}
