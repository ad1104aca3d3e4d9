//! Model calls that fail or need a retry, on each backend: a 429 with a
//! short `retry-after` and a 529 are retried by the client and the run
//! goes on; a 429 without `retry-after` (a spend limit) and a server slower
//! than the timeout end the run with `Stop::Model` at once.

use std::time::{Duration, Instant};

use memdir_agent::{Agent, AgentConfig, AllowAll, ModelError, Stop};
use memdir_model::Backend;
use memdir_testkit::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::{BACKENDS, SYSTEM, agent, client, run, tools, turn};

fn error_body(backend: Backend, error_type: &str) -> serde_json::Value {
    match backend {
        Backend::Anthropic => json!({"type": "error",
            "error": {"type": error_type, "message": "try later"}, "request_id": "req_1"}),
        Backend::OpenAiCompatible => {
            json!({"error": {"type": error_type, "message": "try later"}})
        }
    }
}

#[test]
fn a_429_with_retry_after_is_retried_and_the_run_goes_on() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            Reply::json(429, &error_body(backend, "rate_limit_error")).header("retry-after", "1"),
            turn(backend, Some("ok"), &[], "end_turn", (5, 1)),
        ]);
        let (agent, _) = agent(backend, server.url());
        let started = Instant::now();
        let report = run(&agent);

        assert!(
            matches!(report.stop, Stop::EndTurn),
            "{backend}: {:?}",
            report.stop
        );
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "waited for retry-after"
        );
        assert_eq!(server.requests().len(), 2);
        assert_eq!(report.turns, 1, "a retried call is one turn");
        assert_eq!(report.final_text(), "ok");
    }
}

#[test]
fn a_529_is_retried_and_the_run_goes_on() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            Reply::json(529, &error_body(backend, "overloaded_error")),
            turn(backend, Some("ok"), &[], "end_turn", (5, 1)),
        ]);
        let (agent, _) = agent(backend, server.url());
        let report = run(&agent);
        assert!(
            matches!(report.stop, Stop::EndTurn),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(server.requests().len(), 2);
    }
}

#[test]
fn a_429_without_retry_after_stops_at_once() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            Reply::json(429, &error_body(backend, "rate_limit_error")),
            turn(backend, Some("never asked"), &[], "end_turn", (5, 1)),
        ]);
        let (agent, _) = agent(backend, server.url());
        let report = run(&agent);
        assert!(
            matches!(
                report.stop,
                Stop::Model(ModelError::RateLimited { retry_after: None })
            ),
            "{backend}: {:?}",
            report.stop
        );
        assert_eq!(
            server.requests().len(),
            1,
            "{backend}: a spend limit is not retried"
        );
        assert_eq!(report.turns, 1);
    }
}

#[test]
fn a_server_slower_than_the_timeout_stops_the_run() {
    for backend in BACKENDS {
        let server = ScriptedServer::start(vec![
            turn(backend, Some("late"), &[], "end_turn", (5, 1)).delay(Duration::from_secs(3)),
        ]);
        let model = client(backend, server.url(), Duration::from_millis(300));
        let log = crate::support::Log::default();
        let agent = Agent::new(
            Box::new(model),
            tools(&log),
            Box::new(AllowAll),
            AgentConfig::new(SYSTEM),
        )
        .unwrap();
        let started = Instant::now();
        let report = run(&agent);

        assert!(
            matches!(&report.stop, Stop::Model(ModelError::Timeout { timeout, .. })
                if *timeout == Duration::from_millis(300)),
            "{backend}: {:?}",
            report.stop
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "did not wait for the server"
        );
        assert_eq!(server.requests().len(), 1, "a timeout is not retried");
    }
}
