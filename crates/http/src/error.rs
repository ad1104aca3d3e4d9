//! The one error type of the HTTP client. Every URL in it is cleaned of
//! credentials ([`Url::redacted`](crate::Url::redacted)).

use std::fmt;
use std::time::Duration;

/// A boxed underlying error, kept as a source.
type Source = Box<dyn std::error::Error + Send + Sync>;

/// Everything that can go wrong before a complete HTTP response is in
/// hand. An HTTP status, whatever it is, is not an error here: it is
/// [`Response::status`](crate::Response::status).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text given as a URL is not one this crate sends to.
    #[error("invalid url {url}: {problem}")]
    InvalidUrl {
        /// The text, cleaned of anything that may be a credential.
        url: String,
        /// What is wrong with it.
        problem: UrlProblem,
        /// The parser's own error, when the syntax is what is wrong.
        #[source]
        source: Option<Source>,
    },

    /// The request could not be built: a header name or value that HTTP
    /// does not allow (such as a line break in a value).
    #[error("invalid request to {url}")]
    InvalidRequest {
        /// The URL, cleaned.
        url: String,
        /// What the HTTP layer refused.
        #[source]
        source: Source,
    },

    /// The request did not complete within the client's timeout.
    #[error("request to {url} timed out after {} ms", timeout.as_millis())]
    Timeout {
        /// The URL, cleaned.
        url: String,
        /// The timeout that ran out.
        timeout: Duration,
        /// The transport's report of it.
        #[source]
        source: Source,
    },

    /// No complete response arrived: the host was not found, the
    /// connection was refused or broke, TLS or the HTTP exchange failed.
    #[error("cannot reach {url}")]
    Transport {
        /// The URL, cleaned.
        url: String,
        /// The transport's error.
        #[source]
        source: Source,
    },

    /// A `multipart/form-data` body could not be made.
    #[error("cannot build a multipart body: {problem}{}", detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Multipart {
        /// What was wrong.
        problem: MultipartProblem,
        /// The system's word on it, when there is one.
        detail: Option<String>,
    },

    /// The response body is larger than the client reads.
    #[error("the response body from {url} is larger than the limit of {limit} bytes")]
    BodyTooLarge {
        /// The URL, cleaned.
        url: String,
        /// The limit, in bytes ([`ClientConfig::max_body`](crate::ClientConfig::max_body)).
        limit: u64,
    },
}

impl Error {
    /// Whether the request did not complete for a reason another attempt
    /// may cure: [`Error::Transport`] and [`Error::Timeout`].
    #[must_use]
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::Transport { .. } | Error::Timeout { .. })
    }

    /// The cleaned URL the error is about; empty for a body that could not
    /// be built.
    #[must_use]
    pub fn url(&self) -> &str {
        match self {
            Error::InvalidUrl { url, .. }
            | Error::InvalidRequest { url, .. }
            | Error::Timeout { url, .. }
            | Error::Transport { url, .. }
            | Error::BodyTooLarge { url, .. } => url,
            Error::Multipart { .. } => "",
        }
    }
}

/// Why a text is not a usable [`Url`](crate::Url).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UrlProblem {
    /// Not URL syntax: no scheme, a space or control character, a broken
    /// authority.
    Syntax,
    /// A character outside ASCII; percent-encode it.
    NotAscii,
    /// A scheme other than `http` or `https`.
    Scheme,
    /// No host.
    NoHost,
    /// A port outside `0..=65535`.
    Port,
    /// A `#fragment`, which is never sent.
    Fragment,
}

impl fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlProblem::Syntax => "not url syntax",
            UrlProblem::NotAscii => "it contains characters outside ascii",
            UrlProblem::Scheme => "it does not start with http:// or https://",
            UrlProblem::NoHost => "it names no host",
            UrlProblem::Port => "the port is out of range",
            UrlProblem::Fragment => "it has a #fragment",
        })
    }
}

/// Why a [`Multipart`](crate::Multipart) body could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MultipartProblem {
    /// The body has no part.
    NoParts,
    /// A part's media type is empty, or holds a control character or a
    /// character outside ASCII.
    ContentType,
    /// The system gave no random bytes for a boundary.
    Random,
    /// Every random boundary tried occurs in the content.
    Boundary,
}

impl fmt::Display for MultipartProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MultipartProblem::NoParts => "it has no part",
            MultipartProblem::ContentType => {
                "a content type is empty or holds characters a header cannot carry"
            }
            MultipartProblem::Random => "no random bytes for a boundary",
            MultipartProblem::Boundary => "every boundary tried occurs in the content",
        })
    }
}
