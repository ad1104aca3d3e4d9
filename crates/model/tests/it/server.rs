//! A scripted model server on 127.0.0.1: it answers each request with the
//! next entry of a script (status, headers, body, delay) and records what it
//! received, so tests can assert the exact wire format the client sent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

/// One scripted answer.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
}

impl Reply {
    /// A JSON body with the given status.
    pub(crate) fn json(status: u16, body: &Value) -> Self {
        Reply::text(status, &body.to_string()).header("content-type", "application/json")
    }

    /// A raw body with the given status.
    pub(crate) fn text(status: u16, body: &str) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
            delay: Duration::ZERO,
        }
    }

    /// Adds a response header.
    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits this long before answering.
    pub(crate) fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) method: String,
    pub(crate) path: String,
    /// Header names lowercased, in the order received.
    pub(crate) headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` if it is not JSON).
    pub(crate) body: Value,
}

impl Recorded {
    /// The value of a header, by case-insensitive name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The server; it stops when dropped.
pub(crate) struct ScriptedServer {
    url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    /// Starts a server that answers with `script`, in order; once the
    /// script is used up it answers 599 with a note saying so.
    pub(crate) fn start(script: Vec<Reply>) -> Self {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let addr = server.server_addr().to_ip().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (requests, stop) = (Arc::clone(&requests), Arc::clone(&stop));
            std::thread::spawn(move || serve(&server, script, &requests, &stop))
        };
        ScriptedServer {
            url: format!("http://{addr}"),
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The requests received so far.
    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// The one request received; fails unless exactly one arrived.
    pub(crate) fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "requests: {requests:#?}");
        requests.into_iter().next().unwrap()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            // A panic in the server thread has already shown its message;
            // the test's own assertions decide the outcome.
            let _ = thread.join();
        }
    }
}

fn serve(
    server: &tiny_http::Server,
    script: Vec<Reply>,
    requests: &Mutex<Vec<Recorded>>,
    stop: &AtomicBool,
) {
    let mut script = script.into_iter();
    while !stop.load(Ordering::SeqCst) {
        let Ok(Some(mut request)) = server.recv_timeout(Duration::from_millis(20)) else {
            continue;
        };
        let mut raw = String::new();
        // A body that cannot be read is recorded as empty.
        let _ = request.as_reader().read_to_string(&mut raw);
        requests.lock().unwrap().push(Recorded {
            method: request.method().to_string(),
            path: request.url().to_owned(),
            headers: request
                .headers()
                .iter()
                .map(|h| {
                    (
                        h.field.as_str().as_str().to_ascii_lowercase(),
                        h.value.as_str().to_owned(),
                    )
                })
                .collect(),
            body: serde_json::from_str(&raw).unwrap_or(Value::Null),
        });

        let reply = script
            .next()
            .unwrap_or_else(|| Reply::text(599, "the test script has no more replies"));
        // Sleep in small steps so that dropping the server is not held up by
        // a long scripted delay.
        let until = Instant::now() + reply.delay;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut response =
            tiny_http::Response::from_string(reply.body).with_status_code(reply.status);
        for (name, value) in &reply.headers {
            response.add_header(
                tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap(),
            );
        }
        // The client may have given up (a timeout test); that is expected.
        let _ = request.respond(response);
    }
}
