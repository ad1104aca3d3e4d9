//! A whole conversation on each backend, with the exact request bodies the
//! server received: turn 1 calls two tools, turn 2 one, turn 3 ends.

use memdir_agent::{Stop, ToolCallOutcome, Usage};
use memdir_model::Backend;
use memdir_testkit::ScriptedServer;
use serde_json::json;

use crate::support::{PROMPT, SYSTEM, agent, ran, run, turn, wire_tools};

/// The three scripted turns of the conversation.
fn script(backend: Backend) -> ScriptedServer {
    ScriptedServer::start(vec![
        turn(
            backend,
            Some("Reading first."),
            &[
                ("call_1", "read", json!({"path": "MEMORY.md"})),
                ("call_2", "list", json!({"dir": "."})),
            ],
            "tool_use",
            (100, 20),
        ),
        turn(
            backend,
            None,
            &[("call_3", "read", json!({"path": "user_role.md"}))],
            "tool_use",
            (150, 10),
        ),
        turn(
            backend,
            Some("Nothing new to save."),
            &[],
            "end_turn",
            (170, 6),
        ),
    ])
}

#[test]
fn anthropic_three_turns_on_the_wire() {
    let server = script(Backend::Anthropic);
    let (agent, log) = agent(Backend::Anthropic, server.url());
    let report = run(&agent);

    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert_eq!(report.turns, 3);
    assert_eq!(ran(&log), ["read", "list", "read"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.target, "/v1/messages");
    }

    let user = json!({"role": "user", "content": [{"type": "text", "text": PROMPT}]});
    let first_reply = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Reading first."},
        {"type": "tool_use", "id": "call_1", "name": "read", "input": {"path": "MEMORY.md"}},
        {"type": "tool_use", "id": "call_2", "name": "list", "input": {"dir": "."}},
    ]});
    let first_results = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "read MEMORY.md: ok",
         "is_error": false},
        {"type": "tool_result", "tool_use_id": "call_2", "content": "list .: ok",
         "is_error": false},
    ]});
    let second_reply = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "call_3", "name": "read", "input": {"path": "user_role.md"}},
    ]});
    let second_results = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_3", "content": "read user_role.md: ok",
         "is_error": false},
    ]});
    let body = |messages| {
        json!({
            "model": "claude-sonnet-4-6",
            "max_tokens": 4096,
            "system": SYSTEM,
            "messages": messages,
            "tools": wire_tools(Backend::Anthropic),
        })
    };
    assert_eq!(requests[0].json(), body(json!([user])));
    assert_eq!(
        requests[1].json(),
        body(json!([user, first_reply, first_results]))
    );
    assert_eq!(
        requests[2].json(),
        body(json!([
            user,
            first_reply,
            first_results,
            second_reply,
            second_results
        ]))
    );

    check_report(&report);
}

#[test]
fn openai_three_turns_on_the_wire() {
    let server = script(Backend::OpenAiCompatible);
    let (agent, log) = agent(Backend::OpenAiCompatible, server.url());
    let report = run(&agent);

    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert_eq!(report.turns, 3);
    assert_eq!(ran(&log), ["read", "list", "read"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.target, "/v1/chat/completions");
    }

    let system = json!({"role": "system", "content": SYSTEM});
    let user = json!({"role": "user", "content": PROMPT});
    let first_reply = json!({"role": "assistant", "content": "Reading first.", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "read", "arguments": "{\"path\":\"MEMORY.md\"}"}},
        {"id": "call_2", "type": "function",
         "function": {"name": "list", "arguments": "{\"dir\":\".\"}"}},
    ]});
    let first_results = [
        json!({"role": "tool", "tool_call_id": "call_1", "content": "read MEMORY.md: ok"}),
        json!({"role": "tool", "tool_call_id": "call_2", "content": "list .: ok"}),
    ];
    let second_reply = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_3", "type": "function",
         "function": {"name": "read", "arguments": "{\"path\":\"user_role.md\"}"}},
    ]});
    let second_result =
        json!({"role": "tool", "tool_call_id": "call_3", "content": "read user_role.md: ok"});
    let body = |messages| {
        json!({
            "model": "local-model",
            "max_tokens": 4096,
            "messages": messages,
            "tools": wire_tools(Backend::OpenAiCompatible),
        })
    };
    assert_eq!(requests[0].json(), body(json!([system, user])));
    assert_eq!(
        requests[1].json(),
        body(json!([
            system,
            user,
            first_reply,
            first_results[0],
            first_results[1]
        ]))
    );
    assert_eq!(
        requests[2].json(),
        body(json!([
            system,
            user,
            first_reply,
            first_results[0],
            first_results[1],
            second_reply,
            second_result
        ]))
    );

    check_report(&report);
}

/// What both backends' reports say about the same conversation.
fn check_report(report: &memdir_agent::RunReport) {
    assert_eq!(
        report.usage,
        Usage {
            input_tokens: 420,
            output_tokens: 36
        }
    );
    let calls: Vec<(u32, &str, &str)> = report
        .tool_calls
        .iter()
        .map(|c| (c.turn, c.id.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            (1, "call_1", "read"),
            (1, "call_2", "list"),
            (2, "call_3", "read")
        ]
    );
    assert!(
        report
            .tool_calls
            .iter()
            .all(|c| c.outcome == ToolCallOutcome::Ran { is_error: false })
    );
    assert_eq!(report.tool_calls[1].input, json!({"dir": "."}));
    // The conversation: the prompt, then a reply and its results per tool
    // turn, then the final answer.
    assert_eq!(report.messages.len(), 6);
    assert_eq!(report.final_text(), "Nothing new to save.");
}
