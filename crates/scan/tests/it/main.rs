//! Integration tests of `memdir-scan` on real folders.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod odd_files;
mod shapes;
