//! Integration tests of `memdir-secrets`.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod parity;
mod properties;
