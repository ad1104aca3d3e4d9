//! The server: a listening socket, a fixed pool of worker threads, request
//! logs through the `log` facade, and a shutdown that lets requests under
//! way finish.
//!
//! One thread accepts connections and hands them to the workers through a
//! bounded queue; each worker serves one connection at a time (HTTP/1.1
//! keep-alive). On shutdown the accept thread stops, and each worker
//! finishes the request it is serving, answers it with
//! `Connection: close`, serves the connections already queued, and exits.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use memdir_protocol::ErrorCode;
use serde_json::json;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::api::{self, Handled};
use crate::config::{Config, REQUEST_LOG_TARGET};
use crate::http::{self, ReadError, ReadLimits, Request, Response};
use crate::store::Store;

/// Errors starting a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A thread could not be started.
    #[error("cannot start a server thread")]
    Thread(#[source] io::Error),
    /// The SIGTERM and SIGINT handlers could not be installed.
    #[error("cannot install signal handlers")]
    Signals(#[source] io::Error),
}

/// A running server. Dropping it shuts it down.
///
/// ```
/// use std::sync::Arc;
/// use memdir_teamserver::{Config, Server, SqliteStore};
/// let dir = tempfile::tempdir()?;
/// let store = Arc::new(SqliteStore::open(&dir.path().join("team.db"))?);
/// let server = Server::bind("127.0.0.1:0", store, Config::default())?;
/// assert!(server.local_addr().ip().is_loopback());
/// server.shutdown();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Server {
    handle: ShutdownHandle,
    accept: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
}

/// Stops a server from another thread (a signal handler's thread, say).
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    stop: Arc<AtomicBool>,
    addr: SocketAddr,
}

impl ShutdownHandle {
    /// Asks the server to stop: no new connections; requests under way
    /// finish. Returns at once; [`Server::wait`] waits for the end.
    pub fn shutdown(&self) {
        if self.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the accept thread, blocked in accept(), with a connection
        // of our own; it sees the flag and stops.
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake.ip() {
                IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
    }
}

struct Shared {
    store: Arc<dyn Store>,
    config: Config,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Listens on `addr` and starts serving `store`.
    pub fn bind(
        addr: impl ToSocketAddrs + std::fmt::Debug,
        store: Arc<dyn Store>,
        config: Config,
    ) -> Result<Self, ServeError> {
        let listener = TcpListener::bind(&addr).map_err(|source| ServeError::Bind {
            addr: format!("{addr:?}"),
            source,
        })?;
        let local = listener.local_addr().map_err(|source| ServeError::Bind {
            addr: format!("{addr:?}"),
            source,
        })?;
        let stop = Arc::new(AtomicBool::new(false));
        let workers = config.workers.max(1);
        let shared = Arc::new(Shared {
            store,
            config,
            stop: Arc::clone(&stop),
        });
        let (tx, rx) = sync_channel::<TcpStream>(workers * 4);
        let rx = Arc::new(Mutex::new(rx));
        let mut server = Self {
            handle: ShutdownHandle { stop, addr: local },
            accept: None,
            workers: Vec::with_capacity(workers),
        };
        for i in 0..workers {
            let (rx, shared) = (Arc::clone(&rx), Arc::clone(&shared));
            let worker = std::thread::Builder::new()
                .name(format!("teamserver-worker-{i}"))
                .spawn(move || work(&rx, &shared))
                .map_err(ServeError::Thread)?;
            server.workers.push(worker);
        }
        let stop = Arc::clone(&shared.stop);
        let accept = std::thread::Builder::new()
            .name("teamserver-accept".to_owned())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    match conn {
                        Ok(stream) => {
                            if tx.send(stream).is_err() {
                                break;
                            }
                        }
                        // Out of descriptors and the like: back off, go on.
                        Err(_) => std::thread::sleep(Duration::from_millis(10)),
                    }
                }
            })
            .map_err(ServeError::Thread)?;
        server.accept = Some(accept);
        Ok(server)
    }

    /// The address the server listens on (with the port chosen, when
    /// bound to port 0).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.handle.addr
    }

    /// A handle that stops the server from elsewhere.
    #[must_use]
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.handle.clone()
    }

    /// Stops the server and waits until requests under way have finished.
    pub fn shutdown(mut self) {
        self.handle.shutdown();
        self.join();
    }

    /// Waits until the server has been stopped through a
    /// [`ShutdownHandle`] and its requests have finished.
    pub fn wait(mut self) {
        self.join();
    }

    /// Serves until SIGTERM or SIGINT, then stops as [`Server::shutdown`]
    /// does: no new connections, requests under way finish. `ready` is
    /// called with the listening address once the signal handlers are in
    /// place, so a signal sent as soon as the caller announces the server
    /// stops it gracefully. The signal is logged as a JSON line (`info`,
    /// target [`REQUEST_LOG_TARGET`]). While this runs, the signals no
    /// longer end the process at once (a stuck server needs SIGKILL).
    pub fn run_until_signal(self, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
        let mut signals = Signals::new([SIGTERM, SIGINT]).map_err(ServeError::Signals)?;
        let signals_handle = signals.handle();
        let shutdown = self.shutdown_handle();
        let watcher = std::thread::Builder::new()
            .name("teamserver-signals".to_owned())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let name = if signal == SIGTERM {
                        "SIGTERM"
                    } else {
                        "SIGINT"
                    };
                    log::info!(
                        target: REQUEST_LOG_TARGET,
                        "{}",
                        json!({"level": "info", "event": "shutdown", "signal": name})
                    );
                    shutdown.shutdown();
                }
            })
            .map_err(ServeError::Thread)?;
        ready(self.local_addr());
        self.wait();
        // Stopped through another handle: end the watcher too.
        signals_handle.close();
        let _ = watcher.join();
        Ok(())
    }

    fn join(&mut self) {
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.handle.shutdown();
        self.join();
    }
}

