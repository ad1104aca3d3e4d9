//! Just enough HTTP/1.1 for the protocol, over a blocking socket.
//!
//! A hand-written reader rather than a general server library, so that
//! every limit is exact and enforced before memory is spent: the request
//! head is capped, a body must declare its length (no chunked uploads) and
//! a declared length over the limit is refused before a byte of it is
//! read, and every read has a deadline — a slow or silent client cannot
//! hold a worker beyond the request timeout.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The largest request head (request line and headers) accepted.
pub(crate) const MAX_HEAD_BYTES: usize = 16 * 1024;
/// How often a blocked read looks at the shutdown flag.
const POLL: Duration = Duration::from_millis(100);

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The request target: path and query.
    pub(crate) target: String,
    /// Header names in lower case, values trimmed.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    /// Whether the client wants the connection kept open.
    pub(crate) keep_alive: bool,
}

impl Request {
    /// The first value of a header (name in lower case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) body: Vec<u8>,
}

/// Why no request could be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The peer closed, or went idle, or the server is stopping, before a
    /// request began: close without a word.
    Closed,
    /// The request did not arrive in time (408).
    Timeout,
    /// The head is malformed or too large (400 or 431).
    BadHead(u16, &'static str),
    /// A body without a declared length (411).
    LengthRequired,
    /// A declared body over the limit (413); the length declared.
    BodyTooLarge(u64),
    /// The socket failed.
    Io,
}

/// Deadlines for reading one request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// How long a kept-alive connection may wait for its next request.
    pub(crate) idle: Duration,
    /// How long one request may take to arrive, from its first byte.
    pub(crate) request: Duration,
    pub(crate) max_body: usize,
}

/// Reads one request from a connection. `stop` ends the wait for a request
/// that has not begun; a request under way is read to its end.
pub(crate) fn read_request(
    stream: &mut TcpStream,
    buffered: &mut Vec<u8>,
    limits: ReadLimits,
    stop: &AtomicBool,
) -> Result<Request, ReadError> {
    let idle_deadline = Instant::now() + limits.idle;
    let mut deadline = None;
    let head_end = loop {
        if let Some(end) = head_end(buffered)? {
            break end;
        }
        // Read before looking at the clock or the flag, so that a request
        // already sent is served even when the server is stopping.
        if !read_some(stream, buffered, POLL)? {
            return Err(ReadError::Closed);
        }
        if !buffered.is_empty() && deadline.is_none() {
            deadline = Some(Instant::now() + limits.request);
        }
        match deadline {
            None if stop.load(Ordering::SeqCst) || Instant::now() >= idle_deadline => {
                return Err(ReadError::Closed);
            }
            Some(d) if Instant::now() >= d && find_head_end(buffered).is_none() => {
                return Err(ReadError::Timeout);
            }
            _ => {}
        }
    };
    let deadline = deadline.unwrap_or_else(|| Instant::now() + limits.request);
    let (mut request, length) = parse_request_head(&buffered[..head_end], limits.max_body)?;
    buffered.drain(..head_end + 4);
    if length > 0 && expects_continue(&request) {
        stream.write_all(CONTINUE).map_err(|_| ReadError::Io)?;
    }
    while buffered.len() < length {
        let now = Instant::now();
        if now >= deadline {
            return Err(ReadError::Timeout);
        }
        if !read_some(stream, buffered, deadline - now)? {
            return Err(ReadError::Closed);
        }
    }
    request.body = buffered.drain(..length).collect();
    Ok(request)
}

/// The interim answer to `Expect: 100-continue`.
pub(crate) const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// Whether the client waits for [`CONTINUE`] before sending its body.
pub(crate) fn expects_continue(request: &Request) -> bool {
    request
        .header("expect")
        .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
}

/// Parses a request head (the bytes before its blank line) and the length
/// of the body that follows it, refusing a body over `max_body` bytes.
pub(crate) fn parse_request_head(
    head: &[u8],
    max_body: usize,
) -> Result<(Request, usize), ReadError> {
    let head = std::str::from_utf8(head)
        .map_err(|_| ReadError::BadHead(400, "request head is not UTF-8"))?;
    let request = parse_head(head)?;
    if request.header("transfer-encoding").is_some() {
        return Err(ReadError::LengthRequired);
    }
    let length = content_length(&request)?;
    if length > max_body as u64 {
        return Err(ReadError::BodyTooLarge(length));
    }
    Ok((request, usize::try_from(length).unwrap_or(usize::MAX)))
}

