//! The one error type of model access.

use std::time::Duration;

/// Everything that can go wrong when configuring or calling a model.
///
/// No message names the API key: the client removes it from anything a
/// server sends back before it lands in an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A model is needed but none is configured. Callers that require a
    /// model return this when [`ModelConfig::from_lookup`] gives `Ok(None)`.
    ///
    /// [`ModelConfig::from_lookup`]: crate::ModelConfig::from_lookup
    #[error(
        "no model is configured: set ANTHROPIC_API_KEY for the Anthropic API, or \
         OPENAI_BASE_URL (with OPENAI_API_KEY if the server needs one) and MEMDIR_MODEL \
         for an OpenAI-compatible server; MEMDIR_MODEL_BACKEND=anthropic|openai picks \
         one explicitly"
    )]
    NotConfigured,

    /// A setting has a value that cannot work.
    #[error("invalid model setting {setting}: {reason}")]
    InvalidConfig {
        /// The environment variable, or the [`ModelConfig`] field, that is
        /// wrong.
        ///
        /// [`ModelConfig`]: crate::ModelConfig
        setting: String,
        /// What is wrong with it.
        reason: String,
        /// The HTTP layer's finding, when it made one (a base URL that is
        /// not a usable URL).
        #[source]
        source: Option<memdir_http::Error>,
    },

    /// The request did not complete within the configured timeout.
    #[error("model request to {endpoint} timed out after {} ms", timeout.as_millis())]
    Timeout {
        /// The URL called, without credentials.
        endpoint: String,
        /// The timeout that ran out.
        timeout: Duration,
        /// The HTTP layer's report of it.
        #[source]
        source: memdir_http::Error,
    },

    /// The server could not be reached or the connection broke: DNS
    /// failure, connection refused, reset, TLS or protocol error.
    #[error("cannot reach model endpoint {endpoint}")]
    Network {
        /// The URL called, without credentials.
        endpoint: String,
        /// The underlying transport error.
        #[source]
        source: memdir_http::Error,
    },

    /// The server answered with an error status that is not one of the
    /// more specific cases below.
    #[error("model endpoint answered http {status}{}: {message}", error_type.as_ref().map(|t| format!(" {t}")).unwrap_or_default())]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The server's error type, such as `invalid_request_error`, when
        /// its error body names one.
        error_type: Option<String>,
        /// The server's error message, or the start of its error body.
        message: String,
    },

    /// The server refused the request for its rate limit (HTTP 429), and
    /// retrying soon was not possible or did not help.
    #[error("model endpoint rate limited the request{}", match retry_after {
        Some(after) => format!(", retry after {} s", after.as_secs_f64()),
        None => " without retry-after, which usually means a spend or usage limit".to_owned(),
    })]
    RateLimited {
        /// How long the server asked to wait; `None` when it did not say,
        /// which is how a spend limit looks, and is never retried.
        retry_after: Option<Duration>,
    },

    /// The server is overloaded (HTTP 529 or `overloaded_error`), and
    /// retries did not help.
    #[error("model endpoint is overloaded")]
    Overloaded,

    /// The server answered with success, but the reply is not what the
    /// protocol promises: not JSON, missing fields, no text, or text cut off
    /// by the token limit.
    #[error("malformed model reply: {reason}")]
    MalformedResponse {
        /// What is wrong with the reply.
        reason: String,
    },

    /// The model's JSON does not match the schema the query asked for.
    #[error("model reply does not match schema {schema_name} at {path}: {reason}")]
    SchemaMismatch {
        /// The schema's name, from the query.
        schema_name: String,
        /// Where in the reply: `$` is the whole value, then `.field` and
        /// `[index]` steps.
        path: String,
        /// Which rule the value breaks.
        reason: String,
    },

    /// The model declined to answer.
    #[error("the model refused the request{}", explanation.as_ref().map(|e| format!(": {e}")).unwrap_or_default())]
    Refused {
        /// What the model said instead, if anything.
        explanation: Option<String>,
    },
}

impl ModelError {
    /// An [`ModelError::InvalidConfig`] for one setting.
    pub(crate) fn invalid(setting: &str, reason: impl Into<String>) -> Self {
        ModelError::InvalidConfig {
            setting: setting.to_owned(),
            reason: reason.into(),
            source: None,
        }
    }

    /// An [`ModelError::InvalidConfig`] for a URL setting the HTTP layer
    /// refused.
    pub(crate) fn invalid_url(setting: &str, source: memdir_http::Error) -> Self {
        ModelError::InvalidConfig {
            setting: setting.to_owned(),
            reason: "not a usable base url".to_owned(),
            source: Some(source),
        }
    }

    /// A [`ModelError::MalformedResponse`].
    pub(crate) fn malformed(reason: impl Into<String>) -> Self {
        ModelError::MalformedResponse {
            reason: reason.into(),
        }
    }
}

impl From<memdir_http::Error> for ModelError {
    /// The error of a request that got no complete HTTP response. The
    /// endpoint is the HTTP layer's cleaned URL.
    fn from(error: memdir_http::Error) -> Self {
        let endpoint = error.url().to_owned();
        match error {
            memdir_http::Error::Timeout { timeout, .. } => ModelError::Timeout {
                endpoint,
                timeout,
                source: error,
            },
            memdir_http::Error::BodyTooLarge { limit, .. } => {
                ModelError::malformed(format!("the reply body is larger than {limit} bytes"))
            }
            memdir_http::Error::InvalidUrl { .. } => ModelError::invalid_url("base_url", error),
            _ => ModelError::Network {
                endpoint,
                source: error,
            },
        }
    }
}
