//! A request and a response as the handlers see them, and their
//! conversion from and to hyper's types.
//!
//! hyper reads and writes HTTP/1.1 (framing, keep-alive, `Expect:
//! 100-continue`, refusing conflicting `Content-Length`s and oversized
//! heads); this module only moves what the handlers need across, so that
//! [`crate::api`] stays free of any HTTP library.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderName, HeaderValue};

/// The largest request head (request line and headers) accepted; a larger
/// one is answered 431 by hyper.
pub(crate) const MAX_HEAD_BYTES: usize = 16 * 1024;

/// A request, read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The request target: path and query.
    pub(crate) target: String,
    /// Header names in lower case, values trimmed.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// The first value of a header (name in lower case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A request from hyper's head and the body read for it. A header value
    /// that is not UTF-8 is left out: no header the protocol reads may
    /// hold one.
    pub(crate) fn from_parts(head: &hyper::http::request::Parts, body: Vec<u8>) -> Self {
        let headers = head
            .headers
            .iter()
            .filter_map(|(name, value)| {
                let value = value.to_str().ok()?;
                Some((name.as_str().to_owned(), value.trim().to_owned()))
            })
            .collect();
        let target = head
            .uri
            .path_and_query()
            .map_or_else(|| head.uri.path().to_owned(), |pq| pq.as_str().to_owned());
        Self {
            method: head.method.as_str().to_owned(),
            target,
            headers,
            body,
        }
    }
}

/// A response to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    /// The response as hyper writes it; `close` asks for the connection to
    /// end after it. hyper adds `Content-Length` (none for a 304) and
    /// `Date`.
    pub(crate) fn into_hyper(self, close: bool) -> hyper::Response<Full<Bytes>> {
        let mut response = hyper::Response::new(Full::new(Bytes::from(self.body)));
        *response.status_mut() = hyper::StatusCode::from_u16(self.status)
            .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
        let headers = response.headers_mut();
        for (name, value) in self.headers {
            // Every name is a constant of this crate and every value
            // printable ASCII; one that is not is left out, not sent broken.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                headers.append(name, value);
            }
        }
        if close {
            headers.insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
