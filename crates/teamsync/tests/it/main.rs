//! End-to-end tests of `memdir-teamsync` against a real
//! `memdir_teamserver::Server` on 127.0.0.1 with a temporary SQLite store.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod cost;
mod retry;
mod status;
mod support;
mod sync;
mod watch;
