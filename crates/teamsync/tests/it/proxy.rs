//! A counting TCP proxy: it forwards bytes both ways, counts what the
//! client sends, counts requests that start with `GET ` and `PUT `, and can
//! run a hook just before a PUT reaches the server.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Hook = (usize, Box<dyn FnMut() + Send>);

pub(crate) struct Proxy {
    pub(crate) url: String,
    sent: Arc<AtomicUsize>,
    puts: Arc<AtomicUsize>,
    gets: Arc<AtomicUsize>,
    hook: Arc<Mutex<Option<Hook>>>,
}

impl Proxy {
    pub(crate) fn start(upstream: std::net::SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let sent = Arc::new(AtomicUsize::new(0));
        let puts = Arc::new(AtomicUsize::new(0));
        let gets = Arc::new(AtomicUsize::new(0));
        let hook: Arc<Mutex<Option<Hook>>> = Arc::new(Mutex::new(None));
        let counters = (sent.clone(), puts.clone(), gets.clone(), hook.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(down) = conn else { continue };
                let up = TcpStream::connect(upstream).unwrap();
                let (mut down_r, mut up_w) = (down.try_clone().unwrap(), up.try_clone().unwrap());
                let (sent, puts, gets, hook) = (
                    counters.0.clone(),
                    counters.1.clone(),
                    counters.2.clone(),
                    counters.3.clone(),
                );
                std::thread::spawn(move || {
                    let mut buf = vec![0; 64 * 1024];
                    loop {
                        let len = match down_r.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(len) => len,
                        };
                        if buf[..len].starts_with(b"GET ") {
                            gets.fetch_add(1, Ordering::SeqCst);
                        }
                        if buf[..len].starts_with(b"PUT ") {
                            puts.fetch_add(1, Ordering::SeqCst);
                            let mut hook = hook.lock().unwrap();
                            if let Some((times, f)) = hook.as_mut() {
                                f();
                                *times -= 1;
                                if *times == 0 {
                                    *hook = None;
                                }
                            }
                        }
                        sent.fetch_add(len, Ordering::SeqCst);
                        if up_w.write_all(&buf[..len]).is_err() {
                            break;
                        }
                    }
                    let _ = up_w.shutdown(Shutdown::Write);
                });
                let (mut up_r, mut down_w) = (up, down);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut up_r, &mut down_w);
                    let _ = down_w.shutdown(Shutdown::Write);
                });
            }
        });
        Self {
            url,
            sent,
            puts,
            gets,
            hook,
        }
    }

    /// Bytes the client has sent so far.
    pub(crate) fn sent(&self) -> usize {
        self.sent.load(Ordering::SeqCst)
    }

    /// PUT requests seen so far.
    pub(crate) fn puts(&self) -> usize {
        self.puts.load(Ordering::SeqCst)
    }

    /// GET requests seen so far.
    pub(crate) fn gets(&self) -> usize {
        self.gets.load(Ordering::SeqCst)
    }

    /// Runs `hook` before each of the next `times` PUTs is forwarded.
    pub(crate) fn before_puts(&self, times: usize, hook: impl FnMut() + Send + 'static) {
        *self.hook.lock().unwrap() = Some((times, Box::new(hook)));
    }
}
