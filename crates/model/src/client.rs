//! The blocking client: a side query or one call of a conversation sent
//! through [`memdir_http`] with the model's retry rules, and the mapping
//! from HTTP statuses to [`ModelError`].

use std::fmt;
use std::time::Duration;

use memdir_http::{
    Backoff, ClientConfig, HttpClient, LongRetryAfter, Request, Response, RetryPolicy, RetryWhen,
    Url,
};
use serde_json::Value;

use crate::chat::{ChatReply, ChatRequest};
use crate::config::{Backend, ModelConfig};
use crate::error::ModelError;
use crate::query::{SideQuery, WireRequest};
use crate::reply::error_details;
use crate::{anthropic, openai, schema};

/// The longest `retry-after` the client waits for before it retries; a
/// longer wait is the caller's decision.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);
/// The pause before retrying a 529 or another 5xx without `retry-after`.
const SERVER_ERROR_BACKOFF: Duration = Duration::from_millis(200);
/// The error type Anthropic's API gives an overloaded server, whatever the
/// status.
const OVERLOADED: &str = "overloaded_error";

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
    http: HttpClient,
    retry: RetryPolicy,
}

impl fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
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
        Ok(ModelClient {
            http: HttpClient::new(ClientConfig::new(config.timeout)),
            retry: retry_policy(config.max_retries),
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
    /// A 429 with a `retry-after` of at most 5 seconds (in seconds or as
    /// an HTTP date) is retried after that wait, a 529 or other 5xx after
    /// its `retry-after` of at most 5 seconds or else a short pause, up to
    /// `config.max_retries` times; then the last error is returned. A 429
    /// without `retry-after` (a spend limit), a longer `retry-after`,
    /// timeouts and every other failure are returned at once.
    pub fn side_query(&self, query: &SideQuery) -> Result<Value, ModelError> {
        self.side_query_unscrubbed(query)
            .map_err(|error| scrub(error, self.config.api_key.as_deref()))
    }

    fn side_query_unscrubbed(&self, query: &SideQuery) -> Result<Value, ModelError> {
        let request = match self.config.backend {
            Backend::Anthropic => anthropic::request(&self.config, query),
            Backend::OpenAiCompatible => openai::request(&self.config, query),
        };
        let reply = self.exchange(request)?;
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

    /// Sends one call of a tool-use conversation and returns the model's
    /// reply: its text and tool calls, why it stopped, and the tokens it
    /// used.
    ///
    /// The Anthropic backend sends a non-streaming Messages request with
    /// `tools` and `tool_use`/`tool_result` blocks; the OpenAI-compatible
    /// backend a chat-completions request with `tools` of type `function`,
    /// assistant `tool_calls` and `tool` messages (a failed result's text
    /// starts with `Error: `, since that format has no error flag).
    /// Arguments a server sends that are not JSON do not fail the call:
    /// the tool call's input is then the marker that
    /// [`tool_input_error`](crate::tool_input_error) recognises.
    ///
    /// `config.timeout` bounds each HTTP request of the call, from
    /// connecting to reading the whole reply; a retry gets a fresh budget.
    /// Retries and errors follow the rules of [`ModelClient::side_query`].
    /// A refusal, a cut-off reply or a full context window is not an
    /// error: it is the reply's [`StopReason`](crate::StopReason).
    pub fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        self.chat_unscrubbed(request)
            .map_err(|error| scrub(error, self.config.api_key.as_deref()))
    }

    fn chat_unscrubbed(&self, chat: &ChatRequest) -> Result<ChatReply, ModelError> {
        let request = match self.config.backend {
            Backend::Anthropic => anthropic::chat_request(&self.config, chat),
            Backend::OpenAiCompatible => openai::chat_request(&self.config, chat),
        };
        let reply = self.exchange(request)?;
        match self.config.backend {
            Backend::Anthropic => anthropic::parse_chat_reply(&reply),
            Backend::OpenAiCompatible => openai::parse_chat_reply(&reply),
        }
    }

    /// Sends `request` with the retry rules and returns the reply body as
    /// JSON, or the error of its status.
    fn exchange(&self, request: WireRequest) -> Result<Value, ModelError> {
        let mut http_request = Request::post(Url::parse(&request.url)?, request.body.to_string());
        for (name, value) in request.headers {
            http_request = http_request.header(name, value);
        }
        let response = self.http.send_with_retries(&http_request, &self.retry)?;
        if !response.is_success() {
            return Err(self.status_error(&response));
        }
        let text = response.text();
        serde_json::from_str(&text).map_err(|e| {
            ModelError::malformed(format!(
                "the reply body is not json ({e}): {}",
                crate::reply::snippet(&text)
            ))
        })
    }

    /// The error of a reply whose status is not a success.
    fn status_error(&self, response: &Response) -> ModelError {
        let (error_type, message) = error_details(&response.text());
        match response.status {
            429 => ModelError::RateLimited {
                retry_after: self.retry.retry_after(response),
            },
            529 => ModelError::Overloaded,
            _ if error_type.as_deref() == Some(OVERLOADED) => ModelError::Overloaded,
            status => ModelError::Http {
                status,
                error_type,
                message,
            },
        }
    }
}

/// The model's retry rules: a 429 only with a `retry-after` of at most
/// [`MAX_RETRY_AFTER`]; a 5xx (529 included), or any reply whose error type
/// says overloaded, after its `retry-after` within the same limit or
/// [`SERVER_ERROR_BACKOFF`]; nothing that got no reply, since a timeout
/// already spent the caller's budget.
fn retry_policy(max_retries: u32) -> RetryPolicy {
    RetryPolicy::new(max_retries)
        .backoff(Backoff::Constant(SERVER_ERROR_BACKOFF))
        .statuses(&[
            (429..=429, RetryWhen::WithRetryAfter),
            (500..=599, RetryWhen::Always),
        ])
        .retry_if(|response| {
            !response.is_success()
                && error_details(&response.text()).0.as_deref() == Some(OVERLOADED)
        })
        .max_retry_after(MAX_RETRY_AFTER, LongRetryAfter::GiveUp)
        .retry_transport_errors(false)
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
        ModelError::InvalidConfig {
            setting,
            reason,
            source,
        } => ModelError::InvalidConfig {
            setting,
            reason: clean(reason),
            source,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
