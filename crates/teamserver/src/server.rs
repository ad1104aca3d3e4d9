//! The server: a listening socket served by a tokio runtime on a thread of
//! its own, hyper for HTTP/1.1, request logs through the `log` facade,
//! and a shutdown that lets requests under way finish.
//!
//! Every connection is a task, so an idle or slow client costs a little
//! memory, not a worker: a request is never stuck behind other
//! connections. The bounds are explicit ([`Config`]): connections open at
//! once, handlers running at once (their database calls run on tokio's
//! blocking pool), the time a head may take, the body's size (refused
//! from its declared length, before it is read) and its deadline. On
//! shutdown the server stops accepting, closes idle connections, lets each
//! request under way finish and answer with `Connection: close`, then
//! stops — after at most the request deadline.

use std::io;
use std::net::{SocketAddr, TcpListener as StdListener, ToSocketAddrs};
use std::pin::pin;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use crate::config::{Config, REQUEST_LOG_TARGET};
use crate::http::MAX_HEAD_BYTES;
use crate::service::{self, Ctx, Handler};
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
    /// A thread, or the async runtime, could not be started.
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
    thread: Option<JoinHandle<()>>,
}

/// Stops a server from another thread (a signal handler's thread, say).
#[derive(Debug, Clone)]
pub struct ShutdownHandle {
    stop: Arc<watch::Sender<bool>>,
    addr: SocketAddr,
}

impl ShutdownHandle {
    /// Asks the server to stop: no new connections; requests under way
    /// finish. Returns at once; [`Server::wait`] waits for the end.
    pub fn shutdown(&self) {
        self.stop.send_replace(true);
    }
}

/// What every connection of a server shares.
struct Shared {
    store: Arc<dyn Store>,
    config: Arc<Config>,
    in_flight: Semaphore,
    stopping: watch::Receiver<bool>,
}

impl Server {
    /// Listens on `addr` and starts serving `store`.
    pub fn bind(
        addr: impl ToSocketAddrs + std::fmt::Debug,
        store: Arc<dyn Store>,
        config: Config,
    ) -> Result<Self, ServeError> {
        let bind_error = |source| ServeError::Bind {
            addr: format!("{addr:?}"),
            source,
        };
        let listener = StdListener::bind(&addr).map_err(bind_error)?;
        let local = listener.local_addr().map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let mut runtime = tokio::runtime::Builder::new_multi_thread();
        if config.workers > 0 {
            runtime.worker_threads(config.workers);
        }
        let runtime = runtime
            .max_blocking_threads(config.max_in_flight.max(1) + 4)
            .thread_name("teamserver")
            .enable_all()
            .build()
            .map_err(ServeError::Thread)?;
        let listener = {
            let _entered = runtime.enter();
            TcpListener::from_std(listener).map_err(bind_error)?
        };
        let (stop, stopped) = watch::channel(false);
        let shared = Arc::new(Shared {
            store,
            in_flight: Semaphore::new(config.max_in_flight.max(1)),
            config: Arc::new(config),
            stopping: stopped.clone(),
        });
        let thread = std::thread::Builder::new()
            .name("teamserver".to_owned())
            .spawn(move || {
                runtime.block_on(accept_loop(listener, shared, stopped));
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(ServeError::Thread)?;
        Ok(Self {
            handle: ShutdownHandle {
                stop: Arc::new(stop),
                addr: local,
            },
            thread: Some(thread),
        })
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
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.handle.shutdown();
        self.join();
    }
}

/// Accepts connections until told to stop, then waits for the open ones
/// to finish (at most the request deadline, plus the time a head may
/// take).
async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let config = Arc::clone(&shared.config);
    let max_connections = config.max_connections.max(1);
    let connections = Arc::new(Semaphore::new(max_connections));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.idle_timeout)
        .max_header_size(MAX_HEAD_BYTES);
    let http = Arc::new(http);
    loop {
        let mut stopped = stop.clone();
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => permit,
            () = until_stopped(&mut stopped) => break,
        };
        let Ok(permit) = permit else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = until_stopped(&mut stopped) => break,
        };
        let Ok((stream, _)) = accepted else {
            // Out of descriptors and the like: back off, go on.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (shared, http) = (Arc::clone(&shared), Arc::clone(&http));
        tokio::spawn(async move {
            let _permit = permit;
            let service = service_fn(|req| {
                let shared = Arc::clone(&shared);
                async move {
                    let ctx = Ctx {
                        handler: Handler::Blocking(&shared.store, &shared.config),
                        in_flight: Some(&shared.in_flight),
                        stopping: Some(&shared.stopping),
                    };
                    service::serve(&ctx, req).await
                }
            });
            let mut conn = pin!(http.serve_connection(TokioIo::new(stream), service));
            tokio::select! {
                _ = conn.as_mut() => {}
                () = until_stopped(&mut stopped) => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(listener);
    let all = u32::try_from(max_connections).unwrap_or(u32::MAX);
    let deadline = config.request_timeout + config.idle_timeout;
    let _ = tokio::time::timeout(deadline, connections.acquire_many(all)).await;
}

/// Returns once the server is told to stop (at once if it was).
async fn until_stopped(stop: &mut watch::Receiver<bool>) {
    // A closed channel means the server is gone: stop too.
    let _ = stop.wait_for(|stopped| *stopped).await;
}
