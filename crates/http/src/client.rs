//! [`HttpClient`]: the one configured ureq agent of memdir, sending
//! [`Request`]s and returning [`Response`]s whose status is data.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use ureq::http::{HeaderMap, Method};

use crate::error::Error;
use crate::retry::RetryPolicy;
use crate::url::Url;

/// Sent as `user-agent` on every request.
pub const USER_AGENT: &str = concat!("memdir/", env!("CARGO_PKG_VERSION"));

/// The body limit unless [`ClientConfig::max_body`] says otherwise: 10 MiB,
/// ureq's own default.
pub const DEFAULT_MAX_BODY: u64 = 10 * 1024 * 1024;

/// How an [`HttpClient`] behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// The budget for one request as a whole, from resolving the host to
    /// reading the last byte of the body. Each retry gets a fresh budget.
    pub timeout: Duration,
    /// The most body bytes read from a response; a longer body is
    /// [`Error::BodyTooLarge`].
    pub max_body: u64,
}

impl ClientConfig {
    /// A configuration with `timeout` and the default body limit.
    #[must_use]
    pub fn new(timeout: Duration) -> Self {
        ClientConfig {
            timeout,
            max_body: DEFAULT_MAX_BODY,
        }
    }
}

/// A blocking HTTP client, configured once.
///
/// - Every request has [`ClientConfig::timeout`] as a whole.
/// - A 4xx or 5xx status is a [`Response`] like any other, with its body,
///   so callers can read a 412 or an error message.
/// - A request to a loopback URL ([`Url::is_loopback`]) never goes through
///   a proxy, whatever the environment (`HTTP_PROXY`, `ALL_PROXY`, …) says;
///   other requests use the environment's proxy, if any.
/// - `user-agent` is [`USER_AGENT`].
///
/// Cloning is cheap and clones share connections.
#[derive(Clone)]
pub struct HttpClient {
    /// For every URL but loopback ones: the environment's proxy applies.
    agent: ureq::Agent,
    /// For loopback URLs: never a proxy.
    direct: ureq::Agent,
    config: ClientConfig,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client with `config`.
    #[must_use]
    pub fn new(config: ClientConfig) -> HttpClient {
        let builder = || {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(config.timeout))
                .user_agent(USER_AGENT)
        };
        HttpClient {
            agent: builder().build().into(),
            direct: builder().proxy(None).build().into(),
            config,
        }
    }

    /// The configuration this client was made with.
    #[must_use]
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Sends `request` once.
    pub fn send(&self, request: &Request) -> Result<Response, Error> {
        let agent = if request.url.is_loopback() {
            &self.direct
        } else {
            &self.agent
        };
        let mut builder = ureq::http::Request::builder()
            .method(request.method.clone())
            .uri(request.url.as_uri().clone());
        for (name, value) in &request.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let wire = builder.body(()).map_err(|e| Error::InvalidRequest {
            url: request.url.redacted(),
            source: Box::new(e),
        })?;
        // A GET carries no body at all, not an empty one.
        let sent = if request.method == Method::GET {
            agent.run(wire)
        } else {
            agent.run(wire.map(|()| request.body.as_slice()))
        };
        let mut response = sent.map_err(|e| self.transport_error(&request.url, e))?;
        let status = response.status().as_u16();
        let headers = std::mem::take(response.headers_mut());
        let body = response
            .body_mut()
            .with_config()
            .limit(self.config.max_body)
            .read_to_vec()
            .map_err(|e| self.transport_error(&request.url, e))?;
        log::debug!(
            "{} {} answered {status} with {} body bytes",
            request.method,
            request.url,
            body.len()
        );
        Ok(Response {
            status,
            headers,
            body,
        })
    }

    /// Sends `request`, and again as `policy` says after a retryable
    /// failure; the last outcome is returned, a response even when its
    /// status is one that was being retried.
    pub fn send_with_retries(
        &self,
        request: &Request,
        policy: &RetryPolicy,
    ) -> Result<Response, Error> {
        policy.run(|| self.send(request))
    }

    /// The error of a request that got no complete response.
    fn transport_error(&self, url: &Url, error: ureq::Error) -> Error {
        let url = url.redacted();
        match error {
            ureq::Error::Timeout(_) => Error::Timeout {
                url,
                timeout: self.config.timeout,
                source: Box::new(error),
            },
            ureq::Error::Io(ref io) if io.kind() == std::io::ErrorKind::TimedOut => {
                Error::Timeout {
                    url,
                    timeout: self.config.timeout,
                    source: Box::new(error),
                }
            }
            ureq::Error::BodyExceedsLimit(limit) => Error::BodyTooLarge { url, limit },
            ureq::Error::Http(_) => Error::InvalidRequest {
                url,
                source: Box::new(error),
            },
            other => Error::Transport {
                url,
                source: Box::new(other),
            },
        }
    }
}

/// One request: a method, a URL, headers and a body (empty for `GET`).
///
/// ```
/// use memdir_http::{Request, Url};
/// let url = Url::parse("http://127.0.0.1:8765/api/items?repo=acme/widgets")?;
/// let request = Request::put(url, "{}")
///     .header("Content-Type", "application/json")
///     .header("If-Match", "\"sha256:ab\"");
/// assert_eq!(request.url().host(), "127.0.0.1");
/// # Ok::<(), memdir_http::Error>(())
/// ```
#[derive(Clone)]
pub struct Request {
    method: Method,
    url: Url,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl fmt::Debug for Request {
    /// Shows the method, the cleaned URL and the header names; header
    /// values and the body may be credentials and are left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("url", &self.url)
            .field(
                "headers",
                &self.headers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl Request {
    /// A `GET` of `url`.
    #[must_use]
    pub fn get(url: Url) -> Self {
        Request::new(Method::GET, url, Vec::new())
    }

    /// A `POST` of `body` to `url`.
    #[must_use]
    pub fn post(url: Url, body: impl Into<Vec<u8>>) -> Self {
        Request::new(Method::POST, url, body.into())
    }

    /// A `PUT` of `body` to `url`.
    #[must_use]
    pub fn put(url: Url, body: impl Into<Vec<u8>>) -> Self {
        Request::new(Method::PUT, url, body.into())
    }

    fn new(method: Method, url: Url, body: Vec<u8>) -> Self {
        Request {
            method,
            url,
            headers: Vec::new(),
            body,
        }
    }

    /// Adds a header. A name or value HTTP does not allow is reported by
    /// [`HttpClient::send`] as [`Error::InvalidRequest`].
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The method.
    #[must_use]
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The URL.
    #[must_use]
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The body (empty for a `GET`).
    #[must_use]
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The value of the first header named `name` (any case), if any.
    #[must_use]
    pub fn header_value(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A complete HTTP response: any status, its headers, and its body, read
/// whole up to [`ClientConfig::max_body`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code, such as 200, 412 or 503.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// Whether the status is 2xx.
    #[must_use]
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The value of the header `name` (any case), when it is present and
    /// visible ASCII.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as text, with invalid UTF-8 replaced by `U+FFFD`.
    #[must_use]
    pub fn text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }
}
