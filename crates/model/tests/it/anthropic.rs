//! The Anthropic Messages backend: the request on the wire, reply parsing,
//! error bodies and the retry rules.

use std::time::Duration;

use memdir_model::{Backend, ModelClient, ModelError};
use memdir_testkit::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::{
    ANSWER, KEY, anthropic, anthropic_error, anthropic_reply, config, query, selection_schema,
};

#[test]
fn success_sends_the_messages_wire_format() {
    let server = ScriptedServer::start(vec![anthropic_reply(ANSWER, "end_turn")]);
    let answer = anthropic(server.url()).side_query(&query()).unwrap();
    assert_eq!(answer, json!({"selected_memories": ["testing.md"]}));

    let request = server.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.json(),
        json!({
            "model": "claude-sonnet-4-6",
            "max_tokens": 256,
            "system": "Select the memories useful for the request.",
            "messages": [{
                "role": "user",
                "content": "Request: fix the flaky test\n- testing.md: how tests run",
            }],
            "output_config": {"format": {"type": "json_schema", "schema": selection_schema()}},
        })
    );
}

#[test]
fn trailing_slash_in_base_url_is_ignored() {
    let server = ScriptedServer::start(vec![anthropic_reply(ANSWER, "end_turn")]);
    let url = format!("{}/", server.url());
    anthropic(&url).side_query(&query()).unwrap();
    assert_eq!(server.only_request().target, "/v1/messages");
}

