//! Tests of the `memdir` binary, run as a process as a user would run it.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod errors;
mod golden;
mod readme;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root, where the README's commands are run from.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// Runs `memdir` with `args` from the workspace root.
fn memdir<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run memdir")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}
