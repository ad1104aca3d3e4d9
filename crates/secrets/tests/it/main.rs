//! Integration tests of `memdir-secrets`.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod content;
mod own_vectors;
mod parity;
mod properties;
mod redaction;
