//! 5xx and 429 against a scripted server: retried, honouring `Retry-After`.

use std::time::{Duration, Instant};

use memdir_teamsync::{Client, ErrorType};
use memdir_testkit::{Reply, ScriptedServer};

/// A JSON answer with `status`.
fn answer(status: u16, body: &str) -> Reply {
    Reply::text(status, body).header("Content-Type", "application/json")
}

fn client(url: &str, team: &std::path::Path) -> Client {
    Client::new(url, team)
        .with_token(Some("t".to_owned()))
        .with_repo(Some("acme/widgets".to_owned()))
        .with_timeout(Duration::from_secs(10))
        .with_backoff(Duration::from_millis(10), Duration::from_secs(5))
}

#[test]
fn retries_5xx_and_429_honouring_retry_after() {
    let data = r#"{"organizationId":"acme","repo":"acme/widgets","version":1,"lastModified":null,"checksum":"sha256:00","content":{"entries":{"a.md":"from the server\n"},"entryChecksums":{}}}"#;
    let server = ScriptedServer::start(vec![
        answer(503, r#"{"error":"unavailable"}"#),
        answer(429, r#"{"error":"slow down"}"#).header("Retry-After", "1"),
        answer(200, data),
    ]);
    let team = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = client(server.url(), team.path()).pull();
    assert!(r.success, "{r:?}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(
        std::fs::read_to_string(team.path().join("a.md")).unwrap(),
        "from the server\n"
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn gives_up_after_three_retries() {
    let busy = answer(500, r#"{"error":"internal"}"#);
    let server = ScriptedServer::start(vec![busy; 4]);
    let team = tempfile::tempdir().unwrap();
    let r = client(server.url(), team.path()).pull();
    assert!(!r.success);
    assert_eq!(r.error_type, Some(ErrorType::Network), "{r:?}");
    assert_eq!(server.requests().len(), 4, "one attempt and three retries");
}
