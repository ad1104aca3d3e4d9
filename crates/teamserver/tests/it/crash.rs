//! No acknowledged write is lost when the server process is killed with
//! SIGKILL mid-stream; and SIGTERM lets a request under way finish.
//!
//! The server runs as a separate process: this test binary re-executes
//! itself, running only [`child_server`], which serves the database named
//! in environment variables until it is killed. Run alone, `child_server`
//! does nothing. The same child serves PostgreSQL for `pg_processes.rs`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use memdir_teamserver::{Config, Server, SqliteStore, Store};
use serde_json::json;

use crate::support::Reply;

/// The database of the server process: a SQLite path or a PostgreSQL
/// connection string, as `BACKEND_VAR` says.
const DB_VAR: &str = "MEMDIR_TEAMSERVER_CRASH_CHILD_DB";
/// `sqlite` or `postgres`.
const BACKEND_VAR: &str = "MEMDIR_TEAMSERVER_CRASH_CHILD_BACKEND";

/// A database a server process can serve.
#[derive(Debug, Clone)]
pub(crate) enum Db {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL connection string.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    Postgres(String),
}

impl Db {
    /// Opens the database in this process.
    pub(crate) fn open(&self) -> Arc<dyn Store> {
        match self {
            Db::Sqlite(path) => Arc::new(SqliteStore::open(path).unwrap()),
            #[cfg(feature = "postgres")]
            Db::Postgres(url) => Arc::new(memdir_teamserver::PgStore::connect(url).unwrap()),
            #[cfg(not(feature = "postgres"))]
            Db::Postgres(_) => panic!("built without the postgres feature"),
        }
    }

    fn from_env() -> Option<Self> {
        let db = std::env::var(DB_VAR).ok()?;
        Some(match std::env::var(BACKEND_VAR).as_deref() {
            Ok("postgres") => Db::Postgres(db),
            _ => Db::Sqlite(PathBuf::from(db)),
        })
    }

    fn env(&self) -> [(&'static str, &std::ffi::OsStr); 2] {
        match self {
            Db::Sqlite(path) => [(DB_VAR, path.as_os_str()), (BACKEND_VAR, "sqlite".as_ref())],
            Db::Postgres(url) => [(DB_VAR, url.as_ref()), (BACKEND_VAR, "postgres".as_ref())],
        }
    }
}

/// Whether this process is a server child (then the other tests of the
/// binary must do nothing).
pub(crate) fn in_child() -> bool {
    std::env::var(DB_VAR).is_ok()
}

/// The server process's logger: the message of every record, one line on
/// stderr, as `memdir serve` writes them.
struct StderrLogger;

impl log::Log for StderrLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    #[allow(
        clippy::print_stderr,
        reason = "the parent process reads the log lines from stderr"
    )]
    fn log(&self, record: &log::Record<'_>) {
        eprintln!("{}", record.args());
    }

    fn flush(&self) {}
}

/// The server process: serves the database in `DB_VAR` until a signal
/// stops it. Without `DB_VAR` it does nothing.
#[test]
#[allow(
    clippy::print_stdout,
    reason = "the parent process reads the address from stdout"
)]
fn child_server() {
    let Some(db) = Db::from_env() else {
        return;
    };
    log::set_logger(&StderrLogger).unwrap();
    log::set_max_level(log::LevelFilter::Info);
    let store = db.open();
    // Request logs on: the parent reads them from stderr.
    let server = Server::bind("127.0.0.1:0", store, Config::default()).unwrap();
    server
        .run_until_signal(|addr| println!("LISTENING {addr}"))
        .unwrap();
}

/// A server process, killed when dropped.
pub(crate) struct ChildServer {
    pub(crate) child: Child,
    pub(crate) addr: String,
    /// Everything the server writes to stderr, once it has exited.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl ChildServer {
    pub(crate) fn start(db: &Db) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "crash::child_server",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .envs(db.env())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let addr = loop {
            line.clear();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "the server did not start"
            );
            // libtest writes "test crash::child_server ... " first.
            if let Some(at) = line.find("LISTENING ") {
                break line[at + "LISTENING ".len()..].trim().to_owned();
            }
        };
        // Keep reading, so that the child's last words do not meet a
        // closed pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        });
        Self {
            child,
            addr,
            stderr: Some(stderr),
        }
    }

    pub(crate) fn kill(&mut self) {
        // Child::kill is SIGKILL on Unix: no destructor, no flush, no
        // checkpoint runs in the server.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ChildServer {
    /// Waits for the server to exit; its exit status and stderr.
    fn exit(&mut self) -> (std::process::ExitStatus, String) {
        let status = self.child.wait().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (status, stderr)
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        self.kill();
    }
}

pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .proxy(None)
        .build()
        .into()
}

pub(crate) fn put(
    agent: &ureq::Agent,
    addr: &str,
    token: &str,
    if_match: Option<&str>,
    key: &str,
    value: &str,
) -> Option<Reply> {
    let mut req = agent
        .put(format!(
            "http://{addr}/api/claude_code/team_memory?repo=o/r"
        ))
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", "application/json");
    if let Some(m) = if_match {
        req = req.header("If-Match", m);
    }
    let mut resp = req
        .send(json!({"entries": {key: value}}).to_string())
        .ok()?;
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_json().ok()?;
    Some(Reply {
        status,
        etag: None,
        body,
    })
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    if in_child() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    acknowledged_writes_survive_sigkill_on(&Db::Sqlite(dir.path().join("team.db")));
}

/// Four writers PUT to a server process until it is killed (SIGKILL); a new
/// server process on the same database holds every acknowledged write.
pub(crate) fn acknowledged_writes_survive_sigkill_on(db: &Db) {
    let token = db.open().create_token("acme").unwrap().token;

    let mut server = ChildServer::start(db);
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (addr, token, acknowledged) = (
                server.addr.clone(),
                token.clone(),
                Arc::clone(&acknowledged),
            );
            std::thread::spawn(move || {
                let agent = agent();
                let mut seen: Option<String> = None;
                for i in 0.. {
                    let (key, value) = (format!("w{w}/{i}.md"), format!("value {w} {i}"));
                    loop {
                        // A transport error means the server is gone.
                        let Some(r) = put(&agent, &addr, &token, seen.as_deref(), &key, &value)
                        else {
                            return;
                        };
                        seen = r.body["checksum"].as_str().map(str::to_owned);
                        if r.status == 200 {
                            acknowledged.lock().unwrap().push((key, value));
                            break;
                        }
                        assert!(matches!(r.status, 412 | 428), "{}: {}", r.status, r.body);
                    }
                }
            })
        })
        .collect();
    // Let writes flow, then kill the server in the middle of them.
    let started = std::time::Instant::now();
    while acknowledged.lock().unwrap().len() < 100 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "writes stalled"
        );
        assert!(
            !writers.iter().all(std::thread::JoinHandle::is_finished),
            "writers stopped early"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();
    for w in writers {
        w.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();

    let server = ChildServer::start(db);
    let mut resp = agent()
        .get(format!(
            "http://{}/api/claude_code/team_memory?repo=o/r",
            server.addr
        ))
        .header("Authorization", format!("Bearer {token}"))
        .call()
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let body: serde_json::Value = resp.body_mut().read_json().unwrap();
    let entries = body["content"]["entries"].as_object().unwrap();
    for (key, value) in &acknowledged {
        assert_eq!(
            entries.get(key),
            Some(&json!(value)),
            "acknowledged {key} lost"
        );
    }
    // A PUT may commit and be killed before its answer: the server can
    // hold more than was acknowledged, never less.
    let version = body["version"].as_u64().unwrap();
    assert!(
        version >= acknowledged.len() as u64,
        "{version} < {}",
        acknowledged.len()
    );
    assert_eq!(entries.len() as u64, version);
}

#[test]
fn sigterm_finishes_the_request_under_way_and_exits() {
    use std::io::{Read, Write};

    if in_child() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("team.db");
    let token = SqliteStore::open(&db)
        .unwrap()
        .create_token("acme")
        .unwrap()
        .token;
    let mut server = ChildServer::start(&Db::Sqlite(db.clone()));

    let body = json!({"entries": {"k.md": "v"}}).to_string();
    let head = format!(
        "PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut s = std::net::TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&body.as_bytes()[..5]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(&body.as_bytes()[5..]).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(
        out.to_ascii_lowercase().contains("connection: close\r\n"),
        "{out}"
    );

    let (status, stderr) = server.exit();
    assert!(status.success(), "{status:?}");

    // One JSON line per request on stderr, naming the organisation and
    // never the token; then the shutdown.
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let request = lines.iter().find(|l| l["method"] == "PUT").unwrap();
    assert_eq!(request["status"], 200);
    assert_eq!(request["org"], "acme");
    assert_eq!(request["repo"], "o/r");
    assert_eq!(request["path"], "/api/claude_code/team_memory");
    assert!(request["durationMs"].is_u64());
    assert!(lines.iter().any(|l| l["signal"] == "SIGTERM"), "{stderr}");
    assert!(!stderr.contains(&token), "the token leaked into the log");
    let state = SqliteStore::open(&db)
        .unwrap()
        .get("acme", "o/r", memdir_protocol::View::Full)
        .unwrap();
    assert_eq!(state.unwrap().version, 1);
}
