//! Integration tests of `memdir-http` through its public API, against a
//! scripted HTTP/1.1 server on 127.0.0.1 (`memdir-testkit`).

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod client;
mod multipart;
mod proxy;
mod retry;
