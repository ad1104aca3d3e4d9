//! Integration tests of `memdir-transcript`: golden fixtures in the real
//! shapes, files that are not files, and the invariants of a tolerant read.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod golden;
mod invariants;
mod read;

use std::path::{Path, PathBuf};

/// The fixture folder of this crate.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}
