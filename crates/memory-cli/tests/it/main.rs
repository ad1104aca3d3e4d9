//! Tests of the `memdir` binary, run as a process as a user would run it.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod agent;
mod bounded;
mod citations;
mod doctor;
mod dream;
mod errors;
mod extract;
mod given_memory;
mod golden;
mod hooks;
mod hostile_writes;
mod interop;
mod leading_dash;
mod log;
mod mcp;
mod memories;
mod migrate;
mod model;
mod paths;
mod persist;
mod project_dir_name;
mod readme;
mod real_agent;
mod recall_index;
mod recall_natural;
mod secrets;
mod serve;
mod session;
mod session_e2e;
mod settings_writes;
mod supersede;
mod team;
mod team_safety;
mod transcript;
mod write_safety;

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
    memdir_in(&root(), &[], args)
}

/// Variables that steer memdir; tests start without any of them.
const MEMDIR_VARS: [&str; 10] = [
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "CLAUDE_CODE_PROJECT_DIR_NAME",
    "CLAUDE_CODE_SIMPLE",
    "CLAUDE_CODE_REMOTE",
    "CLAUDE_CODE_REMOTE_MEMORY_DIR",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "MEMDIR_TEAM",
    "MEMDIR_AUTO_MIGRATE",
    "HOME",
];

/// Runs `memdir` in `dir` with only the given memdir variables set (plus
/// `HOME` pointing to a folder that does not exist unless given).
fn memdir_in<I, S>(dir: &Path, vars: &[(&str, &str)], args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    memdir_with_stdin(dir, vars, args, None)
}

/// As [`memdir_in`], feeding `stdin` when given (else stdin is empty).
fn memdir_with_stdin<I, S>(
    dir: &Path,
    vars: &[(&str, &str)],
    args: I,
    stdin: Option<&str>,
) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    use std::io::Write;
    use std::process::Stdio;

    let mut cmd = command(dir, vars, args);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run memdir");
    let mut input = child.stdin.take().expect("stdin");
    // The child may exit without reading its input; that is not an error.
    let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    drop(input);
    child.wait_with_output().expect("wait for memdir")
}

/// A `memdir` command to run in `dir` with only the given memdir variables
/// set (plus `HOME` pointing to a folder that does not exist unless given);
/// its standard streams are the caller's to set.
pub(crate) fn command<I, S>(dir: &Path, vars: &[(&str, &str)], args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memdir"));
    for var in MEMDIR_VARS.iter().chain(&MODEL_VARS) {
        cmd.env_remove(var);
    }
    cmd.env("HOME", "/nonexistent-memdir-test-home");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.args(args).current_dir(dir);
    cmd
}

/// Model variables; tests run without a model unless they set one.
const MODEL_VARS: [&str; 8] = [
    "MEMDIR_MODEL_BACKEND",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "MEMDIR_MODEL",
    "MEMDIR_MODEL_TIMEOUT_MS",
    "MEMDIR_ASSISTANT",
];

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}
