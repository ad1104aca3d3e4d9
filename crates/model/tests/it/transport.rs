//! Failures below HTTP: a server too slow for the timeout, a port nobody
//! listens on, and a success status with a body that is not JSON.

use std::time::{Duration, Instant};

use memdir_model::{Backend, ModelClient, ModelError};
use memdir_testkit::{Reply, ScriptedServer, dead_url};

use crate::support::{ANSWER, KEY, anthropic, anthropic_reply, config, openai, query};

#[test]
fn slow_reply_past_the_timeout_is_a_timeout() {
    let server_delay = Duration::from_secs(2);
    let server = ScriptedServer::start(vec![
        anthropic_reply(ANSWER, "end_turn").delay(server_delay),
    ]);
    let mut cfg = config(Backend::Anthropic, server.url(), Some(KEY));
    cfg.timeout = Duration::from_millis(300);
    let client = ModelClient::new(cfg).unwrap();

    let started = Instant::now();
    let err = client.side_query(&query()).unwrap_err();
    let elapsed = started.elapsed();

    assert!(
        matches!(&err, ModelError::Timeout { timeout, .. } if *timeout == Duration::from_millis(300)),
        "{err:?}"
    );
    assert!(
        elapsed < server_delay,
        "returned after {elapsed:?}, not before the server's delay"
    );
    assert!(err.to_string().contains("timed out after 300 ms"), "{err}");
    assert_eq!(server.requests().len(), 1, "a timeout is not retried");
}

#[test]
fn refused_connection_is_a_network_error() {
    let url = dead_url();
    let err = anthropic(&url).side_query(&query()).unwrap_err();
    let ModelError::Network { endpoint, .. } = &err else {
        panic!("expected Network, got {err:?}");
    };
    assert_eq!(endpoint, &format!("{url}/v1/messages"));
    assert!(std::error::Error::source(&err).is_some());

    let err = openai(&url).side_query(&query()).unwrap_err();
    assert!(matches!(err, ModelError::Network { .. }), "{err:?}");
}

#[test]
fn success_status_with_a_non_json_body_is_malformed() {
    let server = ScriptedServer::start(vec![Reply::text(200, "<html>gateway says hi</html>")]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("gateway says hi"), "{err}");
}

#[test]
fn invalid_config_is_rejected_by_the_client() {
    let check = |mutate: fn(&mut memdir_model::ModelConfig), setting: &str| {
        let mut cfg = config(Backend::Anthropic, "https://api.anthropic.com", Some(KEY));
        mutate(&mut cfg);
        let err = ModelClient::new(cfg).unwrap_err();
        assert!(
            matches!(&err, ModelError::InvalidConfig { setting: s, .. } if s == setting),
            "{err:?}"
        );
    };
    check(|c| c.model = String::new(), "model");
    check(|c| c.base_url = "api.anthropic.com".to_owned(), "base_url");
    check(|c| c.timeout = Duration::ZERO, "timeout");
    check(|c| c.api_key = Some("sk\nbad".to_owned()), "api_key");
}
