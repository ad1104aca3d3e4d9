//! Integration tests of `memdir-teamserver`: real HTTP on 127.0.0.1 and
//! real databases: SQLite files, and PostgreSQL when
//! `MEMDIR_TEST_POSTGRES_URL` names a server.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod concurrency;
mod conformance;
mod crash;
#[cfg(feature = "postgres")]
mod pg_processes;
mod protocol;
mod support;
mod web;
mod web_browser;
