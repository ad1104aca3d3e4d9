//! Which model backend to use and how to reach it, read from environment
//! variables through a lookup function so that tests pass a snapshot.

use std::fmt;
use std::time::Duration;

use crate::error::ModelError;

/// Names the backend: `anthropic` or `openai`.
pub const ENV_BACKEND: &str = "MEMDIR_MODEL_BACKEND";
/// The Anthropic API key.
pub const ENV_ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
/// The Anthropic API's base URL.
pub const ENV_ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// The key for an OpenAI-compatible server (optional).
pub const ENV_OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// The base URL of an OpenAI-compatible server, up to and including `/v1`.
pub const ENV_OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
/// The model name.
pub const ENV_MODEL: &str = "MEMDIR_MODEL";
/// The whole-request timeout in milliseconds.
pub const ENV_TIMEOUT_MS: &str = "MEMDIR_MODEL_TIMEOUT_MS";

/// Where the Anthropic API lives unless `ANTHROPIC_BASE_URL` says otherwise.
pub const DEFAULT_ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The OpenAI-compatible base URL used unless `OPENAI_BASE_URL` says otherwise.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The Anthropic model used unless `MEMDIR_MODEL` says otherwise.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-6";
/// The whole-request timeout unless `MEMDIR_MODEL_TIMEOUT_MS` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Extra attempts after a retryable failure (429 with a short
/// `retry-after`, 529, other 5xx).
pub const DEFAULT_MAX_RETRIES: u32 = 1;

/// The wire protocol a model server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The Anthropic Messages API (`POST {base}/v1/messages`).
    Anthropic,
    /// An OpenAI-compatible chat-completions endpoint
    /// (`POST {base}/chat/completions`), such as a local llama.cpp, vLLM or
    /// Ollama server.
    OpenAiCompatible,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Anthropic => "anthropic",
            Backend::OpenAiCompatible => "openai",
        })
    }
}

/// How to reach a model. `Debug` shows whether a key is set, never the key.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// The wire protocol.
    pub backend: Backend,
    /// The base URL, without the endpoint path: `https://api.anthropic.com`
    /// for Anthropic, `https://api.openai.com/v1` for the OpenAI-hosted
    /// API.
    pub base_url: String,
    /// The API key, sent as `x-api-key` (Anthropic) or as a bearer token
    /// (OpenAI-compatible); `None` sends no credentials.
    pub api_key: Option<String>,
    /// The model name sent with each request.
    pub model: String,
    /// The budget for one HTTP request, from connecting to reading the whole
    /// reply. Retries each get a fresh budget.
    pub timeout: Duration,
    /// Extra attempts after a retryable failure.
    pub max_retries: u32,
}

impl fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelConfig")
            .field("backend", &self.backend)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

impl ModelConfig {
    /// A configuration with the default timeout and retry count.
    #[must_use]
    pub fn new(
        backend: Backend,
        base_url: impl Into<String>,
        api_key: Option<String>,
        model: impl Into<String>,
    ) -> Self {
        ModelConfig {
            backend,
            base_url: base_url.into(),
            api_key,
            model: model.into(),
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
        }
    }

    /// Reads the configuration through a variable lookup; callers pass an
    /// environment snapshot (`|name| std::env::var(name).ok()` for the
    /// process environment). Empty and blank values count as unset.
    ///
    /// `Ok(None)` means no backend is configured, which is a normal state:
    /// callers that need a model turn it into [`ModelError::NotConfigured`].
    /// See the [crate documentation](crate) for the variables and how the
    /// backend is chosen.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ModelConfig>, ModelError> {
        let var = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let anthropic_key = var(ENV_ANTHROPIC_API_KEY);
        let backend = match var(ENV_BACKEND) {
            Some(name) => match name.to_ascii_lowercase().as_str() {
                "anthropic" => Backend::Anthropic,
                "openai" => Backend::OpenAiCompatible,
                _ => {
                    return Err(ModelError::invalid(
                        ENV_BACKEND,
                        format!("unknown backend {name:?}, expected anthropic or openai"),
                    ));
                }
            },
            None if anthropic_key.is_some() => Backend::Anthropic,
            None if var(ENV_OPENAI_BASE_URL).is_some() || var(ENV_OPENAI_API_KEY).is_some() => {
                Backend::OpenAiCompatible
            }
            None => return Ok(None),
        };

        let (key_var, url_var, api_key, default_url) = match backend {
            Backend::Anthropic => (
                ENV_ANTHROPIC_API_KEY,
                ENV_ANTHROPIC_BASE_URL,
                anthropic_key,
                DEFAULT_ANTHROPIC_BASE_URL,
            ),
            Backend::OpenAiCompatible => (
                ENV_OPENAI_API_KEY,
                ENV_OPENAI_BASE_URL,
                var(ENV_OPENAI_API_KEY),
                DEFAULT_OPENAI_BASE_URL,
            ),
        };
        if backend == Backend::Anthropic && api_key.is_none() {
            return Err(ModelError::invalid(
                ENV_ANTHROPIC_API_KEY,
                "the anthropic backend needs an api key",
            ));
        }
        if let Some(key) = &api_key {
            check_api_key(key_var, key)?;
        }
        let base_url = var(url_var).unwrap_or_else(|| default_url.to_owned());
        check_base_url(url_var, &base_url)?;

