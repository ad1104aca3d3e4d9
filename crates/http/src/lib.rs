//! The one HTTP client of memdir: every crate that talks HTTP does it
//! through this one, so timeouts, proxies, retries, `Retry-After` and the
//! cleaning of URLs in errors are decided once.
//!
//! - [`HttpClient`] — a blocking client built once from a [`ClientConfig`]:
//!   a whole-request timeout, every status returned as data with its body
//!   (read up to a limit), no proxy for loopback URLs, and a
//!   `memdir/<version>` user agent. It sends [`Request`]s (`GET`, `POST`,
//!   `PUT` with headers and a body) and returns [`Response`]s.
//! - [`RetryPolicy`] — which failures are sent again and after how long:
//!   statuses, transport errors, a [`Backoff`], and the server's
//!   `Retry-After` in both its forms ([`parse_retry_after`]), up to a
//!   longest wait. Sleep and clock are injectable for tests.
//! - [`Url`] — an absolute `http(s)` URL on the `http` crate's URI type,
//!   with the loopback rule ([`Url::is_loopback`]) and the cleaned form
//!   that every error and log line shows ([`Url::redacted`]).
//! - [`Multipart`] — a `multipart/form-data` body of file parts with a
//!   random boundary checked against the content, as a `POST` [`Request`].
//! - [`Error`] — what can fail before a complete response is in hand. An
//!   HTTP status is never an error here.
//!
//! ```no_run
//! use std::time::Duration;
//! use memdir_http::{ClientConfig, HttpClient, Request, RetryPolicy, Url};
//!
//! let client = HttpClient::new(ClientConfig::new(Duration::from_secs(30)));
//! let url = Url::parse("http://127.0.0.1:8765/api/items")?;
//! let request = Request::get(url).header("Accept", "application/json");
//! let response = client.send_with_retries(&request, &RetryPolicy::new(3))?;
//! match response.status {
//!     200 => println!("{}", response.text()),
//!     status => println!("the server answered {status}"),
//! }
//! # Ok::<(), memdir_http::Error>(())
//! ```
//!
//! Nothing here reads or writes files, and nothing prints: the crate logs
//! through `log` (each response at `debug`, each retry at `debug`).

mod client;
mod error;
mod multipart;
mod retry;
mod retry_after;
mod url;

pub use client::{ClientConfig, DEFAULT_MAX_BODY, HttpClient, Request, Response, USER_AGENT};
pub use error::{Error, MultipartProblem, UrlProblem};
pub use multipart::{Multipart, quote_name};
pub use retry::{Backoff, LongRetryAfter, RetryPolicy, RetryWhen};
pub use retry_after::{format_http_date, parse_retry_after};
/// The `http` crate's types, as ureq re-exports them ([`http::Uri`],
/// [`http::HeaderMap`], [`http::Method`]), so callers need no dependency of
/// their own.
pub use ureq::http;
pub use url::{Url, redact_text};
