//! The scripted HTTP/1.1 server: each request gets the next reply of a
//! script, every request is recorded, and each connection carries one
//! exchange before it is closed.

use std::fmt::Write as _;
use std::io::{BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::wire;

/// How long the server waits for a request to arrive on a connection.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The status answered once the script is used up.
const PAST_THE_SCRIPT: u16 = 599;

/// One scripted answer: a status, headers, a body and a delay before it is
/// sent. `Content-Length` and `Connection: close` are always added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    delay: Duration,
}

impl Reply {
    /// A reply with `status` and a text body, without a content type.
    #[must_use]
    pub fn text(status: u16, body: &str) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
        }
    }

    /// A reply with `status`, `body` as JSON text and
    /// `content-type: application/json`.
    #[must_use]
    pub fn json(status: u16, body: &Value) -> Self {
        Reply::text(status, &body.to_string()).header("content-type", "application/json")
    }

    /// Adds a header, sent as given.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits this long after the request arrived before answering (a slow
    /// server, for timeout tests).
    #[must_use]
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The bytes sent for this reply.
    fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} Scripted\r\n", self.status);
        for (name, value) in &self.headers {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        let _ = write!(
            head,
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.body.len()
        );
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.body);
        bytes
    }
}

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The method, as sent (`GET`).
    pub method: String,
    /// The request target as sent: a path with its query, or an absolute
    /// URL (or `host:port` for `CONNECT`) when the server is used as a
    /// proxy.
    pub target: String,
    /// Header names lowercased, values trimmed, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body's payload (a chunked body decoded).
    pub body: Vec<u8>,
}

impl Recorded {
    /// The value of the first header called `name`, compared without case.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON, `Value::Null` when it is not JSON.
    #[must_use]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What the accept loop and the connection threads share.
struct Shared {
    /// The replies not yet given, and the requests so far, under one lock
    /// so that the n-th recorded request is the one given the n-th reply.
    state: Mutex<State>,
    stop: AtomicBool,
}

struct State {
    script: Script,
    requests: Vec<Recorded>,
}

/// Where the replies come from.
enum Script {
    /// Given in order of the requests' arrival.
    InOrder(std::vec::IntoIter<Reply>),
    /// Chosen for each request by what it holds (a real client that sends
    /// requests of its own, in an order no test fixes).
    Answering(Box<dyn Fn(&Recorded) -> Reply + Send>),
}

/// An HTTP/1.1 server on `127.0.0.1:<free port>` answering from a script.
/// It stops when dropped, without waiting for a scripted delay to run out.
pub struct ScriptedServer {
    addr: SocketAddr,
    url: String,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts a server that answers with `script`, in order of the
    /// requests' arrival; once the script is used up it answers 599 with a
    /// body saying so.
    #[must_use]
    pub fn start(script: Vec<Reply>) -> Self {
        ScriptedServer::serve(Script::InOrder(script.into_iter()))
    }

    /// Starts a server that answers each request with what `answer` gives
    /// for it (the requests before it are in [`ScriptedServer::requests`]).
    #[must_use]
    pub fn answering(answer: impl Fn(&Recorded) -> Reply + Send + 'static) -> Self {
        ScriptedServer::serve(Script::Answering(Box::new(answer)))
    }

    fn serve(script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                script,
                requests: Vec::new(),
            }),
            stop: AtomicBool::new(false),
        });
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || accept(&listener, &shared))
        };
        ScriptedServer {
            addr,
            url: format!("http://{addr}"),
            shared,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the server listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The requests received so far, in order of arrival.
    #[must_use]
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.state.lock().unwrap().requests.clone()
    }

    /// The one request received; panics unless exactly one arrived.
    #[must_use]
    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "requests: {requests:#?}");
        requests.into_iter().next().unwrap()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            // A panic there has shown its message already; the test's own
            // assertions decide the outcome.
            let _ = thread.join();
        }
    }
}

/// Hands each connection to a thread of its own, so that a slow client or
/// a delayed reply never holds up the next connection (a retry after a
/// timeout).
fn accept(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(shared);
        std::thread::spawn(move || exchange(stream, &shared));
    }
}

