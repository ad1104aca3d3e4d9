//! Reading HTTP/1.1 requests off a stream: the head, then a body framed by
//! `Content-Length` or chunked transfer coding.

use std::io::{self, BufRead, Read};

/// The longest request head read, so a stream of garbage cannot grow a
/// buffer without end.
const MAX_HEAD: usize = 64 * 1024;

/// A request head: its bytes as received, and what they say.
pub(crate) struct Head {
    pub(crate) raw: Vec<u8>,
    pub(crate) method: String,
    pub(crate) target: String,
    /// Names lowercased, values trimmed, in the order received.
    pub(crate) headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A request body: its bytes as received (chunk framing included), and
/// the payload they carry.
pub(crate) struct Body {
    pub(crate) raw: Vec<u8>,
    pub(crate) payload: Vec<u8>,
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

/// One line, `\n` included; an error at the end of the stream.
fn line(reader: &mut impl BufRead, raw: &mut Vec<u8>) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    reader
        .by_ref()
        .take(MAX_HEAD as u64)
        .read_until(b'\n', &mut line)?;
    if !line.ends_with(b"\n") {
        return Err(invalid("the request ended inside a line"));
    }
    raw.extend_from_slice(&line);
    Ok(line)
}

/// The next request head, or `None` when the stream ends before it starts.
pub(crate) fn read_head(reader: &mut impl BufRead) -> io::Result<Option<Head>> {
    if reader.fill_buf()?.is_empty() {
        return Ok(None);
    }
    let mut raw = Vec::new();
    let request_line = line(reader, &mut raw)?;
    let request_line = String::from_utf8_lossy(&request_line);
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(invalid("the request line has no method and target"));
    };
    let (method, target) = (method.to_owned(), target.to_owned());
    let mut headers = Vec::new();
    loop {
        let header = line(reader, &mut raw)?;
        if raw.len() > MAX_HEAD {
            return Err(invalid("the request head is too long"));
        }
        let header = String::from_utf8_lossy(&header);
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| invalid("a header line has no colon"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    Ok(Some(Head {
        raw,
        method,
        target,
        headers,
    }))
}

/// The body that follows `head`: chunked when `Transfer-Encoding` says so,
/// else `Content-Length` bytes (none without the header).
pub(crate) fn read_body(reader: &mut impl BufRead, head: &Head) -> io::Result<Body> {
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if !chunked {
        let length = match head.header("content-length") {
            Some(v) => v.parse().map_err(|_| invalid("a bad Content-Length"))?,
            None => 0,
        };
        let mut payload = vec![0; length];
        reader.read_exact(&mut payload)?;
        return Ok(Body {
            raw: payload.clone(),
            payload,
        });
    }
    let mut raw = Vec::new();
    let mut payload = Vec::new();
    loop {
        let size_line = line(reader, &mut raw)?;
        let size_line = String::from_utf8_lossy(&size_line);
        let size = size_line.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| invalid("a bad chunk size"))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while line(reader, &mut raw)? != b"\r\n" {}
            return Ok(Body { raw, payload });
        }
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        raw.extend_from_slice(&chunk);
        payload.extend_from_slice(&chunk[..size]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> io::Result<(Head, Body)> {
        let mut reader = bytes;
        let head = read_head(&mut reader)?.unwrap();
        let body = read_body(&mut reader, &head)?;
        assert!(
            reader.is_empty(),
            "left over: {:?}",
            String::from_utf8_lossy(reader)
        );
        Ok((head, body))
    }

    #[test]
    fn a_content_length_body_is_read_exactly() {
        let bytes = b"PUT /a?b=c HTTP/1.1\r\nHost: x\r\nContent-LENGTH:  3 \r\n\r\nabc";
        let (head, body) = parse(bytes).unwrap();
        assert_eq!(
            (head.method.as_str(), head.target.as_str()),
            ("PUT", "/a?b=c")
        );
        assert_eq!(
            head.headers,
            [
                ("host".to_owned(), "x".to_owned()),
                ("content-length".to_owned(), "3".to_owned())
            ]
        );
        assert_eq!(head.raw, &bytes[..bytes.len() - 3]);
        assert_eq!(
            (body.raw.as_slice(), body.payload.as_slice()),
            (&b"abc"[..], &b"abc"[..])
        );
    }

    #[test]
    fn a_chunked_body_is_decoded_and_kept_as_sent() {
        let chunks = b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n";
        let mut bytes = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        bytes.extend_from_slice(chunks);
        let (_, body) = parse(&bytes).unwrap();
        assert_eq!(body.payload, b"abcde");
        assert_eq!(body.raw, chunks);
    }

    #[test]
    fn an_empty_stream_has_no_head_and_broken_ones_are_errors() {
        assert!(read_head(&mut &b""[..]).unwrap().is_none());
        for broken in [
            &b"GET / HTTP/1.1\r\nHost: x\r\n"[..],
            b"GET\r\n\r\n",
            b"GET / HTTP/1.1\r\nno colon\r\n\r\n",
            b"PUT / HTTP/1.1\r\nContent-Length: ten\r\n\r\n",
            b"PUT / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc",
            b"PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            assert!(
                parse(broken).is_err(),
                "{}",
                String::from_utf8_lossy(broken)
            );
        }
        let endless = vec![b'a'; MAX_HEAD * 2];
        assert!(parse(&endless).is_err());
    }
}
