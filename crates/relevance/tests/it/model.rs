//! The model selector against a scripted Anthropic Messages server on
//! 127.0.0.1: good answers are filtered, and every failure falls back to
//! the local ranker with a diagnostic.

use std::time::Duration;

use memdir_model::{Backend, ModelClient, ModelConfig};
use memdir_relevance::{RecallOptions, Selector, SelectorUsed, find_relevant_memories};
use memdir_scan::CancelToken;
use memdir_testkit::{Reply, ScriptedServer, dead_url};

use crate::memory;

/// A Messages API reply whose text is `text`.
fn anthropic_reply(text: &str) -> Reply {
    Reply::json(
        200,
        &serde_json::json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "test-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 5}
        }),
    )
}

fn client(url: &str) -> ModelClient {
    let mut config = ModelConfig::new(
        Backend::Anthropic,
        url,
        Some("test-key".into()),
        "test-model",
    );
    config.timeout = Duration::from_millis(500);
    config.max_retries = 0;
    ModelClient::new(config).unwrap()
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    memory(dir.path(), "pnpm.md", "feedback", "Use pnpm, not npm", "");
    memory(
        dir.path(),
        "staging.md",
        "project",
        "Staging deploys go through the release channel",
        "",
    );
    memory(
        dir.path(),
        "grafana.md",
        "reference",
        "Latency dashboards live in Grafana",
        "",
    );
    dir
}

fn recall(dir: &std::path::Path, url: &str, query: &str) -> memdir_relevance::Recall {
    let client = client(url);
    let options = RecallOptions {
        selector: Selector::Model(&client),
        recent_tools: vec!["Bash".into()],
        ..Default::default()
    };
    find_relevant_memories(query, dir, &CancelToken::new(), &options).unwrap()
}

fn names(r: &memdir_relevance::Recall) -> Vec<&str> {
    r.memories.iter().map(|m| m.filename.as_str()).collect()
}

#[test]
fn the_model_chooses_from_the_manifest_and_bad_names_are_dropped() {
    let dir = folder();
    let answer =
        r#"{"selected_memories": ["staging.md", "invented.md", "staging.md", "grafana.md"]}"#;
    let server = ScriptedServer::start(vec![anthropic_reply(answer)]);
    let r = recall(dir.path(), server.url(), "ship it to staging");
    assert_eq!(r.selector, SelectorUsed::Model);
    assert_eq!(names(&r), ["staging.md", "grafana.md"]);
    // The request carried the manifest, the tools and the JSON schema.
    let body = &server.only_request().json();
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("ship it to staging") && user.contains("Recently used tools: Bash"));
    assert!(user.contains("- [feedback] pnpm.md ("), "{user}");
    assert_eq!(body["output_config"]["format"]["type"], "json_schema");
    assert!(
        body["system"]
            .as_str()
            .unwrap()
            .contains("When unsure, leave it out")
    );
}

#[test]
fn more_than_five_names_are_cut_to_five() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..8).map(|i| format!("m{i}.md")).collect();
    for f in &files {
        memory(dir.path(), f, "project", "Something", "");
    }
    let answer = serde_json::json!({ "selected_memories": files }).to_string();
    let server = ScriptedServer::start(vec![anthropic_reply(&answer)]);
    assert_eq!(
        recall(dir.path(), server.url(), "anything").memories.len(),
        5
    );
}

#[test]
fn every_failure_falls_back_to_the_local_ranker() {
    let dir = folder();
    let cases = [
        ("malformed output", anthropic_reply("I think staging.md")),
        (
            "schema mismatch",
            anthropic_reply(r#"{"picked": ["staging.md"]}"#),
        ),
        (
            "server error",
            Reply::text(
                500,
                r#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#,
            )
            .header("content-type", "application/json"),
        ),
        (
            "timeout",
            anthropic_reply("{}").delay(Duration::from_secs(2)),
        ),
    ];
    for (what, reply) in cases {
        let server = ScriptedServer::start(vec![reply]);
        let r = recall(dir.path(), server.url(), "how do staging deploys work");
        assert_eq!(r.selector, SelectorUsed::LocalFallback, "{what}");
        assert_eq!(names(&r), ["staging.md"], "{what}");
        assert!(
            r.diagnostics
                .iter()
                .any(|d| d.starts_with("model selector failed")),
            "{what}: {:?}",
            r.diagnostics
        );
    }
    // Nobody listening at all.
    let r = recall(dir.path(), &dead_url(), "how do staging deploys work");
    assert_eq!(r.selector, SelectorUsed::LocalFallback);
}