/// Reads one request, records it, and answers with the next reply.
fn exchange(mut stream: TcpStream, shared: &Shared) {
    if stream.set_read_timeout(Some(READ_TIMEOUT)).is_err() {
        return;
    }
    let mut reader = BufReader::new(&stream);
    // A connection that sends no complete request gets no reply and is
    // not recorded.
    let Ok(Some(head)) = wire::read_head(&mut reader) else {
        return;
    };
    let Ok(body) = wire::read_body(&mut reader, &head) else {
        return;
    };
    drop(reader);
    let reply = {
        let mut state = shared.state.lock().unwrap();
        let request = Recorded {
            method: head.method,
            target: head.target,
            headers: head.headers,
            body: body.payload,
        };
        let reply = match &mut state.script {
            Script::InOrder(replies) => replies.next().unwrap_or_else(|| {
                Reply::text(PAST_THE_SCRIPT, "the test script has no more replies")
            }),
            Script::Answering(answer) => answer(&request),
        };
        state.requests.push(request);
        reply
    };
    // Sleep in small steps so that a dropped server ends its delays.
    let until = Instant::now() + reply.delay;
    while Instant::now() < until && !shared.stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // The client may have given up (a timeout test); that is expected.
    let _ = stream.write_all(&reply.to_bytes());
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpStream};
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::{Reply, ScriptedServer};

    /// Sends `request` on a new connection and reads the whole answer.
    fn exchange(server: &ScriptedServer, request: &[u8]) -> String {
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.write_all(request).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn replies_follow_the_script_then_say_it_is_used_up() {
        let server = ScriptedServer::start(vec![
            Reply::text(200, "first").header("ETag", "\"e1\""),
            Reply::json(429, &json!({"error": "slow down"})).header("Retry-After", "2"),
        ]);
        let get = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(
            exchange(&server, get),
            "HTTP/1.1 200 Scripted\r\nETag: \"e1\"\r\nContent-Length: 5\r\n\
             Connection: close\r\n\r\nfirst"
        );
        let second = exchange(&server, get);
        assert!(second.starts_with("HTTP/1.1 429 "), "{second}");
        assert!(
            second.contains("\r\ncontent-type: application/json\r\n"),
            "{second}"
        );
        assert!(second.contains("\r\nRetry-After: 2\r\n"), "{second}");
        assert!(
            second.ends_with("\r\n\r\n{\"error\":\"slow down\"}"),
            "{second}"
        );
        let past = exchange(&server, get);
        assert!(past.starts_with("HTTP/1.1 599 "), "{past}");
        assert!(
            past.ends_with("the test script has no more replies"),
            "{past}"
        );
        assert_eq!(server.requests().len(), 3);
    }

    #[test]
    fn requests_are_recorded_as_sent() {
        let server = ScriptedServer::start(vec![Reply::text(200, ""), Reply::text(200, "")]);
        exchange(
            &server,
            b"PUT /r?x=1 HTTP/1.1\r\nX-Mixed-Case: Value  \r\nContent-Length: 7\r\n\r\n{\"a\":1}",
        );
        exchange(
            &server,
            b"GET http://remote.invalid/p HTTP/1.1\r\nHost: remote.invalid\r\n\r\n",
        );
        let [put, get] = server.requests().try_into().unwrap();
        assert_eq!(
            (put.method.as_str(), put.target.as_str()),
            ("PUT", "/r?x=1")
        );
        assert_eq!(put.header("X-MIXED-case"), Some("Value"));
        assert_eq!(put.headers[0].0, "x-mixed-case");
        assert_eq!(put.body, br#"{"a":1}"#);
        assert_eq!(put.json(), json!({"a": 1}));
        assert_eq!(get.target, "http://remote.invalid/p");
        assert_eq!(get.json(), serde_json::Value::Null);
        assert_eq!(get.header("content-length"), None);
    }

    #[test]
    fn an_incomplete_request_is_neither_recorded_nor_answered() {
        let server = ScriptedServer::start(vec![Reply::text(200, "kept")]);
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream
            .write_all(b"PUT / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
            .unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert_eq!(answer, "");
        assert!(server.requests().is_empty());
        // The reply is still there for the next request.
        assert!(exchange(&server, b"GET / HTTP/1.1\r\n\r\n").ends_with("kept"));
    }

    #[test]
    fn a_delayed_reply_does_not_hold_up_the_next_connection() {
        let server = ScriptedServer::start(vec![
            Reply::text(200, "late").delay(Duration::from_secs(30)),
            Reply::text(200, "on time"),
        ]);
        let mut slow = TcpStream::connect(server.addr()).unwrap();
        slow.write_all(b"GET /slow HTTP/1.1\r\n\r\n").unwrap();
        // Wait until the slow request has taken the first reply.
        while server.requests().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let started = Instant::now();
        assert!(exchange(&server, b"GET /fast HTTP/1.1\r\n\r\n").ends_with("on time"));
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn dropping_the_server_cuts_a_long_delay_short() {
        let server = ScriptedServer::start(vec![
            Reply::text(200, "late").delay(Duration::from_secs(60)),
        ]);
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        while server.requests().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let started = Instant::now();
        drop(server);
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(answer.ends_with("late"), "{answer}");
    }
}
