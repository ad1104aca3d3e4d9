//! Integration tests of `memdir-entrypoint` through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod fixtures;
mod properties;
