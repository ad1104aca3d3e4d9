//! Unit tests of the reader through its public functions.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

use serde_json::json;

use crate::{
    Block, MAX_TEXT_BYTES, Role, SkipReason, Transcript, Usage, parse, parse_jsonl, parse_messages,
};

/// One JSONL line from a JSON value.
fn line(value: &serde_json::Value) -> String {
    format!("{value}\n")
}

fn jsonl(values: &[serde_json::Value]) -> Transcript {
    let text: String = values.iter().map(line).collect();
    parse_jsonl(text.as_bytes())
}

fn assistant(uuid: &str, id: &str, content: &serde_json::Value, out: u64) -> serde_json::Value {
    json!({"type": "assistant", "uuid": uuid, "sessionId": "s",
        "message": {"id": id, "role": "assistant", "content": content,
            "usage": {"input_tokens": 5, "output_tokens": out, "cache_read_input_tokens": 100}}})
}

fn user(uuid: &str, content: &serde_json::Value) -> serde_json::Value {
    json!({"type": "user", "uuid": uuid, "sessionId": "s",
        "message": {"role": "user", "content": content}})
}

fn codes(t: &Transcript) -> Vec<(usize, &'static str)> {
    t.skipped
        .iter()
        .map(|s| (s.line, s.reason.code()))
        .collect()
}

#[test]
fn lines_of_one_response_merge_even_when_apart_and_count_once() {
    let t = jsonl(&[
        user("u1", &json!("go")),
        assistant(
            "a1",
            "msg_1",
            &json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
            40,
        ),
        user(
            "u2",
            &json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        ),
        // The same response again, with a smaller (earlier) output count:
        // the maximum wins, whatever the order.
        assistant(
            "a2",
            "msg_1",
            &json!([{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]),
            3,
        ),
        assistant("a3", "msg_2", &json!("done"), 7),
    ]);
    assert_eq!(t.messages.len(), 4, "{t:?}");
    let first = &t.messages[1];
    assert_eq!(first.lines, [2, 4]);
    assert_eq!(first.uuids, ["a1", "a2"]);
    let names: Vec<&str> = first.tool_uses().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["Read", "Bash"]);
    assert_eq!(first.usage.unwrap().output_tokens, 40);
    assert_eq!(
        t.usage,
        Usage {
            input_tokens: 10,
            output_tokens: 47,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 200,
        }
    );
    // A cursor on either line of the merged message is past all of it.
    assert_eq!(t.messages_since(Some("a2")).len(), 2);
    assert_eq!(t.messages_since(Some("a1")).len(), 2);
}

#[test]
fn responses_without_an_id_count_each_line() {
    let no_id = |uuid: &str| {
        json!({"type": "assistant", "uuid": uuid,
            "message": {"role": "assistant", "content": "x", "usage": {"output_tokens": 2}}})
    };
    let t = jsonl(&[no_id("a"), no_id("b")]);
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.usage.output_tokens, 4);
}

#[test]
fn messages_since_a_cursor() {
    let t = jsonl(&[
        user("u1", &json!("a")),
        assistant("a1", "m1", &json!("b"), 1),
        user("u2", &json!("c")),
    ]);
    assert_eq!(t.messages_since(None).len(), 3);
    assert_eq!(t.messages_since(Some("u1")).len(), 2);
    assert_eq!(t.messages_since(Some("u2")).len(), 0);
    // A cursor the transcript does not know reconsiders everything.
    assert_eq!(t.messages_since(Some("gone")).len(), 3);
}

#[test]
fn compaction_splits_what_the_model_sees() {
    let t = jsonl(&[
        user("u1", &json!("old")),
        json!({"type": "system", "subtype": "compact_boundary", "uuid": "b1",
            "compactMetadata": {"trigger": "manual", "preTokens": 1234}}),
        json!({"type": "user", "uuid": "u2", "isCompactSummary": true,
            "message": {"role": "user", "content": "summary"}}),
        json!({"type": "user", "uuid": "s1", "isSidechain": true,
            "message": {"role": "user", "content": "subagent"}}),
        user("u3", &json!("new")),
    ]);
    assert_eq!(t.messages.len(), 4);
    let c = &t.compactions[0];
    assert_eq!((c.line, c.first_message), (2, 1));
    assert_eq!(
        (c.trigger.as_deref(), c.pre_tokens),
        (Some("manual"), Some(1234))
    );
    let since: Vec<_> = t.since_last_compaction().iter().map(|m| m.uuid()).collect();
    assert_eq!(since, [Some("u2"), Some("s1"), Some("u3")]);
    assert!(t.since_last_compaction()[0].is_compact_summary);
    let visible: Vec<_> = t.model_visible().map(|m| m.uuid()).collect();
    assert_eq!(visible, [Some("u2"), Some("u3")]);
    assert_eq!(t.model_visible_count(), 2);
    // The live stream's spelling of the metadata is read too.
    let t = jsonl(&[json!({"type": "system", "subtype": "compact_boundary",
        "compact_metadata": {"trigger": "auto", "pre_tokens": 9}})]);
    assert_eq!(t.compactions[0].pre_tokens, Some(9));
    assert!(t.since_last_compaction().is_empty());
}

