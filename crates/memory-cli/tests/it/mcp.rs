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

/// `memdir mcp` spoken to line by line: the answers are read on a thread,
/// and each is awaited with a timeout so that a message the server never
/// answers fails the test instead of hanging it.
struct RawSession {
    child: std::process::Child,
    input: std::process::ChildStdin,
    answers: std::sync::mpsc::Receiver<serde_json::Value>,
}

impl RawSession {
    /// Starts the server on `dir` and initialises the session.
    fn start(tmp: &std::path::Path, dir: &std::path::Path) -> RawSession {
        use std::io::BufRead;
        use std::process::Stdio;

        let mut child = crate::command(tmp, &[], ["--memory-dir", dir.to_str().unwrap(), "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON-RPC: {line:?}: {e}"));
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let mut session = RawSession {
            child,
            input,
            answers,
        };
        session.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
        assert_eq!(session.next("initialize")["id"], 0);
        session.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        session
    }

    /// Sends `line` and its newline.
    fn send(&mut self, line: &[u8]) {
        use std::io::Write;
        self.input.write_all(line).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    /// The next message from the server, which must come.
    fn next(&self, what: &str) -> serde_json::Value {
        self.answers
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no answer to {what}"))
    }

    /// Asks `tools/list` as `id`: the next message must be its answer.
    fn tools_list_works(&mut self, id: u64, after: &str) {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        self.send(line.as_bytes());
        let answer = self.next(&format!("tools/list after {after}"));
        assert_eq!(answer["id"], id, "after {after}: {answer}");
        let tools = answer["result"]["tools"].as_array();
        assert_eq!(tools.map(Vec::len), Some(5), "after {after}: {answer}");
    }
}

/// Each line that is not a request the server can read gets exactly one
/// JSON-RPC error, with the request's id when it could be read and `null`
/// else, and the next request on the connection is answered.
#[test]
fn every_unreadable_line_gets_one_error_and_the_session_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let mut session = RawSession::start(tmp.path(), &dir);
    let null = serde_json::Value::Null;
    let cases: [(&str, &[u8], i64, serde_json::Value); 9] = [
        ("bytes that are not UTF-8", b"\xff\xfe{}", -32_700, null.clone()),
        (
            "a request with bytes that are not UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xc3\x28\"}}",
            -32_700,
            8.into(),
        ),
        ("a lone surrogate", br#""\ud800""#, -32_600, null.clone()),
        (
            "a request holding a lone surrogate",
            br#"{"jsonrpc":"2.0","id":"s1","method":"tools/list","params":{"cursor":"\udc00"}}"#,
            -32_600,
            "s1".into(),
        ),
        ("a bare brace", b"{", -32_700, null.clone()),
        (
            "an id no integer can hold",
            br#"{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}"#,
            -32_600,
            null.clone(),
        ),
        (
            "a number no float can hold",
            br#"{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"cursor":-1e999}}"#,
            -32_600,
            12.into(),
        ),
        ("a batch", b"[]", -32_600, null.clone()),
        (
            "a request of JSON-RPC 1.0",
            br#"{"jsonrpc":"1.0","id":13,"method":"tools/list"}"#,
            -32_600,
            13.into(),
        ),
    ];
    for (n, (what, line, code, id)) in (100..).zip(cases) {
        session.send(line);
        let answer = session.next(what);
        assert_eq!(answer["jsonrpc"], "2.0", "{what}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{what}: {answer}");
        assert_eq!(answer.get("id"), Some(&id), "{what}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            !message.is_empty() && !message.contains('\n'),
            "{what}: {answer}"
        );
        session.tools_list_works(n, what);
    }

    // A line of 17 MiB is refused, and the server does not keep it.
    let mut huge = br#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"read_memory","arguments":{"name":""#.to_vec();
    huge.resize(17 * 1024 * 1024, b'a');
    huge.extend_from_slice(br#""}}}"#);
    session.send(&huge);
    let answer = session.next("a line of 17 MiB");
    assert_eq!(answer["error"]["code"], -32_600, "{answer}");
    assert_eq!(answer.get("id"), Some(&null), "{answer}");
    session.tools_list_works(200, "a line of 17 MiB");

    // The answer to a last line sent just before the input closes still
    // goes out before the server ends.
    session.send(b"{");
    drop(session.input);
    let status = session.child.wait().unwrap();
    assert!(status.success(), "{status}");
    let rest: Vec<serde_json::Value> = session.answers.iter().collect();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["error"]["code"], -32_700, "{rest:?}");
}
