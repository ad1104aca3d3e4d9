//! Calls that do not run, on each backend: a denied tool, an unknown tool,
//! input that is unreadable, not an object or incomplete. Each is answered
//! with an error the model reads in the next request, and the run goes on.
//! Also a model that refuses.

use memdir_agent::{AgentConfig, Stop, ToolCallOutcome};
use memdir_model::Backend;
use memdir_testkit::ScriptedServer;
use serde_json::{Value, json};

use crate::support::{
    BACKENDS, SYSTEM, agent, agent_with, last_results, no_writes, openai_turn, ran, result, run,
    turn,
};

/// A server that answers with `first` and then ends the conversation.
fn two_turns(backend: Backend, first: memdir_testkit::Reply) -> ScriptedServer {
    ScriptedServer::start(vec![
        first,
        turn(backend, Some("Done."), &[], "end_turn", (10, 2)),
    ])
}

#[test]
fn a_denied_call_does_not_run_and_its_reason_reaches_the_model() {
    for backend in BACKENDS {
        let server = two_turns(
            backend,
            turn(
                backend,
                None,
                &[
                    ("w1", "write", json!({"path": "/etc/passwd"})),
                    ("r1", "read", json!({"path": "a.md"})),
                ],
                "tool_use",
                (10, 5),
            ),
        );
        let (agent, log) = agent_with(backend, server.url(), no_writes(), AgentConfig::new(SYSTEM));
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::EndTurn),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(ran(&log), ["read"], "{backend}: the denied write never ran");
        let reason = "writing \"/etc/passwd\" is refused: only the memory folder is writable";
        assert_eq!(
            report.tool_calls[0].outcome,
            ToolCallOutcome::Denied {
                reason: reason.to_owned()
            }
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{backend}");
        assert_eq!(
            last_results(backend, &requests[1]),
            [
                result("w1", reason, true),
                result("r1", "read a.md: ok", false)
            ],
            "{backend}"
        );
    }
}

#[test]
fn an_unknown_tool_is_answered_with_its_name() {
    for backend in BACKENDS {
        let server = two_turns(
            backend,
            turn(
                backend,
                None,
                &[("x1", "delete_everything", json!({"path": "/"}))],
                "tool_use",
                (10, 5),
            ),
        );
        let (agent, log) = agent(backend, server.url());
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::EndTurn),
            "{backend}: {:?}",
            report.stop
        );
        assert!(ran(&log).is_empty());
        assert_eq!(report.tool_calls[0].outcome, ToolCallOutcome::Unknown);
        assert_eq!(report.tool_calls[0].name, "delete_everything");
        assert_eq!(
            last_results(backend, &server.requests()[1]),
            [result("x1", "no tool named `delete_everything`", true)],
            "{backend}"
        );
    }
}

#[test]
fn openai_arguments_that_are_not_json_are_an_error_result() {
    let backend = Backend::OpenAiCompatible;
    let raw = "{\"path\": \"a.md\""; // the closing brace is missing
    let server = two_turns(
        backend,
        openai_turn(
            None,
            &[json!({"id": "c1", "type": "function",
                     "function": {"name": "read", "arguments": raw}})],
            "tool_use",
            (10, 5),
        ),
    );
    let (agent, log) = agent(backend, server.url());
    let report = run(&agent);

    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert!(ran(&log).is_empty());
    let ToolCallOutcome::BadInput { reason } = &report.tool_calls[0].outcome else {
        panic!("{:?}", report.tool_calls[0]);
    };
    assert!(
        reason.starts_with("the tool input could not be read: the arguments are not valid json"),
        "{reason}"
    );
    let requests = server.requests();
    let [(id, content, is_error)] = last_results(backend, &requests[1]).try_into().unwrap();
    assert_eq!(
        (id.as_str(), content.as_str(), is_error),
        ("c1", reason.as_str(), true)
    );
    // The call goes back exactly as the server sent it.
    let body = requests[1].json();
    let call = &body["messages"][2]["tool_calls"][0];
    assert_eq!(call["function"]["arguments"], raw);
}

#[test]
fn input_that_is_not_an_object_or_lacks_a_field_is_an_error_result() {
    for backend in BACKENDS {
        let server = two_turns(
            backend,
            turn(
                backend,
                None,
                &[
                    ("s1", "read", json!("a.md")),
                    ("s2", "read", json!({"file": "a.md"})),
                    ("s3", "list", Value::Null),
                ],
                "tool_use",
                (10, 5),
            ),
        );
        let (agent, log) = agent(backend, server.url());
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::EndTurn),
            "{backend}: {:?}",
            report.stop
        );
        assert!(ran(&log).is_empty(), "{backend}");
        let not_object = "the tool input must be a json object, not a string";
        let missing = "the tool input lacks the required field `path`";
        let null = "the tool input must be a json object, not null";
        let outcomes: Vec<&ToolCallOutcome> =
            report.tool_calls.iter().map(|c| &c.outcome).collect();
        assert_eq!(
            outcomes,
            [not_object, missing, null]
                .map(|r| ToolCallOutcome::BadInput {
                    reason: r.to_owned()
                })
                .iter()
                .collect::<Vec<_>>(),
            "{backend}"
        );
        assert_eq!(
            last_results(backend, &server.requests()[1]),
            [
                result("s1", not_object, true),
                result("s2", missing, true),
                result("s3", null, true),
            ],
            "{backend}"
        );
    }
}

#[test]
fn a_refusal_ends_the_run() {
    let server = ScriptedServer::start(vec![turn(
        Backend::Anthropic,
        Some("I can't help with that."),
        &[],
        "refusal",
        (10, 5),
    )]);
    let (agent, _) = agent(Backend::Anthropic, server.url());
    let report = run(&agent);
    assert!(matches!(report.stop, Stop::Refusal), "{:?}", report.stop);
    assert_eq!(report.final_text(), "I can't help with that.");
    assert_eq!(server.requests().len(), 1);
}
