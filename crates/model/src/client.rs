//! The blocking client: one HTTP exchange per attempt, a bounded number of
//! retries, and the mapping from transport failures and HTTP statuses to
//! [`ModelError`].

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::config::{Backend, ModelConfig};
use crate::error::ModelError;
use crate::reply::error_details;
use crate::{anthropic, openai, schema};

/// The longest `retry-after` the client waits for on a 429 before it
/// retries; a longer wait is the caller's decision.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);
/// The pause before retrying a 529 or another 5xx.
const SERVER_ERROR_BACKOFF: Duration = Duration::from_millis(200);
/// Sent as `user-agent`.
const USER_AGENT: &str = concat!("memdir-model/", env!("CARGO_PKG_VERSION"));

/// One structured-output question to the model: instructions, a message,
/// and the JSON schema the answer must match.
#[derive(Debug, Clone, PartialEq)]
pub struct SideQuery {
    /// The system prompt.
    pub system: String,
    /// The user message.
    pub user: String,
    /// A name for the schema, sent to OpenAI-compatible servers and shown
    /// in errors; keep to letters, digits, `_` and `-`, at most 64, which
    /// is what OpenAI-compatible servers accept.
    pub schema_name: String,
    /// The JSON schema the reply must match. Servers may enforce it; the
    /// client always checks it (see [`ModelError::SchemaMismatch`]).
    pub schema: Value,
    /// The most tokens the model may produce.
    pub max_tokens: u32,
}

/// A blocking client for one configured model.
///
/// ```no_run
/// use memdir_model::{Backend, ModelClient, ModelConfig, SideQuery};
/// use serde_json::json;
///
/// let config = ModelConfig::new(
///     Backend::OpenAiCompatible,
///     "http://127.0.0.1:8080/v1",
///     None,
///     "qwen3-8b",
/// );
/// let client = ModelClient::new(config)?;
/// let answer = client.side_query(&SideQuery {
///     system: "Pick the files relevant to the request.".to_owned(),
///     user: "Request: fix the flaky test\nFiles: testing.md, style.md".to_owned(),
///     schema_name: "selection".to_owned(),
///     schema: json!({
///         "type": "object",
///         "properties": {"files": {"type": "array", "items": {"type": "string"}}},
///         "required": ["files"],
///         "additionalProperties": false,
///     }),
///     max_tokens: 256,
/// })?;
/// println!("{}", answer["files"]);
/// # Ok::<(), memdir_model::ModelError>(())
/// ```
#[derive(Clone)]
pub struct ModelClient {
    config: ModelConfig,
    agent: ureq::Agent,
}

impl fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// An HTTP request as a backend builds it.
pub(crate) struct WireRequest {
    /// The endpoint.
    pub(crate) url: String,
    /// Header names (lowercase) and values.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The JSON body.
    pub(crate) body: Value,
}

/// What one attempt came to.
enum Attempt {
    /// A successful reply's body.
    Success(String),
    /// A failure that another attempt may cure, after a pause.
    Retry(ModelError, Duration),
    /// A failure that another attempt will not cure.
    Fail(ModelError),
}

