//! Running one test of the current test binary in a child process with a
//! proxy in its environment: the only way to test what a client does with
//! `HTTP_PROXY` without changing the environment of the other tests.

use std::process::Command;

/// The proxy variables a child inherits: all are removed before the given
/// proxy is set, so the machine's own settings never reach the test.
const PROXY_VARS: [&str; 8] = [
    "NO_PROXY",
    "no_proxy",
    "all_proxy",
    "https_proxy",
    "http_proxy",
    "ALL_PROXY",
    "HTTPS_PROXY",
    "HTTP_PROXY",
];

/// Runs the test `name` (its full path, as `--exact` wants it) of the
/// current test binary alone, with `proxy` as `ALL_PROXY`, `HTTPS_PROXY`
/// and `HTTP_PROXY`, no other proxy variable, and `env` set too. Panics,
/// with the child's output, unless the child ran that one test and it
/// passed.
pub fn run_test_with_proxy(name: &str, proxy: &str, env: &[(&str, &str)]) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", name, "--test-threads=1"]);
    for var in PROXY_VARS {
        child.env_remove(var);
    }
    child
        .env("ALL_PROXY", proxy)
        .env("HTTPS_PROXY", proxy)
        .env("HTTP_PROXY", proxy);
    for (key, value) in env {
        child.env(key, value);
    }
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
}
