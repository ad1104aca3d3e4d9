//! The counting proxy: it forwards each connection to an upstream address,
//! reading the client's side as HTTP/1.1 requests so that it can count them
//! by method and run a hook before chosen ones are forwarded.

use std::collections::BTreeMap;
use std::io::{BufReader, Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::wire;

/// A hook waiting for requests of one method.
struct Hook {
    method: String,
    times: usize,
    run: Box<dyn FnMut() + Send>,
}

/// What the accept loop and the connection threads share.
#[derive(Default)]
struct Shared {
    sent: AtomicUsize,
    received: AtomicUsize,
    requests: Mutex<BTreeMap<String, usize>>,
    hook: Mutex<Option<Hook>>,
    stop: AtomicBool,
    /// Every stream opened, so that dropping the proxy ends them all.
    streams: Mutex<Vec<TcpStream>>,
}

impl Shared {
    /// Counts a request and runs the hook if it waits for its method. The
    /// hook runs outside the lock: a request it sends through this proxy
    /// is counted but does not run the hook again.
    fn before(&self, method: &str) {
        *self
            .requests
            .lock()
            .unwrap()
            .entry(method.to_owned())
            .or_default() += 1;
        let taken = {
            let mut slot = self.hook.lock().unwrap();
            match slot.as_ref() {
                Some(hook) if hook.method == method => slot.take(),
                _ => None,
            }
        };
        if let Some(mut hook) = taken {
            (hook.run)();
            hook.times -= 1;
            let mut slot = self.hook.lock().unwrap();
            // A hook set while this one ran replaces it.
            if hook.times > 0 && slot.is_none() {
                *slot = Some(hook);
            }
        }
    }
}

/// A proxy on `127.0.0.1:<free port>` in front of an upstream address.
/// Clients talk HTTP/1.1 to it as they would to the upstream server
/// (keep-alive included; bodies framed by `Content-Length` or chunked);
/// a connection whose bytes are not HTTP is cut. It stops when dropped,
/// closing every connection it carries.
pub struct Proxy {
    addr: SocketAddr,
    url: String,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Proxy {
    /// Starts a proxy that forwards each connection to `upstream`.
    #[must_use]
    pub fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared::default());
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || accept(&listener, upstream, &shared))
        };
        Proxy {
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

    /// The address the proxy listens on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bytes the upstream has sent back to clients so far (response
    /// heads and bodies).
    #[must_use]
    pub fn received(&self) -> usize {
        self.shared.received.load(Ordering::SeqCst)
    }

    /// The bytes clients have sent so far (request heads and bodies as
    /// forwarded).
    #[must_use]
    pub fn sent(&self) -> usize {
        self.shared.sent.load(Ordering::SeqCst)
    }

    /// The requests with `method` (`"PUT"`, compared exactly) seen so far.
    #[must_use]
    pub fn requests(&self, method: &str) -> usize {
        self.shared
            .requests
            .lock()
            .unwrap()
            .get(method)
            .copied()
            .unwrap_or(0)
    }

    /// Runs `hook` before each of the next `times` requests with `method`
    /// is forwarded (another writer slipping in before a `PUT`), replacing
    /// any hook set before.
    pub fn before(&self, method: &str, times: usize, hook: impl FnMut() + Send + 'static) {
        *self.shared.hook.lock().unwrap() = (times > 0).then(|| Hook {
            method: method.to_owned(),
            times,
            run: Box::new(hook),
        });
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        for stream in self.shared.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

fn accept(listener: &TcpListener, upstream: SocketAddr, shared: &Arc<Shared>) {
    for down in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(down) = down else { continue };
        // An upstream that is gone closes the client's connection.
        let Ok(up) = TcpStream::connect(upstream) else {
            continue;
        };
        {
            let mut streams = shared.streams.lock().unwrap();
            streams.push(down.try_clone().unwrap());
            streams.push(up.try_clone().unwrap());
        }
        let (down_r, up_w) = (down.try_clone().unwrap(), up.try_clone().unwrap());
        let requests_shared = Arc::clone(shared);
        std::thread::spawn(move || forward_requests(&down_r, up_w, &requests_shared));
        let (mut up_r, mut down_w) = (up, down);
        let shared = Arc::clone(shared);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 16 * 1024];
            while let Ok(n) = up_r.read(&mut chunk) {
                if n == 0 || down_w.write_all(&chunk[..n]).is_err() {
                    break;
                }
                shared.received.fetch_add(n, Ordering::SeqCst);
            }
            let _ = down_w.shutdown(Shutdown::Write);
        });
    }
}

