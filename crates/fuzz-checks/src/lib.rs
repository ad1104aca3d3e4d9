//! The properties memdir's fuzz targets check, one function per target.
//!
//! Each function takes the fuzzer's bytes, runs one parser of untrusted
//! input, and panics when a property of that parser fails: not only "no
//! panic", but offsets within the input, round trips, canonical output,
//! limits kept. The cargo-fuzz targets in `fuzz/fuzz_targets/` call these
//! functions and nothing else, and this crate's test replays every input
//! saved in `fuzz/corpus/` and `fuzz/regressions/` through them on stable,
//! so a crash once found stays fixed. `cargo xtask fuzz` runs the fuzzers.
//!
//! ```
//! // A refused key is a finding of no property: only a panic is.
//! memdir_fuzz_checks::run("team_key", b"notes/../../etc/passwd");
//! memdir_fuzz_checks::run("secrets_scan", b"token: glpat-Xq3Tb7ZkP2vLw9RcY5nH");
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "development tooling outside the product, free to print what it finds"
)]

mod memory;
mod project;
mod secrets;
mod team;

/// A fuzz target: its name (the file `fuzz/fuzz_targets/<name>.rs`) and
/// its property check.
pub type Check = fn(&[u8]);

/// Every target, by name.
pub const TARGETS: &[(&str, Check)] = &[
    ("secrets_scan", secrets::scan_and_redact),
    ("secrets_config", secrets::config),
    ("frontmatter", memory::frontmatter),
    ("index", memory::index),
    ("team_key", team::key),
    ("teamserver_http", team::server_http),
    ("teamsync_answer", team::client_answer),
    ("settings", project::settings),
    ("slug", project::slug),
    ("git_config", project::git_config),
];

/// The check of the target called `name`.
#[must_use]
pub fn target(name: &str) -> Option<Check> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Runs the check of target `name` on `data`: what a fuzz target does.
///
/// # Panics
///
/// When a property fails, and when there is no target called `name`.
pub fn run(name: &str, data: &[u8]) {
    let check = target(name).unwrap_or_else(|| panic!("no fuzz target {name:?}"));
    check(data);
}

/// The input as text when it is UTF-8.
fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Splits the input at the first `n - 1` zero bytes into `n` texts (the
/// last may be shorter), so one input can fill several fields.
fn fields(data: &[u8], n: usize) -> Vec<String> {
    let mut out: Vec<String> = data
        .splitn(n, |&b| b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    out.resize(n, String::new());
    out
}
