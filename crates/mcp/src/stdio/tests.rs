//! The transport's decisions on each line, the bounded line reader, and
//! whole sessions over pipes.

use std::io::{BufRead, Write};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::json;

use super::*;

/// The verdict on `line` in words: `deliver <id>`, `ignore`, or
/// `refuse <code> <id>`.
fn verdict(line: &[u8]) -> String {
    match judge(line) {
        Verdict::Deliver(message) => {
            format!("deliver {}", serde_json::to_value(&*message).unwrap()["id"])
        }
        Verdict::Ignore => "ignore".to_owned(),
        Verdict::Refuse { id, error } => format!(
            "refuse {} {}",
            error.code.0,
            id.map_or(Value::Null, RequestId::into_json_value)
        ),
    }
}

fn check(line: &[u8], expected: &str) {
    assert_eq!(
        verdict(line),
        expected,
        "{:?}",
        String::from_utf8_lossy(line)
    );
}

#[test]
fn messages_go_to_rmcp_and_blank_lines_notifications_and_answers_to_nobody() {
    check(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        "deliver 1",
    );
    check(
        b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\r",
        r#"deliver "a""#,
    );
    check(b"", "ignore");
    check(b" \t\r", "ignore");
    check(
        br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":7}"#,
        "ignore",
    );
    // An error answer is rmcp's to drop; one rmcp cannot read is ignored.
    check(
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        "deliver null",
    );
    check(br#"{"id":3,"result":[1,2]}"#, "ignore");
}

#[test]
fn a_line_that_is_not_json_text_is_a_parse_error() {
    check(b"{", "refuse -32700 null");
    check(b"\xff\xfe{}", "refuse -32700 null");
    // Nesting deeper than the parser goes is refused, not a stack overflow.
    check("[".repeat(100_000).as_bytes(), "refuse -32700 null");
    check(
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"} {}"#,
        "refuse -32700 null",
    );
    // The id of a request that is JSON but for its bytes is answered.
    check(
        b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":{\"cursor\":\"\xc3\x28\"}}",
        "refuse -32700 8",
    );
}

#[test]
fn json_that_is_no_request_is_an_invalid_request() {
    check(br#""\ud800""#, "refuse -32600 null");
    check(
        br#"{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}"#,
        "refuse -32600 null",
    );
    check(
        br#"{"jsonrpc":"2.0","id":"s","method":"tools/list","params":{"cursor":"\udc00"}}"#,
        r#"refuse -32600 "s""#,
    );
    check(
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":-1e999}}"#,
        "refuse -32600 4",
    );
    check(b"[]", "refuse -32600 null");
    check(b"[5]", "refuse -32600 null");
    check(b"42", "refuse -32600 null");
    check(
        br#"{"jsonrpc":"1.0","id":6,"method":"tools/list"}"#,
        "refuse -32600 6",
    );
    check(br#"{"id":7,"method":"tools/list"}"#, "refuse -32600 7");
    check(
        br#"{"jsonrpc":"2.0","id":9.5,"method":"tools/list"}"#,
        "refuse -32600 null",
    );
    check(
        br#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
        "refuse -32600 null",
    );
    check(
        br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
        "refuse -32600 null",
    );
    check(
        br#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#,
        "refuse -32600 null",
    );
    check(br#"{"jsonrpc":"2.0","id":3}"#, "refuse -32600 3");
}

#[test]
fn error_answers_carry_a_null_id() {
    let line = error_line(None, &ErrorData::parse_error("parse error: x", None));
    assert_eq!(line.last(), Some(&b'\n'));
    let answer: Value = serde_json::from_slice(&line).unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32_700, "message": "parse error: x"}})
    );
    let id = RequestId::String("r".into());
    let answer: Value = serde_json::from_slice(&error_line(
        Some(id),
        &ErrorData::invalid_request("y", None),
    ))
    .unwrap();
    assert_eq!(answer["id"], "r");
}

/// Reads every line of `input` with the limit `max`, skipping the long ones.
fn lines(input: &[u8], max: usize) -> Vec<Result<String, Line>> {
    let mut reader = std::io::BufReader::with_capacity(4, input);
    let mut line = Vec::new();
    let mut out = Vec::new();
    loop {
        match read_line(&mut reader, &mut line, max).unwrap() {
            Line::Read => out.push(Ok(String::from_utf8(line.clone()).unwrap())),
            Line::TooLong => {
                assert!(line.is_empty());
                out.push(Err(Line::TooLong));
                skip_line(&mut reader).unwrap();
            }
            Line::End => return out,
        }
    }
}