/// Client to upstream: request by request, the hook before the head is
/// forwarded, the body after it (so `Expect: 100-continue` still works).
fn forward_requests(down: &TcpStream, mut up: TcpStream, shared: &Shared) {
    let mut reader = BufReader::new(down);
    while let Ok(Some(head)) = wire::read_head(&mut reader) {
        shared.before(&head.method);
        shared.sent.fetch_add(head.raw.len(), Ordering::SeqCst);
        if up.write_all(&head.raw).is_err() {
            break;
        }
        let Ok(body) = wire::read_body(&mut reader, &head) else {
            break;
        };
        shared.sent.fetch_add(body.raw.len(), Ordering::SeqCst);
        if up.write_all(&body.raw).is_err() {
            break;
        }
    }
    let _ = up.shutdown(Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::Proxy;
    use crate::{Reply, ScriptedServer};

    /// One exchange through the proxy on a new connection.
    fn exchange(proxy: &Proxy, request: &[u8]) -> String {
        let mut stream = TcpStream::connect(proxy.addr()).unwrap();
        stream.write_all(request).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn requests_and_answers_pass_through_and_are_counted() {
        let server = ScriptedServer::start(vec![Reply::text(200, "one"), Reply::text(201, "two")]);
        let proxy = Proxy::start(server.addr());
        let put = b"PUT /k HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
        let get = b"GET /k?view=hashes HTTP/1.1\r\nHost: h\r\n\r\n";
        let first = exchange(&proxy, put);
        let second = exchange(&proxy, get);
        assert!(first.ends_with("\r\n\r\none"));
        assert!(second.ends_with("\r\n\r\ntwo"));
        assert_eq!(proxy.sent(), put.len() + get.len());
        assert_eq!(proxy.received(), first.len() + second.len());
        assert_eq!((proxy.requests("PUT"), proxy.requests("GET")), (1, 1));
        assert_eq!(proxy.requests("POST"), 0);
        let [seen_put, seen_get] = server.requests().try_into().unwrap();
        assert_eq!(
            (seen_put.target.as_str(), seen_put.body.as_slice()),
            ("/k", &b"hello"[..])
        );
        assert_eq!(seen_get.target, "/k?view=hashes");
    }

    #[test]
    fn requests_on_one_connection_are_told_apart_and_forwarded_unchanged() {
        // An upstream that echoes every byte back, so the proxy sees
        // several requests on one connection, split and joined across
        // writes, and a body that looks like a request.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let upstream = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut received = Vec::new();
            stream.read_to_end(&mut received).unwrap();
            stream.write_all(&received).unwrap();
        });
        let proxy = Proxy::start(upstream);
        let mut stream = TcpStream::connect(proxy.addr()).unwrap();
        let requests = b"GET /a HTTP/1.1\r\n\r\n\
            PUT /b HTTP/1.1\r\nContent-Length: 9\r\n\r\nGET /evil\
            POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nGET \r\n0\r\n\r\n";
        stream.write_all(&requests[..10]).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        stream.write_all(&requests[10..]).unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        let mut echoed = Vec::new();
        stream.read_to_end(&mut echoed).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&echoed),
            String::from_utf8_lossy(requests)
        );
        assert_eq!(
            (
                proxy.requests("GET"),
                proxy.requests("PUT"),
                proxy.requests("POST")
            ),
            (1, 1, 1),
            "bodies are not requests"
        );
        assert_eq!(proxy.sent(), requests.len());
    }

    #[test]
    fn the_hook_runs_before_the_next_requests_of_its_method() {
        let server = ScriptedServer::start(vec![]);
        let proxy = Proxy::start(server.addr());
        let runs = Arc::new(AtomicUsize::new(0));
        {
            let runs = Arc::clone(&runs);
            proxy.before("PUT", 2, move || {
                runs.fetch_add(1, Ordering::SeqCst);
            });
        }
        let put = b"PUT / HTTP/1.1\r\nContent-Length: 0\r\n\r\n";
        exchange(&proxy, b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(
            runs.load(Ordering::SeqCst),
            0,
            "a GET does not run a PUT hook"
        );
        for expected in [1, 2, 2] {
            exchange(&proxy, put);
            assert_eq!(runs.load(Ordering::SeqCst), expected);
        }
        assert_eq!(proxy.requests("PUT"), 3);
    }

    #[test]
    fn the_hook_runs_before_the_request_reaches_upstream() {
        let server = Arc::new(ScriptedServer::start(vec![Reply::text(200, "")]));
        let proxy = Proxy::start(server.addr());
        let upstream_had = Arc::new(Mutex::new(None));
        {
            let (server, upstream_had) = (Arc::clone(&server), Arc::clone(&upstream_had));
            proxy.before("PUT", 1, move || {
                *upstream_had.lock().unwrap() = Some(server.requests().len());
            });
        }
        exchange(&proxy, b"PUT / HTTP/1.1\r\nContent-Length: 2\r\n\r\nok");
        assert_eq!(*upstream_had.lock().unwrap(), Some(0));
        assert_eq!(server.requests().len(), 1);
    }

    #[test]
    fn dropping_the_proxy_closes_its_connections() {
        let server = ScriptedServer::start(vec![]);
        let proxy = Proxy::start(server.addr());
        let mut stream = TcpStream::connect(proxy.addr()).unwrap();
        // A request head that never completes keeps the connection open.
        stream.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(proxy);
        let mut rest = Vec::new();
        // Closed (an end of stream or a reset), not hanging.
        let _ = stream.read_to_end(&mut rest);
        assert!(rest.is_empty());
    }
}
