//! The OpenAI-compatible backend: the request on the wire, servers that
//! ignore `response_format`, and error bodies.

use memdir_model::{Backend, ModelClient, ModelError};
use memdir_testkit::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::{ANSWER, KEY, config, openai, openai_reply, query, selection_schema};

#[test]
fn success_sends_the_chat_completions_wire_format() {
    let server = ScriptedServer::start(vec![openai_reply(ANSWER)]);
    let answer = openai(server.url()).side_query(&query()).unwrap();
    assert_eq!(answer, json!({"selected_memories": ["testing.md"]}));

    let request = server.only_request();
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v1/chat/completions");
    let bearer = format!("Bearer {KEY}");
    assert_eq!(request.header("authorization"), Some(bearer.as_str()));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("x-api-key"), None);
    assert_eq!(
        request.json(),
        json!({
            "model": "local-model",
            "max_tokens": 256,
            "messages": [
                {"role": "system", "content": "Select the memories useful for the request."},
                {"role": "user", "content": "Request: fix the flaky test\n- testing.md: how tests run"},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": "memory_selection",
                    "schema": selection_schema(),
                    "strict": true,
                },
            },
        })
    );
}

#[test]
fn no_key_sends_no_authorization() {
    let server = ScriptedServer::start(vec![openai_reply(ANSWER)]);
    let base = format!("{}/v1", server.url());
    let client = ModelClient::new(config(Backend::OpenAiCompatible, &base, None)).unwrap();
    client.side_query(&query()).unwrap();
    assert_eq!(server.only_request().header("authorization"), None);
}

#[test]
fn fenced_json_is_accepted() {
    let fenced = format!("```json\n{ANSWER}\n```");
    let server = ScriptedServer::start(vec![openai_reply(&fenced)]);
    let answer = openai(server.url()).side_query(&query()).unwrap();
    assert_eq!(answer, json!({"selected_memories": ["testing.md"]}));
}

#[test]
fn reply_from_a_server_ignoring_the_schema_is_checked() {
    let server = ScriptedServer::start(vec![openai_reply(
        "```json\n{\"selected\": [\"testing.md\"]}\n```",
    )]);
    let err = openai(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::SchemaMismatch { path, .. } if path == "$"),
        "{err:?}"
    );
    assert!(err.to_string().contains("selected_memories"), "{err}");
}

#[test]
fn too_many_items_is_a_schema_mismatch() {
    let six = r#"{"selected_memories": ["a", "b", "c", "d", "e", "f"]}"#;
    let server = ScriptedServer::start(vec![openai_reply(six)]);
    let err = openai(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::SchemaMismatch { path, .. } if path == "$.selected_memories"),
        "{err:?}"
    );
}

#[test]
fn prose_reply_is_malformed() {
    let server = ScriptedServer::start(vec![openai_reply("Sure! The relevant file is testing.md")]);
    let err = openai(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(err, ModelError::MalformedResponse { .. }),
        "{err:?}"
    );
}

#[test]
fn refusal_is_refused() {
    let server = ScriptedServer::start(vec![Reply::json(
        200,
        &json!({"choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": null, "refusal": "I can't assist."},
            "finish_reason": "stop",
        }]}),
    )]);
    let err = openai(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Refused { explanation: Some(e) } if e == "I can't assist."),
        "{err:?}"
    );
}

#[test]
fn error_body_gives_type_and_message() {
    let server = ScriptedServer::start(vec![Reply::json(
        404,
        &json!({"error": {
            "message": "The model `nope` does not exist",
            "type": "invalid_request_error",
            "param": null,
            "code": "model_not_found",
        }}),
    )]);
    let err = openai(server.url()).side_query(&query()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Http { status: 404, error_type: Some(t), message }
            if t == "invalid_request_error" && message == "The model `nope` does not exist"),
        "{err:?}"
    );
}

#[test]
fn rate_limit_with_retry_after_is_retried() {
    let server = ScriptedServer::start(vec![
        Reply::json(429, &json!({"error": {"message": "Rate limit reached"}}))
            .header("retry-after", "0"),
        openai_reply(ANSWER),
    ]);
    openai(server.url()).side_query(&query()).unwrap();
    assert_eq!(server.requests().len(), 2);
}