fn work(rx: &Mutex<Receiver<TcpStream>>, shared: &Shared) {
    loop {
        let next = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(stream) = next else {
            // The accept thread is gone and the queue is empty.
            return;
        };
        serve_connection(stream, shared);
    }
}

fn serve_connection(mut stream: TcpStream, shared: &Shared) {
    let config = &shared.config;
    let limits = ReadLimits {
        idle: config.idle_timeout,
        request: config.request_timeout,
        max_body: config.max_body_bytes,
    };
    let _ = stream.set_nodelay(true);
    let mut buffered = Vec::new();
    loop {
        let started = Instant::now();
        let request = match http::read_request(&mut stream, &mut buffered, limits, &shared.stop) {
            Ok(request) => request,
            Err(ReadError::Closed | ReadError::Io) => return,
            Err(e) => {
                let (response, drain) = api::refusal(&e, config.max_body_bytes);
                let _ = http::write_response(&mut stream, &response, false, config.request_timeout);
                log(config, None, &response, started, &Handled::default());
                if let Some(length) = drain {
                    http::drain(&mut stream, length, config.request_timeout);
                }
                return;
            }
        };
        let store = &*shared.store;
        let (response, handled) =
            catch_unwind(AssertUnwindSafe(|| api::handle(store, config, &request))).unwrap_or_else(
                |_| {
                    let response = api::error(500, ErrorCode::Internal, "internal server error");
                    (response, Handled::default())
                },
            );
        let keep_alive = request.keep_alive && !shared.stop.load(Ordering::SeqCst);
        let written =
            http::write_response(&mut stream, &response, keep_alive, config.request_timeout);
        log(config, Some(&request), &response, started, &handled);
        if written.is_err() || !keep_alive {
            return;
        }
    }
}

fn log(
    config: &Config,
    request: Option<&Request>,
    response: &Response,
    started: Instant,
    handled: &Handled,
) {
    if !config.log_requests {
        return;
    }
    let line = json!({
        "time": Timestamp::now().to_string(),
        "method": request.map(|r| r.method.as_str()),
        "path": request.map(|r| r.target.split('?').next().unwrap_or_default()),
        "repo": handled.repo,
        "org": handled.org,
        "status": response.status,
        "durationMs": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    log::info!(target: REQUEST_LOG_TARGET, "{line}");
}
