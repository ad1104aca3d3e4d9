//! The stdio transport: memdir reads the client's lines itself, gives rmcp
//! only the messages it can take, and answers every other line.
//!
//! rmcp's own stdio transport leaves a line it cannot parse (not UTF-8, not
//! JSON, a number or a string `serde_json` cannot hold) without an answer,
//! drops a line over its length limit silently, and answers a JSON value
//! that is not a message with an error that has no `id` member. A client
//! waiting for its answer then waits forever. Here one thread reads lines of
//! at most [`MAX_MESSAGE_BYTES`] and judges each: a message rmcp parses goes
//! to rmcp; a line that is not one gets exactly one JSON-RPC error (-32700
//! when it is not JSON text, -32600 else, with the request's `id` when that
//! much could be read and `null` else); a blank line, a notification or a
//! response rmcp cannot take is dropped, as JSON-RPC never answers those.
//! One thread writes every outgoing line, rmcp's and these errors, so lines
//! never interleave.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::MAX_MESSAGE_BYTES;

/// How many parsed messages wait for rmcp; the reader waits when they are
/// there, so a fast client cannot make the server hold more.
const INCOMING_QUEUE: usize = 4;

/// How many lines wait for the writer.
const OUTGOING_QUEUE: usize = 32;

/// The UTF-8 byte order mark, which RFC 8259 lets a parser ignore.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line for the writer, or the end of the session.
enum Outgoing {
    /// One message with its newline; `written` hears how writing it went.
    Line {
        bytes: Vec<u8>,
        written: Option<oneshot::Sender<io::Result<()>>>,
    },
    /// Everything before this is written; the writer stops.
    End,
}

/// rmcp's side of the connection: the messages the reader let through,
/// and the writer's queue.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    outgoing: Option<mpsc::Sender<Outgoing>>,
}

/// The threads behind a [`LineTransport`].
pub(crate) struct Threads {
    writer: JoinHandle<()>,
    end: mpsc::Sender<Outgoing>,
}

impl Threads {
    /// Writes what is queued, then stops the writer. The reader is left to
    /// end with its input (or with the process): it may be waiting for a
    /// line that never comes.
    pub(crate) fn finish(self) {
        // The writer is gone already when a write failed.
        let _ = self.end.blocking_send(Outgoing::End);
        if self.writer.join().is_err() {
            log::warn!("the MCP output thread stopped abnormally");
        }
    }
}

/// Starts the reader of `input` and the writer of `output`; the transport
/// to give rmcp and the threads to finish when the session is over.
pub(crate) fn start<R, W>(input: R, output: W) -> io::Result<(LineTransport, Threads)>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (outgoing, lines) = mpsc::channel(OUTGOING_QUEUE);
    let (deliver, incoming) = mpsc::channel(INCOMING_QUEUE);
    let writer = std::thread::Builder::new()
        .name("memdir-mcp-write".to_owned())
        .spawn(move || write_lines(output, lines))?;
    let answers = outgoing.clone();
    let end = outgoing.clone();
    std::thread::Builder::new()
        .name("memdir-mcp-read".to_owned())
        .spawn(move || read_lines(input, &deliver, &answers))?;
    Ok((
        LineTransport {
            incoming,
            outgoing: Some(outgoing),
        },
        Threads { writer, end },
    ))
}

fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the MCP output is closed")
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        async move {
            let outgoing = outgoing.ok_or_else(closed)?;
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let (written, done) = oneshot::channel();
            outgoing
                .send(Outgoing::Line {
                    bytes,
                    written: Some(written),
                })
                .await
                .map_err(|_| closed())?;
            done.await.map_err(|_| closed())?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.outgoing = None;
        self.incoming.close();
        Ok(())
    }
}

/// Writes each queued line and flushes it, until the end of the session
/// or a failed write (the client is gone).
fn write_lines<W: Write>(mut output: W, mut lines: mpsc::Receiver<Outgoing>) {
    while let Some(Outgoing::Line { bytes, written }) = lines.blocking_recv() {
        let result = output.write_all(&bytes).and_then(|()| output.flush());
        let failed = result.is_err();
        match (written, result) {
            (Some(written), result) => {
                let _ = written.send(result);
            }
            (None, Err(e)) => log::warn!("cannot answer the MCP client: {e}"),
            (None, Ok(())) => {}
        }
        if failed {
            break;
        }
    }
}

/// What one bounded read of a line found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A whole line is in the buffer, without its `\n`; the last line of
    /// the input counts even without one.
    Read,
    /// The line is longer than the limit: the buffer is empty and the
    /// rest of the line is still to be skipped.
    TooLong,
    /// The input has ended.
    End,
}

/// Reads the next line into `line` (without its `\n`), never holding more
/// than `max` bytes of it: a longer line is reported as soon as it passes
/// the limit, and nothing more of it is read.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line.clear();
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::End
            } else {
                Line::Read
            });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let content = newline.unwrap_or(available.len());
        if line.len() + content > max {
            input.consume(content);
            line.clear();
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&available[..content]);
        if let Some(newline) = newline {
            input.consume(newline + 1);
            return Ok(Line::Read);
        }
        input.consume(content);
    }
}

