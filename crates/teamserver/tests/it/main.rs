//! Integration tests of `memdir-teamserver`: real HTTP on 127.0.0.1 and
//! real SQLite files.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod concurrency;
mod crash;
mod isolation;
mod protocol;
mod support;
