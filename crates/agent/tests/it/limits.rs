//! The bounds of a run, on each backend: the turn limit, the token
//! budget, cancellation before the first call and between tool calls, a
//! reply cut off at the token limit, and `pause_turn`.

use memdir_agent::{AgentConfig, Cancel, Message, Stop, ToolCallOutcome, Verdict};
use memdir_model::Backend;
use memdir_testkit::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::{BACKENDS, PROMPT, SYSTEM, agent, agent_with, ran, run, turn};

/// A turn that asks to read one more file.
fn reading(backend: Backend, n: usize) -> Reply {
    let id = format!("r{n}");
    turn(
        backend,
        None,
        &[(&id, "read", json!({"path": format!("{n}.md")}))],
        "tool_use",
        (10, 5),
    )
}

#[test]
fn a_sixth_turn_is_never_asked_for_at_max_turns_5() {
    for backend in BACKENDS {
        let server = ScriptedServer::start((1..=6).map(|n| reading(backend, n)).collect());
        let mut config = AgentConfig::new(SYSTEM);
        config.max_turns = 5;
        let (agent, log) = agent_with(
            backend,
            server.url(),
            Box::new(memdir_agent::AllowAll),
            config,
        );
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::TurnLimit),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(report.turns, 5);
        assert_eq!(server.requests().len(), 5, "{backend}: only 5 requests");
        // The last turn's call was answered all the same.
        assert_eq!(ran(&log).len(), 5);
        assert_eq!(report.tool_calls.last().unwrap().turn, 5);
        let last = report.messages.last().unwrap();
        assert_eq!(last.role, memdir_agent::Role::User, "ends with the results");
        assert_eq!(report.messages.len(), 11);
    }
}

#[test]
fn the_token_budget_stops_before_the_next_call() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            turn(
                backend,
                None,
                &[("r1", "read", json!({"path": "a.md"}))],
                "tool_use",
                (80, 30),
            ),
            reading(backend, 2),
        ]);
        let mut config = AgentConfig::new(SYSTEM);
        config.token_budget = Some(100);
        let (agent, log) = agent_with(
            backend,
            server.url(),
            Box::new(memdir_agent::AllowAll),
            config,
        );
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::TokenBudget),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(server.requests().len(), 1, "{backend}");
        assert_eq!(report.usage.total(), 110);
        assert_eq!(ran(&log), ["read"], "the turn's call was still answered");
    }
}

#[test]
fn a_budget_not_yet_reached_lets_the_call_happen() {
    let backend = Backend::Anthropic;
    let server = ScriptedServer::start(vec![
        turn(
            backend,
            None,
            &[("r1", "read", json!({"path": "a.md"}))],
            "tool_use",
            (60, 39),
        ),
        turn(backend, Some("ok"), &[], "end_turn", (1, 1)),
    ]);
    let mut config = AgentConfig::new(SYSTEM);
    config.token_budget = Some(100);
    let (agent, _) = agent_with(
        backend,
        server.url(),
        Box::new(memdir_agent::AllowAll),
        config,
    );
    let report = run(&agent);
    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn cancelling_before_the_first_call_sends_nothing() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![reading(backend, 1)]);
        let (agent, log) = agent(backend, server.url());
        let cancel = Cancel::new();
        cancel.cancel();
        let report = agent.run(vec![Message::user(PROMPT)], &cancel);

        assert!(
            matches!(report.stop, Stop::Cancelled),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(report.turns, 0);
        assert!(server.requests().is_empty(), "{backend}: no request");
        assert!(ran(&log).is_empty());
        assert_eq!(report.messages, [Message::user(PROMPT)]);
    }
}

#[test]
fn cancelling_between_tool_calls_skips_the_rest_and_the_next_call() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            turn(
                backend,
                None,
                &[
                    ("r1", "read", json!({"path": "a.md"})),
                    ("l1", "list", json!({"dir": "."})),
                ],
                "tool_use",
                (10, 5),
            ),
            reading(backend, 2),
        ]);
        let cancel = Cancel::new();
        // The permission check raises the flag as it allows the first call,
        // as another thread might at that moment.
        let flag = cancel.clone();
        let check = move |_tool: &str, _input: &Value| {
            flag.cancel();
            Verdict::Allow
        };
        let (agent, log) = agent_with(
            backend,
            server.url(),
            Box::new(check),
            AgentConfig::new(SYSTEM),
        );
        let report = agent.run(vec![Message::user(PROMPT)], &cancel);

        assert!(
            matches!(report.stop, Stop::Cancelled),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(server.requests().len(), 1, "{backend}");
        assert_eq!(ran(&log), ["read"]);
        let outcomes: Vec<&ToolCallOutcome> =
            report.tool_calls.iter().map(|c| &c.outcome).collect();
        assert_eq!(
            outcomes,
            [
                &ToolCallOutcome::Ran { is_error: false },
                &ToolCallOutcome::Cancelled
            ]
        );
        // Every call still has its result, so the conversation can go on.
        assert_eq!(report.messages.len(), 3);
    }
}

#[test]
fn a_reply_cut_off_at_max_tokens_runs_no_tool() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![turn(
            backend,
            Some("Let me"),
            &[("r1", "read", json!({"path": "a.md"}))],
            "max_tokens",
            (10, 64),
        )]);
        let (agent, log) = agent(backend, server.url());
        let report = run(&agent);
        assert!(
            matches!(report.stop, Stop::MaxTokens),
            "{backend}: {:?}",
            report.stop
        );
        assert!(ran(&log).is_empty());
        assert_eq!(server.requests().len(), 1);
    }
}

#[test]
fn pause_turn_calls_again_with_the_paused_reply() {
    let backend = Backend::Anthropic;
    let server = ScriptedServer::start(vec![
        turn(backend, Some("Searching…"), &[], "pause_turn", (10, 5)),
        turn(backend, Some("Found it."), &[], "end_turn", (20, 5)),
    ]);
    let (agent, _) = agent(backend, server.url());
    let report = run(&agent);

    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert_eq!(report.turns, 2);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].json()["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": PROMPT}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Searching…"}]},
        ])
    );
    assert_eq!(report.final_text(), "Found it.");
}
