//! The API key never shows: not in `Debug` of the configuration or the
//! client, and not in any error, even when a server echoes it back.

use std::time::Duration;

use memdir_model::{Backend, ModelClient, ModelConfig, ModelError};
use memdir_testkit::{Reply, ScriptedServer, dead_url};
use serde_json::json;

use crate::support::{KEY, anthropic, anthropic_error, anthropic_reply, config, openai, query};

fn assert_hidden(text: &str) {
    assert!(!text.contains(KEY), "the key leaked into: {text}");
}

#[test]
fn debug_output_redacts_the_key() {
    let cfg = config(Backend::Anthropic, "https://api.anthropic.com", Some(KEY));
    let debug = format!("{cfg:?}");
    assert_hidden(&debug);
    assert!(debug.contains("[redacted]"), "{debug}");
    assert_hidden(&format!("{cfg:#?}"));
    assert_hidden(&format!("{:?}", ModelClient::new(cfg).unwrap()));

    let from_env = ModelConfig::from_lookup(|name| {
        (name == "OPENAI_API_KEY" || name == "MEMDIR_MODEL").then(|| KEY.to_owned())
    })
    .unwrap()
    .unwrap();
    assert_eq!(from_env.api_key.as_deref(), Some(KEY));
    // The model name happens to equal the key here, so only the key field
    // is checked: it must be redacted.
    assert!(format!("{from_env:?}").contains("api_key: Some(\"[redacted]\")"));
}

#[test]
fn no_error_shows_the_key() {
    let errors: Vec<ModelError> = [echoing_server_errors(), transport_errors(), config_errors()]
        .into_iter()
        .flatten()
        .collect();
    for error in &errors {
        assert_hidden(&error.to_string());
        assert_hidden(&format!("{error:?}"));
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            assert_hidden(&cause.to_string());
            source = cause.source();
        }
    }
    // The scenarios produced the variants they were meant to.
    let kinds: Vec<&str> = errors.iter().map(kind).collect();
    assert_eq!(
        kinds,
        [
            "http",
            "malformed",
            "refused",
            "schema",
            "http",
            "malformed",
            "http",
            "rate",
            "refused",
            "timeout",
            "network",
            "config",
            "config",
            "none",
        ]
    );
}

/// Errors from servers that echo the key in an error body, an error type,
/// a reply, a refusal and an unexpected property name.
fn echoing_server_errors() -> Vec<ModelError> {
    let echoed = format!("invalid x-api-key {KEY}");
    let server = ScriptedServer::start(vec![
        anthropic_error(401, "authentication_error", &echoed),
        anthropic_reply(&echoed, "end_turn"),
        anthropic_reply(&echoed, "refusal"),
        anthropic_reply(
            &format!("{{\"selected_memories\": [], \"{KEY}\": 1}}"),
            "end_turn",
        ),
        anthropic_error(400, KEY, "type echoed"),
        Reply::text(200, &echoed),
    ]);
    let client = anthropic(server.url());
    let mut errors: Vec<ModelError> = (0..6)
        .map(|_| client.side_query(&query()).unwrap_err())
        .collect();

    let server = ScriptedServer::start(vec![
        Reply::json(
            401,
            &json!({"error": {"message": echoed, "type": "invalid_api_key"}}),
        ),
        Reply::json(429, &json!({"error": {"message": echoed}})),
        Reply::json(
            200,
            &json!({"choices": [{"message": {"content": null, "refusal": echoed}}]}),
        ),
    ]);
    let client = openai(server.url());
    errors.extend((0..3).map(|_| client.side_query(&query()).unwrap_err()));
    errors
}

/// A timeout and a refused connection.
fn transport_errors() -> Vec<ModelError> {
    let slow = ScriptedServer::start(vec![Reply::text(200, "{}").delay(Duration::from_secs(2))]);
    let mut cfg = config(Backend::Anthropic, slow.url(), Some(KEY));
    cfg.timeout = Duration::from_millis(200);
    let timeout = ModelClient::new(cfg)
        .unwrap()
        .side_query(&query())
        .unwrap_err();

    let refused = anthropic(&dead_url()).side_query(&query()).unwrap_err();
    vec![timeout, refused]
}

/// Configuration errors about the key itself, and the no-model error.
fn config_errors() -> Vec<ModelError> {
    let bad_key = format!("{KEY} with space");
    let cfg = config(
        Backend::Anthropic,
        "https://api.anthropic.com",
        Some(&bad_key),
    );
    vec![
        ModelClient::new(cfg).unwrap_err(),
        ModelConfig::from_lookup(|name| (name == "ANTHROPIC_API_KEY").then(|| format!("{KEY} x")))
            .unwrap_err(),
        ModelError::NotConfigured,
    ]
}

fn kind(error: &ModelError) -> &'static str {
    match error {
        ModelError::Http { .. } => "http",
        ModelError::MalformedResponse { .. } => "malformed",
        ModelError::Refused { .. } => "refused",
        ModelError::SchemaMismatch { .. } => "schema",
        ModelError::RateLimited { .. } => "rate",
        ModelError::Timeout { .. } => "timeout",
        ModelError::Network { .. } => "network",
        ModelError::InvalidConfig { .. } => "config",
        ModelError::NotConfigured => "none",
        _ => "other",
    }
}