/// The declared body length: every `Content-Length` header, and every
/// element of a comma-separated one, must be the same run of ASCII digits
/// (RFC 9112 §6.3); two different lengths are how requests are smuggled
/// past a proxy, so they are refused, not chosen between.
fn content_length(request: &Request) -> Result<u64, ReadError> {
    let mut length = None;
    for (_, value) in request
        .headers
        .iter()
        .filter(|(n, _)| n == "content-length")
    {
        for part in value.split(',') {
            let part = part.trim();
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ReadError::BadHead(400, "malformed Content-Length"));
            }
            let n = part
                .parse::<u64>()
                .map_err(|_| ReadError::BadHead(400, "malformed Content-Length"))?;
            match length {
                Some(seen) if seen != n => {
                    return Err(ReadError::BadHead(400, "conflicting Content-Length"));
                }
                _ => length = Some(n),
            }
        }
    }
    Ok(length.unwrap_or(0))
}

/// Whether a line of `bytes` ends with a LF that no CR precedes.
fn has_bare_lf(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || bytes[i - 1] != b'\r'))
}

/// One read of at most `wait`; `false` at end of stream. A timeout is not
/// an error: the caller checks its own deadline.
fn read_some(
    stream: &mut TcpStream,
    into: &mut Vec<u8>,
    wait: Duration,
) -> Result<bool, ReadError> {
    stream
        .set_read_timeout(Some(wait.clamp(Duration::from_millis(1), POLL)))
        .map_err(|_| ReadError::Io)?;
    let mut chunk = [0u8; 16 * 1024];
    match stream.read(&mut chunk) {
        Ok(0) => Ok(false),
        Ok(n) => {
            into.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
            ) =>
        {
            Ok(true)
        }
        Err(_) => Err(ReadError::Io),
    }
}

/// Parses a request head (without its final blank line).
fn parse_head(head: &str) -> Result<Request, ReadError> {
    let mut lines = head.split("\r\n");
    let mut parts = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::BadHead(400, "malformed request line"));
    };
    if method.is_empty() || !target.starts_with('/') {
        return Err(ReadError::BadHead(400, "malformed request line"));
    }
    let mut keep_alive = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(ReadError::BadHead(400, "unsupported HTTP version")),
    };
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::BadHead(400, "malformed header"));
        };
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(ReadError::BadHead(400, "malformed header"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
        body: Vec::new(),
        keep_alive,
    };
    if let Some(conn) = request.header("connection") {
        let conn = conn.to_ascii_lowercase();
        if conn.contains("close") {
            keep_alive = false;
        } else if conn.contains("keep-alive") {
            keep_alive = true;
        }
    }
    request.keep_alive = keep_alive;
    Ok(request)
}

/// Where the head in `buffered` ends, once it is whole: `None` while more
/// may come. A head over [`MAX_HEAD_BYTES`] is refused whether it trickled
/// in or arrived in one read, and so is a line ended by a bare LF, which
/// would never reach the CRLF CRLF that ends a head.
pub(crate) fn head_end(buffered: &[u8]) -> Result<Option<usize>, ReadError> {
    let end = find_head_end(buffered);
    if end.unwrap_or(buffered.len()) > MAX_HEAD_BYTES {
        return Err(ReadError::BadHead(431, "request head too large"));
    }
    let head = &buffered[..end.unwrap_or(buffered.len())];
    if has_bare_lf(head) {
        return Err(ReadError::BadHead(400, "request lines must end with CRLF"));
    }
    Ok(end)
}

pub(crate) fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n")
}

/// Discards up to `max` bytes of an unread body, within `wait`, so that a
/// client still sending it sees the response rather than a reset.
pub(crate) fn drain(stream: &mut TcpStream, mut remaining: u64, wait: Duration) {
    let deadline = Instant::now() + wait;
    let mut chunk = [0u8; 16 * 1024];
    while remaining > 0 && Instant::now() < deadline {
        if stream.set_read_timeout(Some(POLL)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => remaining = remaining.saturating_sub(n as u64),
        }
    }
}

/// Writes a response; `keep_alive` says whether the connection stays open.
pub(crate) fn write_response(
    stream: &mut TcpStream,
    response: &Response,
    keep_alive: bool,
    timeout: Duration,
) -> io::Result<()> {
    stream.set_write_timeout(Some(timeout))?;
    let bytes = encode_response(response, keep_alive);
    stream.write_all(&bytes)?;
    stream.flush()
}

/// A response as written on the wire.
pub(crate) fn encode_response(response: &Response, keep_alive: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    // A 304 has no body, and no Content-Length that would describe one.
    if response.status != 304 {
        let _ = write!(out, "Content-Length: {}\r\n", response.body.len());
    }
    out.push_str(if keep_alive {
        "Connection: keep-alive\r\n"
    } else {
        "Connection: close\r\n"
    });
    for (name, value) in &response.headers {
        out.push_str(name);
        out.push_str(": ");
        out.push_str(value);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&response.body);
    bytes
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Content Too Large",
        428 => "Precondition Required",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}