#[test]
fn a_huge_tool_result_is_capped_and_said() {
    let big = "é".repeat(5 * 1024 * 1024 / 2 + 1);
    let t = jsonl(&[
        user(
            "u1",
            &json!([{"type": "tool_result", "tool_use_id": "t", "content": big}]),
        ),
        assistant(
            "a1",
            "m",
            &json!([{"type": "tool_use", "id": "t2", "name": "Write",
            "input": {"file_path": "x", "content": big}}]),
            1,
        ),
    ]);
    let result = t.messages[0].tool_results().next().unwrap();
    assert!(result.content.len() <= MAX_TEXT_BYTES);
    assert!(result.content.len() > MAX_TEXT_BYTES - 4);
    assert!(result.content.chars().all(|c| c == 'é'));
    let input = &t.messages[1].tool_uses().next().unwrap().input;
    assert!(input["content"].as_str().unwrap().len() <= MAX_TEXT_BYTES);
    assert_eq!(input["file_path"], "x");
    assert_eq!(codes(&t), [(1, "text_capped"), (2, "text_capped")]);
    let SkipReason::TextCapped { kept, original } = t.skipped[0].reason else {
        panic!("{:?}", t.skipped[0]);
    };
    assert_eq!((kept, original), (result.content.len(), big.len()));
    assert!(!t.skipped[0].reason.is_whole_line());
}

