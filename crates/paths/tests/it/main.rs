//! Integration tests of `memdir-paths` through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod hostile;
mod properties;
mod resolution;
mod symlinks;
mod tracked;
