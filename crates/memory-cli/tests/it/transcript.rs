//! `memdir transcript show`: the reference agent's JSONL and message lists
//! read tolerantly (SPEC R12.7), as text and as the JSON of the CLI
//! contract; files that cannot be read are one line and exit 1.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::{command, memdir, root, stderr, stdout};

const FIXTURES: &str = "crates/transcript/tests/fixtures";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = memdir(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "{args:?}");
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn json_has_the_contract_shape_and_counts_tokens_once() {
    let json = json_of(&["transcript", "show", &fixture("session.jsonl"), "--json"]);
    let mut top = keys(&json);
    top.sort_unstable();
    assert_eq!(top, ["messages", "sessionId", "skipped", "tokens"]);
    assert_eq!(json["sessionId"], "7d1c2e4a-5b6f-4c3d-9e8f-0a1b2c3d4e5f");
    let messages = json["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7);
    let mut message_keys = keys(&messages[1]);
    message_keys.sort_unstable();
    assert_eq!(message_keys, ["role", "text", "toolUses", "uuid"]);
    // Three lines of one response: one message, its blocks in order.
    assert_eq!(
        messages[1],
        serde_json::json!({
            "uuid": "a-0002",
            "role": "assistant",
            "text": "I'll look at how the total is computed.",
            "toolUses": [{"id": "toolu_01Grep", "name": "Grep"}],
        })
    );
    // Its usage (on each of the three lines) counts once.
    assert_eq!(
        json["tokens"],
        serde_json::json!({
            "inputTokens": 18,
            "outputTokens": 271,
            "cacheCreationInputTokens": 6320,
            "cacheReadInputTokens": 43540,
        })
    );
    assert_eq!(
        json["skipped"],
        serde_json::json!([
            {"line": 1, "reason": "not_a_message"},
            {"line": 11, "reason": "not_a_message"},
        ])
    );
}

#[test]
fn broken_lines_are_listed_by_line_and_reason_and_the_rest_is_read() {
    let json = json_of(&["transcript", "show", &fixture("broken.jsonl"), "--json"]);
    let skipped: Vec<(u64, &str)> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    for expected in [
        (2, "not_json"),
        (3, "not_an_object"),
        (4, "not_an_object"),
        (5, "invalid_utf8"),
        (8, "unknown_type"),
        (9, "no_type"),
        (10, "no_message"),
        (11, "bad_content"),
        (15, "duplicate_line"),
        (16, "not_json"),
    ] {
        assert!(skipped.contains(&expected), "{expected:?} in {skipped:?}");
    }
    // Blank lines (6 and 7) are not diagnostics.
    assert!(
        !skipped.iter().any(|(l, _)| *l == 6 || *l == 7),
        "{skipped:?}"
    );
    let texts: Vec<&str> = json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "Rename the flag.",
            "uuid is a number here",
            "Done.",
            "Renamed.",
            "CRLF line"
        ]
    );
}

#[test]
fn text_is_one_line_per_message_then_what_was_skipped_then_tokens() {
    let out = memdir(["transcript", "show", &fixture("session.jsonl")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "session 7d1c2e4a-5b6f-4c3d-9e8f-0a1b2c3d4e5f: 7 messages (7 the model still sees)"
    );
    assert_eq!(
        lines[2],
        "     3  assistant  a-0002    I'll look at how the total is computed. [Grep]"
    );
    // A tool result is shown with the name of the tool that produced it.
    assert!(
        lines[6].contains("[error of Bash: error: test cart::rounding failed]"),
        "{text}"
    );
    assert!(
        text.contains("not kept (2):\n  line 1: file-history-snapshot event"),
        "{text}"
    );
    assert_eq!(
        lines.last().copied(),
        Some("tokens: 18 input, 271 output, 6,320 cache creation, 43,540 cache read")
    );
}

#[test]
fn text_marks_compactions_and_sidechains() {
    let out = memdir(["transcript", "show", &fixture("compaction.jsonl")]);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "session 7d1c2e4a-5b6f-4c3d-9e8f-0a1b2c3d4e5f: 7 messages (3 the model still sees)\n"
        ),
        "{text}"
    );
    let boundary = text
        .find("     5  -- compacted (auto, 167,012 tokens before)")
        .expect("the boundary");
    let summary = text
        .find("(compact summary) This session")
        .expect("the summary");
    assert!(boundary < summary, "{text}");

    let out = memdir(["transcript", "show", &fixture("sidechain.jsonl")]);
    let text = stdout(&out);
    assert_eq!(text.matches("(sidechain)").count(), 4, "{text}");
    assert!(text.contains("(4 the model still sees)"), "{text}");
}

#[test]
fn a_message_list_is_read_too() {
    let json = json_of(&[
        "transcript",
        "show",
        &fixture("messages-api.json"),
        "--json",
    ]);
    assert_eq!(json["sessionId"], serde_json::Value::Null);
    assert_eq!(json["messages"].as_array().unwrap().len(), 4);
    assert_eq!(json["messages"][0]["uuid"], serde_json::Value::Null);
    assert_eq!(json["messages"][1]["toolUses"][0]["name"], "Read");
    assert_eq!(
        json["skipped"],
        serde_json::json!([
            {"line": 5, "reason": "unknown_role"},
            {"line": 6, "reason": "not_an_object"},
            {"line": 7, "reason": "bad_content"},
        ])
    );
}

#[test]
fn a_huge_tool_result_is_cut_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.jsonl");
    let big = "x".repeat(5 * 1024 * 1024);
    let line = serde_json::json!({"type": "user", "uuid": "u1", "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]}});
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let json = json_of(&["transcript", "show", file.to_str().unwrap(), "--json"]);
    assert_eq!(
        json["skipped"],
        serde_json::json!([{"line": 1, "reason": "text_capped"}])
    );
    let out = memdir(["transcript", "show", file.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("line 1: kept a text cut from 5242880 to 65536 bytes"),
        "{}",
        stdout(&out)
    );
    assert!(out.stdout.len() < 4096, "the preview is one short line");
}

/// Runs memdir and checks the exit status and that stderr is one line
/// containing `needle`, within ten seconds (a FIFO must not be waited on).
fn check_error(args: &[&str], status: i32, needle: &str) {
    let mut child = command(&root(), &[], args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run memdir");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("memdir {args:?} still running after 10 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(status), "{args:?}: stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(err.starts_with("memdir: "), "{args:?}: {err:?}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(stdout(&out), "", "{args:?}");
}

#[test]
fn files_that_cannot_be_read_are_one_line_and_exit_1() {
    check_error(
        &["transcript", "show", "no/such.jsonl"],
        1,
        "cannot read no/such.jsonl: No such file",
    );
    check_error(
        &["transcript", "show", FIXTURES, "--json"],
        1,
        "it is a folder, not a regular file",
    );
    #[cfg(unix)]
    {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("session.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        check_error(
            &["transcript", "show", fifo.to_str().unwrap()],
            1,
            "it is a FIFO, not a regular file",
        );
    }
}

#[test]
fn usage_errors_and_help() {
    check_error(&["transcript", "show"], 2, "<FILE>");
    check_error(&["transcript", "frob"], 2, "unrecognized subcommand 'frob'");
    let out = memdir(["transcript", "show", "--help"]);
    let help = stdout(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        help.contains("Example:\n  memdir transcript show "),
        "{help}"
    );
    assert!(help.contains("skipped: [{line, reason}]"), "{help}");
}
