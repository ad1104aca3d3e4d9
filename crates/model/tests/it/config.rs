//! Configuration from environment variables, through `from_lookup` with a
//! snapshot of variables.

use std::collections::HashMap;
use std::time::Duration;

use memdir_model::{Backend, ModelConfig, ModelError};

/// Reads a configuration from the given variables.
fn from(vars: &[(&str, &str)]) -> Result<Option<ModelConfig>, ModelError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    ModelConfig::from_lookup(|name| vars.get(name).cloned())
}

/// Reads a configuration that must exist.
fn configured(vars: &[(&str, &str)]) -> ModelConfig {
    from(vars).unwrap().unwrap()
}

/// Expects `InvalidConfig` naming `setting`.
fn check_invalid(vars: &[(&str, &str)], setting: &str) {
    let err = from(vars).unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidConfig { setting: s, .. } if s == setting),
        "{vars:?}: {err:?}"
    );
    assert!(err.to_string().contains(setting), "{err}");
}

#[test]
fn nothing_set_is_no_model() {
    assert_eq!(from(&[]).unwrap(), None);
    assert_eq!(
        from(&[("MEMDIR_MODEL", "x"), ("ANTHROPIC_BASE_URL", "http://h")]).unwrap(),
        None
    );
}

#[test]
fn empty_values_count_as_unset() {
    assert_eq!(
        from(&[("ANTHROPIC_API_KEY", ""), ("OPENAI_BASE_URL", "  ")]).unwrap(),
        None
    );
    assert_eq!(from(&[("MEMDIR_MODEL_BACKEND", "")]).unwrap(), None);
}

#[test]
fn anthropic_key_picks_anthropic_with_defaults() {
    let config = configured(&[("ANTHROPIC_API_KEY", "sk-ant-1")]);
    assert_eq!(config.backend, Backend::Anthropic);
    assert_eq!(config.base_url, "https://api.anthropic.com");
    assert_eq!(config.api_key.as_deref(), Some("sk-ant-1"));
    assert_eq!(config.model, "claude-sonnet-4-6");
    assert_eq!(config.timeout, Duration::from_secs(30));
    assert_eq!(config.max_retries, 1);
}

#[test]
fn anthropic_settings_are_read() {
    let config = configured(&[
        ("ANTHROPIC_API_KEY", "sk-ant-1"),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999"),
        ("MEMDIR_MODEL", "claude-haiku-4-5"),
        ("MEMDIR_MODEL_TIMEOUT_MS", "1500"),
    ]);
    assert_eq!(config.base_url, "http://127.0.0.1:9999");
    assert_eq!(config.model, "claude-haiku-4-5");
    assert_eq!(config.timeout, Duration::from_millis(1500));
}

#[test]
fn openai_base_url_picks_openai_without_a_key() {
    let config = configured(&[
        ("OPENAI_BASE_URL", "http://localhost:8080/v1"),
        ("MEMDIR_MODEL", "qwen3-8b"),
    ]);
    assert_eq!(config.backend, Backend::OpenAiCompatible);
    assert_eq!(config.base_url, "http://localhost:8080/v1");
    assert_eq!(config.api_key, None);
    assert_eq!(config.model, "qwen3-8b");
}

#[test]
fn openai_key_picks_openai_with_the_default_url() {
    let config = configured(&[("OPENAI_API_KEY", "sk-1"), ("MEMDIR_MODEL", "gpt-5-mini")]);
    assert_eq!(config.backend, Backend::OpenAiCompatible);
    assert_eq!(config.base_url, "https://api.openai.com/v1");
    assert_eq!(config.api_key.as_deref(), Some("sk-1"));
}

#[test]
fn anthropic_key_wins_without_an_explicit_backend() {
    let config = configured(&[
        ("ANTHROPIC_API_KEY", "sk-ant-1"),
        ("OPENAI_API_KEY", "sk-1"),
        ("OPENAI_BASE_URL", "http://localhost:8080/v1"),
    ]);
    assert_eq!(config.backend, Backend::Anthropic);
    assert_eq!(config.api_key.as_deref(), Some("sk-ant-1"));
}

#[test]
fn explicit_backend_wins() {
    let config = configured(&[
        ("MEMDIR_MODEL_BACKEND", "openai"),
        ("ANTHROPIC_API_KEY", "sk-ant-1"),
        ("MEMDIR_MODEL", "local"),
    ]);
    assert_eq!(config.backend, Backend::OpenAiCompatible);
    assert_eq!(config.base_url, "https://api.openai.com/v1");
    assert_eq!(config.api_key, None);

    let config = configured(&[
        ("MEMDIR_MODEL_BACKEND", " Anthropic "),
        ("ANTHROPIC_API_KEY", "sk-ant-1"),
        ("OPENAI_BASE_URL", "http://localhost:8080/v1"),
    ]);
    assert_eq!(config.backend, Backend::Anthropic);
}

#[test]
fn unknown_backend_is_invalid() {
    check_invalid(
        &[("MEMDIR_MODEL_BACKEND", "gemini")],
        "MEMDIR_MODEL_BACKEND",
    );
    let err = from(&[("MEMDIR_MODEL_BACKEND", "gemini")]).unwrap_err();
    assert!(err.to_string().contains("gemini"), "{err}");
}

#[test]
fn openai_without_a_model_is_invalid() {
    check_invalid(
        &[("OPENAI_BASE_URL", "http://localhost:8080/v1")],
        "MEMDIR_MODEL",
    );
    check_invalid(&[("MEMDIR_MODEL_BACKEND", "openai")], "MEMDIR_MODEL");
}

#[test]
fn anthropic_backend_without_a_key_is_invalid() {
    check_invalid(
        &[("MEMDIR_MODEL_BACKEND", "anthropic")],
        "ANTHROPIC_API_KEY",
    );
}

#[test]
fn bad_values_are_invalid() {
    let key = ("ANTHROPIC_API_KEY", "sk-ant-1");
    check_invalid(
        &[key, ("MEMDIR_MODEL_TIMEOUT_MS", "soon")],
        "MEMDIR_MODEL_TIMEOUT_MS",
    );
    check_invalid(
        &[key, ("MEMDIR_MODEL_TIMEOUT_MS", "0")],
        "MEMDIR_MODEL_TIMEOUT_MS",
    );
    check_invalid(
        &[key, ("ANTHROPIC_BASE_URL", "api.anthropic.com")],
        "ANTHROPIC_BASE_URL",
    );
    check_invalid(
        &[("OPENAI_BASE_URL", "localhost:8080"), ("MEMDIR_MODEL", "m")],
        "OPENAI_BASE_URL",
    );
}

#[test]
fn not_configured_says_what_to_set() {
    let message = ModelError::NotConfigured.to_string();
    for variable in [
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "MEMDIR_MODEL",
        "MEMDIR_MODEL_BACKEND",
    ] {
        assert!(message.contains(variable), "{message} lacks {variable}");
    }
}
