//! `memdir mcp` driven by a real MCP client: the official Python SDK's
//! stdio client runs `crates/mcp/tests/mcp_client.py` against the binary.
//! Without the SDK the test says so and passes, unless
//! `MEMDIR_REQUIRE_MCP_CLIENT=1` (set by CI) makes that a failure.

use std::process::Command;

use crate::root;

fn sdk_available() -> bool {
    Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
#[allow(clippy::print_stderr)] // says plainly that the test was skipped
fn the_python_sdk_client_drives_every_tool_resource_and_the_prompt() {
    if !sdk_available() {
        assert!(
            std::env::var("MEMDIR_REQUIRE_MCP_CLIENT").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_MCP_CLIENT=1 but the MCP Python SDK is missing (pip install mcp)"
        );
        eprintln!("skipped: the MCP Python SDK is not installed (pip install mcp)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("crates/mcp/tests/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_memdir"))
        .arg(&dir)
        .current_dir(tmp.path())
        .env("HOME", "/nonexistent-memdir-test-home");
    for var in [
        "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_SIMPLE",
    ] {
        cmd.env_remove(var);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(stdout.trim(), "ok", "stderr: {stderr}");
    // The tool errors were logged to stderr, one line each.
    assert!(stderr.contains("no tool is named"), "{stderr}");
}