#[test]
fn a_line_over_the_limit_is_reported_and_skipped_and_the_next_is_whole() {
    assert_eq!(
        lines(b"0123456789\n0123456789a\nok\n\nlast", 10),
        [
            Ok("0123456789".to_owned()),
            Err(Line::TooLong),
            Ok("ok".to_owned()),
            Ok(String::new()),
            Ok("last".to_owned()),
        ]
    );
    assert_eq!(lines(b"01234567890123456789", 10), [Err(Line::TooLong)]);
}

/// An input that never ends and has no newline, counting what is read.
struct Endless {
    given: usize,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        buf.fill(b'a');
        self.given += buf.len();
        Ok(buf.len())
    }
}

#[test]
fn a_line_without_end_is_refused_once_past_the_limit() {
    let mut input = BufReader::with_capacity(1024, Endless { given: 0 });
    let mut line = Vec::new();
    assert_eq!(
        read_line(&mut input, &mut line, 10_000).unwrap(),
        Line::TooLong
    );
    assert!(line.is_empty());
    assert!(
        input.get_ref().given <= 10_000 + 1024,
        "{}",
        input.get_ref().given
    );
}

/// `memdir mcp`'s session over pipes: each answer is awaited with a timeout.
struct Session {
    input: Option<std::io::PipeWriter>,
    answers: Receiver<Value>,
    served: std::thread::JoinHandle<Result<(), crate::McpError>>,
}

impl Session {
    fn start(project: memdir_ops::Project) -> Session {
        let (server_input, input) = std::io::pipe().unwrap();
        let (output, server_output) = std::io::pipe().unwrap();
        let served = std::thread::spawn(move || crate::serve(project, server_input, server_output));
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(output).lines() {
                let line = line.unwrap();
                send.send(serde_json::from_str(&line).unwrap()).unwrap();
            }
        });
        let mut session = Session {
            input: Some(input),
            answers,
            served,
        };
        session.send(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
        assert_eq!(session.next()["id"], 0);
        session.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        session
    }

    fn send(&mut self, line: &[u8]) {
        let input = self.input.as_mut().unwrap();
        input.write_all(line).unwrap();
        input.write_all(b"\n").unwrap();
    }

    fn next(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer")
    }
}

fn project(dir: &std::path::Path) -> memdir_ops::Project {
    memdir_ops::Project::open(
        memdir_ops::Environment::new().with_home(dir.join("home")),
        &memdir_ops::ProjectOptions {
            dir: Some(dir.to_path_buf()),
            memory_dir: Some(dir.join("memory")),
            settings_file: None,
        },
    )
    .unwrap()
}

#[test]
fn a_session_answers_every_line_in_turn_and_what_is_queued_at_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let mut session = Session::start(project(tmp.path()));
    let mut huge = br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":""#.to_vec();
    huge.resize(crate::MAX_MESSAGE_BYTES + 1, b'a');
    huge.extend_from_slice(br#""}}"#);
    for (line, code) in [(&b"{"[..], -32_700), (&huge[..], -32_600)] {
        session.send(line);
        let answer = session.next();
        assert_eq!(answer["error"]["code"], code, "{answer}");
        assert_eq!(answer.get("id"), Some(&Value::Null), "{answer}");
        session.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        let answer = session.next();
        assert_eq!(answer["id"], 1, "{answer}");
        assert_eq!(answer["result"]["tools"].as_array().map(Vec::len), Some(5));
    }
    // An error answer to the very last line still goes out, once.
    session.send(b"not json");
    let Session {
        input,
        answers,
        served,
    } = session;
    drop(input);
    served.join().unwrap().unwrap();
    let rest: Vec<Value> = answers.iter().collect();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["error"]["code"], -32_700, "{rest:?}");
}

#[test]
fn a_line_of_exactly_the_limit_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let mut session = Session::start(project(tmp.path()));
    let mut line = br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":""#.to_vec();
    let tail = br#""}}}"#;
    line.resize(crate::MAX_MESSAGE_BYTES - tail.len(), b'a');
    line.extend_from_slice(tail);
    assert_eq!(line.len(), crate::MAX_MESSAGE_BYTES);
    session.send(&line);
    let answer = session.next();
    assert_eq!(answer["id"], 3, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
}