/// Skips the input up to and with the next `\n`, holding none of it.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(());
        }
        if let Some(newline) = available.iter().position(|&b| b == b'\n') {
            input.consume(newline + 1);
            return Ok(());
        }
        let all = available.len();
        input.consume(all);
    }
}

/// Reads the client's lines until its input ends, sending each message to
/// rmcp and each error answer to the writer.
fn read_lines<R: Read>(
    input: R,
    deliver: &mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
    answers: &mpsc::Sender<Outgoing>,
) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        let verdict = match read_line(&mut input, &mut line, MAX_MESSAGE_BYTES) {
            Ok(Line::Read) => judge(&line),
            Ok(Line::TooLong) => {
                // The buffer grew to the limit; let it go.
                line = Vec::new();
                let error = ErrorData::invalid_request(
                    format!(
                        "invalid request: a message is at most {MAX_MESSAGE_BYTES} bytes; \
                         this line is longer and is skipped"
                    ),
                    None,
                );
                if !answer(answers, None, &error) {
                    return;
                }
                if let Err(e) = skip_line(&mut input) {
                    log::warn!("cannot read the MCP client's messages: {e}");
                    return;
                }
                continue;
            }
            Ok(Line::End) => return,
            Err(e) => {
                log::warn!("cannot read the MCP client's messages: {e}");
                return;
            }
        };
        let open = match verdict {
            Verdict::Deliver(message) => deliver.blocking_send(*message).is_ok(),
            Verdict::Ignore => true,
            Verdict::Refuse { id, error } => answer(answers, id, &error),
        };
        if !open {
            return;
        }
    }
}

/// Queues the error answer to a refused line; false when the writer is
/// gone.
fn answer(answers: &mpsc::Sender<Outgoing>, id: Option<RequestId>, error: &ErrorData) -> bool {
    log::info!("MCP message refused: {}", error.message);
    answers
        .blocking_send(Outgoing::Line {
            bytes: error_line(id, error),
            written: None,
        })
        .is_ok()
}

/// A JSON-RPC error answer with its newline. Its `id` member is there even
/// when `null`, as JSON-RPC 2.0 asks.
fn error_line(id: Option<RequestId>, error: &ErrorData) -> Vec<u8> {
    let id = id.map_or(Value::Null, RequestId::into_json_value);
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": error.code.0, "message": error.message},
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// What to do with one line of input.
#[derive(Debug)]
enum Verdict {
    /// A message for rmcp.
    Deliver(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to answer: a blank line, or a notification or a response
    /// that rmcp cannot take (JSON-RPC answers neither).
    Ignore,
    /// A line that is not a message rmcp can take, and the error to answer
    /// it with.
    Refuse {
        /// The request's id, when it could be read.
        id: Option<RequestId>,
        /// The error.
        error: ErrorData,
    },
}

/// Judges one line (without its `\n`).
fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    let refuse = |error| Verdict::Refuse {
        id: readable_id(line),
        error,
    };
    if std::str::from_utf8(line).is_err() {
        return refuse(ErrorData::parse_error(
            "parse error: the message is not UTF-8",
            None,
        ));
    }
    let not_a_message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Verdict::Deliver(Box::new(message)),
        Err(e) => e,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        // JSON text holding a number or a string serde_json cannot hold
        // (`1e400`, a lone surrogate `"\ud800"`): JSON, but no request.
        Err(e) if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() => {
            return refuse(ErrorData::invalid_request(
                format!("invalid request: {e}"),
                None,
            ));
        }
        Err(e) => return refuse(ErrorData::parse_error(format!("parse error: {e}"), None)),
    };
    if let Value::Object(fields) = &value {
        let notification = fields.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
            && fields.get("method").is_some_and(Value::is_string)
            && !fields.contains_key("id");
        // Never answer an answer: two peers could trade errors forever.
        let response = !fields.contains_key("method")
            && (fields.contains_key("result") || fields.contains_key("error"));
        if notification || response {
            log::debug!("MCP message ignored: {not_a_message}");
            return Verdict::Ignore;
        }
    }
    refuse(ErrorData::invalid_request(
        format!("invalid request: {not_a_message}"),
        None,
    ))
}

/// The `id` of a line that is a JSON object whose `id` member is a string
/// or an integer rmcp can answer to, whatever else the line holds.
fn readable_id(line: &[u8]) -> Option<RequestId> {
    #[derive(Deserialize)]
    struct Id {
        #[serde(default)]
        id: Option<RequestId>,
    }
    // A derived struct also reads from an array; only an object has an id.
    if !line.trim_ascii_start().starts_with(b"{") {
        return None;
    }
    serde_json::from_slice::<Id>(line).ok()?.id
}

#[cfg(test)]
mod tests;
