//! [`Multipart`]: a `multipart/form-data` body (RFC 7578) of file parts,
//! sent as a `POST` [`Request`].
//!
//! The boundary is random and checked against every part's bytes, so no
//! content can end a part early. Names are quoted as RFC 7578 section 4.2
//! and the WHATWG form encoding do: `"`, CR and LF become `%22`, `%0D`
//! and `%0A`; every other character, non-ASCII included, is sent as its
//! UTF-8 bytes. A receiver cannot tell a `%22` the sender wrote from an
//! encoded quote; that ambiguity is the format's, and names holding a
//! literal `%22` are rare enough to live with.

use std::fmt;

use crate::client::Request;
use crate::error::{Error, MultipartProblem};
use crate::url::Url;

/// How many random boundaries are tried before giving up: each one has 128
/// random bits, so a second try is already a curiosity.
const BOUNDARY_TRIES: usize = 8;

/// What every boundary starts with, so a captured body is recognisable.
const BOUNDARY_PREFIX: &str = "memdir-boundary-";

/// One file part of a [`Multipart`] body.
#[derive(Clone, PartialEq, Eq)]
struct Part {
    field: String,
    filename: String,
    content_type: String,
    bytes: Vec<u8>,
}

/// A `multipart/form-data` body of one or more file parts.
///
/// ```
/// use memdir_http::{Multipart, Url};
///
/// let url = Url::parse("http://127.0.0.1:8080/v1/files")?;
/// let request = Multipart::new()
///     .file("file", "report \"final\".md", "text/markdown", b"# Done\n".to_vec())
///     .into_request(url)?;
/// assert_eq!(request.method().as_str(), "POST");
/// let content_type = request.header_value("content-type").unwrap();
/// assert!(content_type.starts_with("multipart/form-data; boundary="));
/// let body = String::from_utf8(request.body().to_vec()).unwrap();
/// assert!(body.contains("filename=\"report %22final%22.md\""));
/// # Ok::<(), memdir_http::Error>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Multipart {
    parts: Vec<Part>,
}

impl fmt::Debug for Multipart {
    /// The parts' names, types and sizes; never their bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.parts.iter().map(|p| {
                (
                    p.field.as_str(),
                    p.filename.as_str(),
                    p.content_type.as_str(),
                    p.bytes.len(),
                )
            }))
            .finish()
    }
}

impl Multipart {
    /// An empty body; add parts with [`Multipart::file`].
    #[must_use]
    pub fn new() -> Self {
        Multipart::default()
    }

    /// Adds a file part: the form field `field`, the file's name as the
    /// receiver should store it, its media type, and its bytes.
    #[must_use]
    pub fn file(
        mut self,
        field: impl Into<String>,
        filename: impl Into<String>,
        content_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        self.parts.push(Part {
            field: field.into(),
            filename: filename.into(),
            content_type: content_type.into(),
            bytes: bytes.into(),
        });
        self
    }

    /// The body and its `content-type` header value, with a fresh random
    /// boundary that occurs in no part.
    pub fn encode(&self) -> Result<(String, Vec<u8>), Error> {
        if self.parts.is_empty() {
            return Err(multipart_error(MultipartProblem::NoParts, None));
        }
        for part in &self.parts {
            if part.content_type.is_empty()
                || part
                    .content_type
                    .bytes()
                    .any(|b| b.is_ascii_control() || !b.is_ascii())
            {
                return Err(multipart_error(MultipartProblem::ContentType, None));
            }
        }
        for _ in 0..BOUNDARY_TRIES {
            let boundary = random_boundary()?;
            if self.parts.iter().all(|p| {
                memchr::memmem::find(&p.bytes, boundary.as_bytes()).is_none()
                    && !p.filename.contains(&boundary)
                    && !p.field.contains(&boundary)
            }) {
                let body = self.body_with(&boundary);
                return Ok((format!("multipart/form-data; boundary={boundary}"), body));
            }
        }
        Err(multipart_error(MultipartProblem::Boundary, None))
    }

    /// A `POST` of the body to `url`, with its `content-type`.
    pub fn into_request(self, url: Url) -> Result<Request, Error> {
        let (content_type, body) = self.encode()?;
        Ok(Request::post(url, body).header("content-type", content_type))
    }

    /// The body with `boundary`, which the caller checked.
    fn body_with(&self, boundary: &str) -> Vec<u8> {
        let size: usize = self
            .parts
            .iter()
            .map(|p| p.bytes.len() + p.filename.len() * 3 + p.field.len() * 3 + 160)
            .sum();
        let mut body = Vec::with_capacity(size + boundary.len() * (self.parts.len() + 1));
        for part in &self.parts {
            body.extend_from_slice(b"--");
            body.extend_from_slice(boundary.as_bytes());
            body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
            body.extend_from_slice(quote_name(&part.field).as_bytes());
            body.extend_from_slice(b"\"; filename=\"");
            body.extend_from_slice(quote_name(&part.filename).as_bytes());
            body.extend_from_slice(b"\"\r\nContent-Type: ");
            body.extend_from_slice(part.content_type.as_bytes());
            body.extend_from_slice(b"\r\n\r\n");
            body.extend_from_slice(&part.bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary.as_bytes());
        body.extend_from_slice(b"--\r\n");
        body
    }
}

/// A name as it goes between the quotes of a `Content-Disposition`
/// parameter: `"`, CR and LF percent-encoded, everything else as it is.
#[must_use]
pub fn quote_name(name: &str) -> String {
    let mut quoted = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '"' => quoted.push_str("%22"),
            '\r' => quoted.push_str("%0D"),
            '\n' => quoted.push_str("%0A"),
            c => quoted.push(c),
        }
    }
    quoted
}

/// `memdir-boundary-` and 32 random hex digits (128 bits).
fn random_boundary() -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| multipart_error(MultipartProblem::Random, Some(e.to_string())))?;
    let mut boundary = String::with_capacity(BOUNDARY_PREFIX.len() + 32);
    boundary.push_str(BOUNDARY_PREFIX);
    for b in bytes {
        boundary.push(char::from(HEX[usize::from(b >> 4)]));
        boundary.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    Ok(boundary)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn multipart_error(problem: MultipartProblem, detail: Option<String>) -> Error {
    Error::Multipart { problem, detail }
}

#[cfg(test)]
mod tests;