#[test]
fn reply_violating_the_schema_is_a_schema_mismatch() {
    let reply = r#"{"selected_memories": ["a.md", 7]}"#;
    let server = ScriptedServer::start(vec![anthropic_reply(reply, "end_turn")]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    let ModelError::SchemaMismatch {
        schema_name, path, ..
    } = &err
    else {
        panic!("expected SchemaMismatch, got {err:?}");
    };
    assert_eq!(schema_name, "memory_selection");
    assert_eq!(path, "$.selected_memories[1]");
    assert!(err.to_string().contains("$.selected_memories[1]"), "{err}");
}

#[test]
fn reply_text_that_is_not_json_is_malformed() {
    let server = ScriptedServer::start(vec![anthropic_reply(
        "I think testing.md is relevant.",
        "end_turn",
    )]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
}

#[test]
fn truncated_reply_is_malformed_and_says_so() {
    let server = ScriptedServer::start(vec![anthropic_reply(
        r#"{"selected_memories": ["test"#,
        "max_tokens",
    )]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("max_tokens"), "{err}");
}

#[test]
fn reply_without_content_is_malformed() {
    let server = ScriptedServer::start(vec![Reply::json(200, &json!({"type": "message"}))]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
}

#[test]
fn refusal_stop_reason_is_refused() {
    let server = ScriptedServer::start(vec![anthropic_reply("I can't help with that.", "refusal")]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    let ModelError::Refused { explanation } = &err else {
        panic!("expected Refused, got {err:?}");
    };
    assert_eq!(explanation.as_deref(), Some("I can't help with that."));
}

#[test]
fn invalid_request_is_http_with_type_and_message() {
    let server = ScriptedServer::start(vec![anthropic_error(
        400,
        "invalid_request_error",
        "max_tokens: must be at least 1",
    )]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    let ModelError::Http {
        status,
        error_type,
        message,
    } = &err
    else {
        panic!("expected Http, got {err:?}");
    };
    assert_eq!(*status, 400);
    assert_eq!(error_type.as_deref(), Some("invalid_request_error"));
    assert_eq!(message, "max_tokens: must be at least 1");
    assert_eq!(
        err.to_string(),
        "model endpoint answered http 400 invalid_request_error: max_tokens: must be at least 1"
    );
    assert_eq!(server.requests().len(), 1, "a 4xx is not retried");
}

#[test]
fn unauthorized_is_http_401() {
    let server = ScriptedServer::start(vec![anthropic_error(
        401,
        "authentication_error",
        "invalid x-api-key",
    )]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Http { status: 401, error_type: Some(t), .. } if t == "authentication_error"),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn rate_limit_with_short_retry_after_is_retried() {
    let server = ScriptedServer::start(vec![
        anthropic_error(429, "rate_limit_error", "slow down").header("retry-after", "1"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    let answer = anthropic(server.url()).side_query(&query()).unwrap();
    assert_eq!(answer, json!({"selected_memories": ["testing.md"]}));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn rate_limit_without_retry_after_is_not_retried() {
    let server = ScriptedServer::start(vec![
        anthropic_error(429, "rate_limit_error", "spend limit reached"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::RateLimited { retry_after: None }),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn rate_limit_with_long_retry_after_is_not_retried() {
    let server = ScriptedServer::start(vec![
        anthropic_error(429, "rate_limit_error", "slow down").header("retry-after", "60"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::RateLimited { retry_after: Some(d) } if d == Duration::from_secs(60)),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn rate_limit_with_a_retry_after_date_is_retried() {
    // A date already past asks for no wait at all.
    let server = ScriptedServer::start(vec![
        anthropic_error(429, "rate_limit_error", "slow down")
            .header("retry-after", "Thu, 01 Jan 2015 00:00:00 GMT"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    anthropic(server.url()).side_query(&query()).unwrap();
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn server_error_with_a_long_retry_after_is_not_retried() {
    let server = ScriptedServer::start(vec![
        anthropic_error(529, "overloaded_error", "Overloaded").header("retry-after", "60"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(matches!(err, ModelError::Overloaded), "{err:?}");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn overloaded_error_type_under_another_status_is_retried() {
    let server = ScriptedServer::start(vec![
        anthropic_error(400, "overloaded_error", "Overloaded"),
        anthropic_error(400, "overloaded_error", "Overloaded"),
    ]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(matches!(err, ModelError::Overloaded), "{err:?}");
    assert_eq!(server.requests().len(), 2, "one attempt and one retry");
}

#[test]
fn overloaded_after_retries() {
    let overloaded = anthropic_error(529, "overloaded_error", "Overloaded");
    let server = ScriptedServer::start(vec![overloaded.clone(), overloaded.clone(), overloaded]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(matches!(err, ModelError::Overloaded), "{err:?}");
    assert_eq!(server.requests().len(), 2, "one attempt and one retry");
}

#[test]
fn retries_follow_max_retries() {
    let overloaded = anthropic_error(529, "overloaded_error", "Overloaded");
    let server = ScriptedServer::start(vec![overloaded.clone(), overloaded.clone(), overloaded]);
    let mut cfg = config(Backend::Anthropic, server.url(), Some(KEY));
    cfg.max_retries = 0;
    let err = ModelClient::new(cfg)
        .unwrap()
        .side_query(&query())
        .unwrap_err();
    assert!(matches!(err, ModelError::Overloaded), "{err:?}");
    assert_eq!(server.requests().len(), 1);

    let server = ScriptedServer::start(vec![
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    let mut cfg = config(Backend::Anthropic, server.url(), Some(KEY));
    cfg.max_retries = 2;
    ModelClient::new(cfg).unwrap().side_query(&query()).unwrap();
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn server_error_is_retried_then_succeeds() {
    let server = ScriptedServer::start(vec![
        anthropic_error(500, "api_error", "Internal server error"),
        anthropic_reply(ANSWER, "end_turn"),
    ]);
    anthropic(server.url()).side_query(&query()).unwrap();
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn exhausted_retries_return_the_last_error() {
    let server = ScriptedServer::start(vec![
        anthropic_error(529, "overloaded_error", "Overloaded"),
        Reply::text(503, "upstream unavailable"),
    ]);
    let err = anthropic(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Http { status: 503, error_type: None, message } if message == "upstream unavailable"),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 2);
}