        let model = match (var(ENV_MODEL), backend) {
            (Some(model), _) => model,
            (None, Backend::Anthropic) => DEFAULT_ANTHROPIC_MODEL.to_owned(),
            (None, Backend::OpenAiCompatible) => {
                return Err(ModelError::invalid(
                    ENV_MODEL,
                    "an openai-compatible server needs a model name",
                ));
            }
        };
        let timeout = match var(ENV_TIMEOUT_MS) {
            None => DEFAULT_TIMEOUT,
            Some(ms) => match ms.parse::<u64>() {
                Ok(ms) if ms > 0 => Duration::from_millis(ms),
                _ => {
                    return Err(ModelError::invalid(
                        ENV_TIMEOUT_MS,
                        format!("{ms:?} is not a positive whole number of milliseconds"),
                    ));
                }
            },
        };
        Ok(Some(ModelConfig {
            backend,
            base_url,
            api_key,
            model,
            timeout,
            max_retries: DEFAULT_MAX_RETRIES,
        }))
    }

    /// Checks the values a request is built from; the error names the
    /// field.
    pub(crate) fn check(&self) -> Result<(), ModelError> {
        check_base_url("base_url", &self.base_url)?;
        if let Some(key) = &self.api_key {
            check_api_key("api_key", key)?;
        }
        if self.model.trim().is_empty() {
            return Err(ModelError::invalid("model", "the model name is empty"));
        }
        if self.timeout.is_zero() {
            return Err(ModelError::invalid("timeout", "the timeout is zero"));
        }
        Ok(())
    }

    /// The base URL without trailing slashes, ready for an endpoint path.
    pub(crate) fn base(&self) -> &str {
        self.base_url.trim_end_matches('/')
    }
}

/// Checks a base URL, as the setting `setting`: an absolute `http(s)` URL
/// with a host ([`memdir_http::Url`]'s rules) and no query, since endpoint
/// paths are appended to it.
fn check_base_url(setting: &str, url: &str) -> Result<(), ModelError> {
    let parsed = memdir_http::Url::parse(url).map_err(|e| ModelError::invalid_url(setting, e))?;
    if url.contains('?') {
        return Err(ModelError::invalid(
            setting,
            format!(
                "{:?} is not a plain base url: it has a query",
                parsed.redacted()
            ),
        ));
    }
    Ok(())
}

/// Checks that a key, as the setting `setting`, can go into an HTTP
/// header. The error never quotes the key.
fn check_api_key(setting: &str, key: &str) -> Result<(), ModelError> {
    if key.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(ModelError::invalid(
            setting,
            "the api key contains characters not allowed in an http header",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(url: &str) -> ModelConfig {
        ModelConfig::new(Backend::OpenAiCompatible, url, None, "m")
    }

    #[test]
    fn base_urls_are_checked() {
        let check = |url: &str| check_base_url("base_url", url);
        assert!(check("https://api.anthropic.com").is_ok());
        assert!(check("http://127.0.0.1:1234/v1/").is_ok());
        assert!(check("ftp://x").is_err());
        assert!(check("api.openai.com/v1").is_err());
        assert!(check("http://").is_err());
        assert!(check("http://host/v1?key=1").is_err());
        assert!(check("http://host/v1?").is_err());
        assert!(check("http://host/v1#top").is_err());
        assert!(check("http://ho st").is_err());
        assert!(check("http://h\u{a0}/v1").is_err());
    }

    #[test]
    fn base_url_errors_name_the_setting_and_keep_their_source() {
        let err = check_base_url("OPENAI_BASE_URL", "localhost:8080").unwrap_err();
        assert!(
            matches!(&err, ModelError::InvalidConfig { setting, source: Some(_), .. } if setting == "OPENAI_BASE_URL"),
            "{err:?}"
        );
        assert!(std::error::Error::source(&err).is_some());
        let err = check_base_url("base_url", "http://me:pw@host/v1?key=sekrit").unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(
            !shown.contains("sekrit") && !shown.contains("pw@"),
            "{shown}"
        );
    }

    #[test]
    fn keys_with_header_breaking_characters_are_rejected_without_quoting_them() {
        assert!(check_api_key("api_key", "sk-ant-abc_DEF-123").is_ok());
        let reason = check_api_key("api_key", "sk-secret\r\nx-evil: 1")
            .unwrap_err()
            .to_string();
        assert!(!reason.contains("sk-secret"));
    }

    #[test]
    fn base_drops_trailing_slashes() {
        assert_eq!(config("http://h/v1//").base(), "http://h/v1");
    }
}
