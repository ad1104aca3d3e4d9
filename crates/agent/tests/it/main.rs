//! Integration tests of `memdir-agent` through its public API, against a
//! scripted model server on 127.0.0.1 that speaks the real wire formats of
//! both backends.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod conversation;
mod failures;
mod limits;
mod refusals;
mod support;