#[test]
fn each_broken_line_is_skipped_with_its_reason() {
    let check = |line: &[u8], code: &str| {
        let mut bytes = b"\n  \n".to_vec();
        bytes.extend_from_slice(line);
        let t = parse_jsonl(&bytes);
        assert_eq!(
            codes(&t),
            [(3, code)],
            "{:?}",
            String::from_utf8_lossy(line)
        );
        assert!(t.messages.is_empty());
        assert!(!t.skipped[0].to_string().is_empty());
    };
    check(
        br#"{"type":"user","message":{"role":"user","content":"ab"#,
        "not_json",
    );
    check(b"\"text\"", "not_an_object");
    check(b"[]", "not_an_object");
    check(b"null", "not_an_object");
    check(b"{\"type\":\"user\",\"message\":\"\xff\"}", "invalid_utf8");
    check(br#"{"message":{}}"#, "no_type");
    check(br#"{"type":7}"#, "no_type");
    check(br#"{"type":"hologram"}"#, "unknown_type");
    check(br#"{"type":"progress","data":{}}"#, "not_a_message");
    check(
        br#"{"type":"system","subtype":"api_error"}"#,
        "not_a_message",
    );
    check(br#"{"type":"user","message":"hello"}"#, "no_message");
    check(
        br#"{"type":"assistant","message":{"content":{"text":"x"}}}"#,
        "bad_content",
    );
    check(br#"{"type":"assistant","message":{}}"#, "bad_content");
}

#[test]
fn mistyped_fields_are_left_out_of_a_kept_line() {
    let t = parse_jsonl(
        br#"{"type":"user","uuid":"u","parentUuid":3,"timestamp":false,"isCompactSummary":"yes","sessionId":[],"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":{"odd":1}},{"type":"text","text":"kept"}]}}"#,
    );
    let m = &t.messages[0];
    assert_eq!(
        (m.parent_uuid.as_deref(), m.timestamp.as_deref()),
        (None, None)
    );
    assert!(!m.is_compact_summary);
    assert_eq!(m.text(), "kept");
    assert_eq!(t.session_id, None);
    let reasons: Vec<String> = t.skipped.iter().map(|s| s.reason.to_string()).collect();
    assert_eq!(
        reasons,
        [
            "kept without content block 0: it is malformed",
            "kept without \"sessionId\": it has the wrong type",
            "kept without \"parentUuid\": it has the wrong type",
            "kept without \"timestamp\": it has the wrong type",
            "kept without \"isCompactSummary\": it has the wrong type",
        ]
    );
}

#[test]
fn a_repeated_line_is_skipped_once_read() {
    let a = assistant("a1", "m1", &json!("x"), 5);
    let t = jsonl(&[a.clone(), a]);
    assert_eq!(t.messages.len(), 1);
    assert_eq!(t.usage.output_tokens, 5);
    assert_eq!(codes(&t), [(2, "duplicate_line")]);
}

#[test]
fn blank_lines_crlf_and_a_byte_order_mark_are_not_diagnostics() {
    let text = format!(
        "\u{feff}{}\r\n\r\n \t \n{}",
        user("u1", &json!("a")),
        user("u2", &json!("b"))
    );
    let t = parse_jsonl(text.as_bytes());
    assert_eq!(codes(&t), []);
    let lines: Vec<usize> = t.messages.iter().map(crate::Message::line).collect();
    assert_eq!(lines, [1, 4]);
}

#[test]
fn text_joins_text_blocks_and_skips_the_rest() {
    let t = jsonl(&[assistant(
        "a",
        "m",
        &json!([{"type": "text", "text": "one"}, {"type": "thinking", "thinking": "hm"},
            {"type": "tool_use", "id": "t", "name": "Grep"}, {"type": "text", "text": "two"}]),
        1,
    )]);
    let m = &t.messages[0];
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.text(), "one\n\ntwo");
    assert_eq!(
        m.blocks[1],
        Block::Other {
            kind: "thinking".to_owned()
        }
    );
    assert_eq!(m.tool_uses().next().unwrap().input, serde_json::Value::Null);
}

#[test]
fn message_lists_in_both_shapes() {
    let list = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        {"role": "tool", "content": "?"},
        {"content": "no role"},
        7,
    ]);
    let t = parse_messages(&list);
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.messages[1].lines, [2]);
    assert_eq!(
        codes(&t),
        [
            (3, "unknown_role"),
            (4, "unknown_role"),
            (5, "not_an_object")
        ]
    );
    let wrapped = parse_messages(&json!({"system": "x", "messages": list}));
    assert_eq!(wrapped, t);
    for odd in [
        json!({"messages": "none"}),
        json!("text"),
        json!({"role": "user"}),
    ] {
        let t = parse_messages(&odd);
        assert_eq!(codes(&t), [(1, "not_a_message_list")], "{odd}");
        assert!(t.messages.is_empty());
    }
}

#[test]
fn parse_picks_the_format() {
    let list = br#" [{"role":"user","content":"hi"}] "#;
    assert_eq!(
        parse(list),
        parse_messages(&serde_json::from_slice(list).unwrap())
    );
    let object = br#"{"messages":[{"role":"user","content":"hi"}]}"#;
    assert_eq!(parse(object).messages.len(), 1);
    // A file that starts like a list but is cut short is read line by
    // line, and says so.
    let cut = br#"[{"role":"user","#;
    assert_eq!(codes(&parse(cut)), [(1, "not_json")]);
    let events = format!(
        "{}{}",
        line(&user("u1", &json!("a"))),
        line(&user("u2", &json!("b")))
    );
    assert_eq!(parse(events.as_bytes()).messages.len(), 2);
}

#[test]
fn a_line_skipped_for_its_content_does_not_claim_its_uuid() {
    let broken = json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": 5}});
    let t = jsonl(&[broken, user("u1", &json!("fixed"))]);
    assert_eq!(codes(&t), [(1, "bad_content")]);
    assert_eq!(t.messages[0].text(), "fixed");
}

#[test]
fn diagnostics_quote_at_most_a_little_of_a_hostile_line() {
    let long = "ü".repeat(100_000);
    let t = jsonl(&[
        json!({"type": long}),
        json!({"type": "system", "subtype": long}),
        user(&long, &json!("a")),
        user(&long, &json!("a")),
    ]);
    for s in &t.skipped {
        assert!(s.to_string().len() < 300, "{}", s.to_string().len());
    }
    assert_eq!(
        codes(&t),
        [
            (1, "unknown_type"),
            (2, "not_a_message"),
            (4, "duplicate_line")
        ]
    );
    let t = parse_messages(&json!([{"role": long, "content": "x"}]));
    assert!(t.skipped[0].to_string().len() < 300);
}
