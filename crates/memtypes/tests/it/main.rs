//! Integration tests of `memdir-memtypes` through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod golden;
mod properties;
