//! Integration tests of `memdir-filepersist` through its public API: the
//! outputs folder on disk, uploads against the Files API fake of
//! `memdir-testkit` on 127.0.0.1.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod env;
mod find;
mod scan;
mod upload;

use std::path::Path;
use std::time::{Duration, SystemTime};

/// A turn start a minute ago: files written by the test are newer.
fn turn_start() -> SystemTime {
    SystemTime::now() - Duration::from_secs(60)
}

/// Writes `rel` below `root`, with its folders.
fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Sets the modification time of `rel` to an hour ago.
fn age(root: &Path, rel: &str) {
    let file = std::fs::File::options()
        .write(true)
        .open(root.join(rel))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3_600))
        .unwrap();
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
}
