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

/// Without any client library: every line on stdout is a JSON-RPC
/// message, a hostile call is a tool error, and the server ends cleanly
/// when its input closes.
#[test]
fn stdout_carries_nothing_but_the_protocol() {
    use std::io::Write;
    use std::process::Stdio;

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = crate::command(
        tmp.path(),
        &[],
        ["--memory-dir", dir.to_str().unwrap(), "mcp"],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut input = child.stdin.take().unwrap();
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_memory","arguments":{"name":"../../etc/passwd"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_memory","arguments":{"name":"a","type":"project","description":"d","body":"b","scope":"team"}}}"#,
    ];
    for line in requests {
        writeln!(input, "{line}").unwrap();
    }
    // Answers come before the input closes: wait for both calls.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let messages: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON-RPC: {l:?}: {e}")))
        .collect();
    assert!(messages.iter().all(|m| m["jsonrpc"] == "2.0"), "{stdout}");
    let answer = |id: u64| {
        messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {stdout}"))
    };
    assert_eq!(answer(1)["result"]["serverInfo"]["name"], "memdir");
    assert_eq!(answer(2)["result"]["isError"], true, "{stdout}");
    // Team memory is off here: refused, as a tool error.
    let team = &answer(3)["result"];
    assert_eq!(team["isError"], true, "{stdout}");
    assert!(
        team["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("team memory is off"),
        "{stdout}"
    );
    assert!(!dir.join("team").exists());
}
