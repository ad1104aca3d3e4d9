//! Integration tests of `memdir-protocol` through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod checksums;
mod corpus;
mod fold;
mod hostile;
mod key_props;