impl ModelClient {
    /// A client for `config`, after checking its values.
    ///
    /// The client applies `config.timeout` to each request as a whole, reads
    /// error bodies instead of discarding them, and sends requests to a
    /// loopback base URL directly even when a proxy is configured in the
    /// environment.
    pub fn new(config: ModelConfig) -> Result<ModelClient, ModelError> {
        config.check()?;
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(config.timeout))
            .user_agent(USER_AGENT);
        if config.is_loopback() {
            builder = builder.proxy(None);
        }
        Ok(ModelClient {
            agent: builder.build().into(),
            config,
        })
    }

    /// The configuration this client was made with.
    #[must_use]
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// Asks the model `query` and returns its answer, checked against
    /// `query.schema`.
    ///
    /// A 429 with a `retry-after` of at most 5 seconds is retried after
    /// that wait, a 529 or other 5xx after a short pause, up to
    /// `config.max_retries` times; then the last error is returned. A 429
    /// without `retry-after` (a spend limit), timeouts and every other
    /// failure are returned at once.
    pub fn side_query(&self, query: &SideQuery) -> Result<Value, ModelError> {
        self.side_query_unscrubbed(query)
            .map_err(|error| scrub(error, self.config.api_key.as_deref()))
    }

    fn side_query_unscrubbed(&self, query: &SideQuery) -> Result<Value, ModelError> {
        let request = match self.config.backend {
            Backend::Anthropic => anthropic::request(&self.config, query),
            Backend::OpenAiCompatible => openai::request(&self.config, query),
        };
        let body = request.body.to_string();
        let mut retries = 0;
        let text = loop {
            match self.attempt(&request, &body) {
                Attempt::Success(text) => break text,
                Attempt::Fail(error) => return Err(error),
                Attempt::Retry(error, _) if retries >= self.config.max_retries => {
                    return Err(error);
                }
                Attempt::Retry(_, pause) => {
                    retries += 1;
                    std::thread::sleep(pause);
                }
            }
        };

        let reply: Value = serde_json::from_str(&text).map_err(|e| {
            ModelError::malformed(format!(
                "the reply body is not json ({e}): {}",
                crate::reply::snippet(&text)
            ))
        })?;
        let value = match self.config.backend {
            Backend::Anthropic => anthropic::parse_reply(&reply)?,
            Backend::OpenAiCompatible => openai::parse_reply(&reply)?,
        };
        schema::validate(&value, &query.schema).map_err(|v| ModelError::SchemaMismatch {
            schema_name: query.schema_name.clone(),
            path: v.path,
            reason: v.reason,
        })?;
        Ok(value)
    }

    /// One HTTP exchange.
    fn attempt(&self, request: &WireRequest, body: &str) -> Attempt {
        let mut call = self.agent.post(&request.url);
        for (name, value) in &request.headers {
            call = call.header(*name, value);
        }
        let mut response = match call.send(body) {
            Ok(response) => response,
            Err(error) => return Attempt::Fail(self.transport_error(&request.url, error)),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        let text = match response.body_mut().read_to_string() {
            Ok(text) => text,
            Err(error) => return Attempt::Fail(self.transport_error(&request.url, error)),
        };
        if (200..300).contains(&status) {
            return Attempt::Success(text);
        }

        let (error_type, message) = error_details(&text);
        if status == 429 {
            return match retry_after {
                Some(wait) if wait <= MAX_RETRY_AFTER => Attempt::Retry(
                    ModelError::RateLimited {
                        retry_after: Some(wait),
                    },
                    wait,
                ),
                retry_after => Attempt::Fail(ModelError::RateLimited { retry_after }),
            };
        }
        if status == 529 || error_type.as_deref() == Some("overloaded_error") {
            return Attempt::Retry(ModelError::Overloaded, SERVER_ERROR_BACKOFF);
        }
        let error = ModelError::Http {
            status,
            error_type,
            message,
        };
        if status >= 500 {
            Attempt::Retry(error, SERVER_ERROR_BACKOFF)
        } else {
            Attempt::Fail(error)
        }
    }

    /// The error for a request that got no complete HTTP response.
    fn transport_error(&self, url: &str, error: ureq::Error) -> ModelError {
        let endpoint = display_url(url);
        match error {
            ureq::Error::Timeout(_) => ModelError::Timeout {
                endpoint,
                timeout: self.config.timeout,
            },
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                ModelError::Timeout {
                    endpoint,
                    timeout: self.config.timeout,
                }
            }
            ureq::Error::BadUri(reason) => ModelError::invalid("base_url", reason),
            ureq::Error::BodyExceedsLimit(limit) => {
                ModelError::malformed(format!("the reply body is larger than {limit} bytes"))
            }
            other => ModelError::Network {
                endpoint,
                source: Box::new(other),
            },
        }
    }
}

/// A `retry-after` value in seconds (HTTP dates are not worth waiting for
/// here, so they count as absent).
fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(1e9)))
}

/// A URL for an error message, with any user name and password removed.
fn display_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

/// Removes the API key from every text of an error, in case a server
/// echoed it back.
fn scrub(error: ModelError, key: Option<&str>) -> ModelError {
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return error;
    };
    let clean = |text: String| {
        if text.contains(key) {
            text.replace(key, "[redacted]")
        } else {
            text
        }
    };
    match error {
        ModelError::Http {
            status,
            error_type,
            message,
        } => ModelError::Http {
            status,
            error_type: error_type.map(clean),
            message: clean(message),
        },
        ModelError::MalformedResponse { reason } => ModelError::MalformedResponse {
            reason: clean(reason),
        },
        ModelError::SchemaMismatch {
            schema_name,
            path,
            reason,
        } => ModelError::SchemaMismatch {
            schema_name,
            path: clean(path),
            reason: clean(reason),
        },
        ModelError::Refused { explanation } => ModelError::Refused {
            explanation: explanation.map(clean),
        },
        ModelError::InvalidConfig { setting, reason } => ModelError::InvalidConfig {
            setting,
            reason: clean(reason),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_seconds() {
        assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT"), None);
    }

    #[test]
    fn urls_in_errors_lose_credentials() {
        assert_eq!(
            display_url("http://me:secret@localhost:80/v1/messages"),
            "http://localhost:80/v1/messages"
        );
        assert_eq!(display_url("https://h/v1/x@y"), "https://h/v1/x@y");
    }

    #[test]
    fn echoed_keys_are_scrubbed() {
        let error = ModelError::Http {
            status: 401,
            error_type: None,
            message: "invalid key sk-test-123".to_owned(),
        };
        let message = scrub(error, Some("sk-test-123")).to_string();
        assert!(!message.contains("sk-test-123"), "{message}");
        assert!(message.contains("[redacted]"), "{message}");
    }
}
