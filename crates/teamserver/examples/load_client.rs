//! The load generator of `bench/load.py`: keep-alive HTTP/1.1 connections
//! doing team-memory PUTs or hashes GETs against a server for a fixed
//! window, every latency printed as JSON.
//!
//! It exists because a Python client spends about 100 µs of CPU per
//! request, and a thread per connection adds a runnable thread per
//! connection: on a 2-core machine the clients then queue for the CPU, and
//! that wait is counted as the server's latency. This one is a hyper client
//! on one thread (a task per connection), a few µs of CPU per request. The
//! same client drives memdir and the reference server, so their ratio is
//! fair.
//!
//! ```text
//! cargo run --release -p memdir-teamserver --example load_client -- '{
//!   "port": 8080, "token": "…", "mode": "put", "repos": ["o/c00", "o/c01"],
//!   "seconds": 5.0, "if_match": true, "start_in": 1.0 }'
//! ```
//!
//! One connection per entry of `repos`, each one request at a time. `mode`
//! is `put` (one 200-byte entry over 16 keys per request, `Prefer:
//! return=minimal`, `If-Match` chained from each answer when `if_match` is
//! true; a 412 or 428 is retried with the checksum it carried, and not
//! counted) or `hashes` (GET the hashes view). `checksums` optionally gives
//! each connection its first `If-Match`; `first` numbers the entries' texts,
//! so that successive runs write new text. The window opens `start_in`
//! seconds after start (the connections are made before it). Output on
//! stdout: `{"latencies_us": [...], "counts": [...], "errors": n,
//! "checksums": [...]}`: a request counts for latency when it started
//! inside the window, for `counts` when it also ended inside it.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a measuring program: its report goes to stdout, its errors to stderr"
)]

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full, combinators::BoxBody};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::time::Instant;

#[derive(Deserialize)]
struct Plan {
    port: u16,
    token: String,
    mode: Mode,
    repos: Vec<String>,
    seconds: f64,
    #[serde(default)]
    if_match: bool,
    #[serde(default)]
    checksums: Vec<Option<String>>,
    #[serde(default)]
    start_in: f64,
    #[serde(default)]
    first: u64,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Put,
    Hashes,
}

const TEAM_MEMORY_PATH: &str = "/api/claude_code/team_memory";

/// An ASCII text of 200 bytes that differs for every `n` (as `entry_text`
/// in load.py).
fn entry_text(n: u64) -> String {
    let mut text = format!("---\nname: entry {n}\n---\n");
    text.extend(std::iter::repeat_n(
        'x',
        200usize.saturating_sub(text.len()),
    ));
    text.truncate(200);
    text
}

#[derive(Default)]
struct Outcome {
    latencies_us: Vec<u64>,
    count: u64,
    errors: u64,
    checksum: Option<String>,
}

type Body = BoxBody<Bytes, std::convert::Infallible>;

/// One exchange: the status and the body, or `None` when the connection
/// failed.
async fn exchange(
    sender: &mut http1::SendRequest<Body>,
    request: hyper::Request<Body>,
) -> Option<(u16, Bytes)> {
    sender.ready().await.ok()?;
    let response = sender.send_request(request).await.ok()?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.ok()?.to_bytes();
    Some((status, body))
}

async fn run_connection(
    plan: &Plan,
    index: usize,
    begin: Instant,
    deadline: Instant,
) -> Result<Outcome, String> {
    let stream = TcpStream::connect(("127.0.0.1", plan.port))
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (mut sender, conn) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::task::spawn_local(conn);
    let repo = &plan.repos[index];
    let target = match plan.mode {
        Mode::Put => format!("{TEAM_MEMORY_PATH}?repo={repo}"),
        Mode::Hashes => format!("{TEAM_MEMORY_PATH}?repo={repo}&view=hashes"),
    };
    let host = format!("127.0.0.1:{}", plan.port);
    let auth = format!("Bearer {}", plan.token);
    let mut out = Outcome {
        checksum: plan.checksums.get(index).cloned().flatten(),
        ..Outcome::default()
    };
    let mut n = plan.first + (index as u64) * 1_000_000;
    tokio::time::sleep_until(begin).await;
    loop {
        let started = Instant::now();
        if started >= deadline {
            break;
        }
        let builder = hyper::Request::builder()
            .uri(target.as_str())
            .header("host", host.as_str())
            .header("authorization", auth.as_str());
        let request = match plan.mode {
            Mode::Hashes => builder.method("GET").body(Empty::new().boxed()),
            Mode::Put => {
                n += 1;
                let key = format!("notes/k{:02}.md", n % 16);
                let body = json!({"entries": {key: entry_text(n)}}).to_string();
                let mut builder = builder
                    .method("PUT")
                    .header("content-type", "application/json")
                    .header("prefer", "return=minimal");
                if plan.if_match
                    && let Some(sum) = &out.checksum
                {
                    builder = builder.header("if-match", sum.as_str());
                }
                builder.body(Full::new(Bytes::from(body)).boxed())
            }
        }
        .map_err(|e| e.to_string())?;
        let answer = exchange(&mut sender, request).await;
        let ended = Instant::now();
        let Some((status, body)) = answer else {
            out.errors += 1;
            out.latencies_us.push(micros(ended - started));
            break; // the connection is gone
        };
        if plan.if_match
            && matches!(status, 200 | 412 | 428)
            && let Ok(answer) = serde_json::from_slice::<Value>(&body)
            && let Some(sum) = answer.get("checksum").and_then(Value::as_str)
        {
            out.checksum = Some(sum.to_owned());
        }
        if matches!(status, 412 | 428) && plan.mode == Mode::Put {
            continue; // retried with the checksum the answer carried
        }
        out.latencies_us.push(micros(ended - started));
        if status == 200 {
            if ended <= deadline {
                out.count += 1;
            }
        } else {
            out.errors += 1;
        }
    }
    Ok(out)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn main() {
    let Some(arg) = std::env::args().nth(1) else {
        eprintln!("usage: load_client '<plan as JSON>' (see the example's documentation)");
        std::process::exit(2);
    };
    let plan: Plan = match serde_json::from_str(&arg) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("load_client: the plan is not valid: {e}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    let outcomes = local.block_on(&runtime, async {
        let plan = std::rc::Rc::new(plan);
        let begin = Instant::now() + Duration::from_secs_f64(plan.start_in.max(0.0));
        let deadline = begin + Duration::from_secs_f64(plan.seconds.max(0.0));
        let tasks: Vec<_> = (0..plan.repos.len())
            .map(|i| {
                let plan = std::rc::Rc::clone(&plan);
                tokio::task::spawn_local(
                    async move { run_connection(&plan, i, begin, deadline).await },
                )
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            match task.await {
                Ok(Ok(outcome)) => outcomes.push(outcome),
                Ok(Err(e)) => {
                    eprintln!("load_client: {e}");
                    std::process::exit(1);
                }
                Err(e) => {
                    eprintln!("load_client: a connection task failed: {e}");
                    std::process::exit(1);
                }
            }
        }
        outcomes
    });
    let report = json!({
        "latencies_us": outcomes.iter().flat_map(|o| o.latencies_us.iter().copied()).collect::<Vec<_>>(),
        "counts": outcomes.iter().map(|o| o.count).collect::<Vec<_>>(),
        "errors": outcomes.iter().map(|o| o.errors).sum::<u64>(),
        "checksums": outcomes.iter().map(|o| o.checksum.clone()).collect::<Vec<_>>(),
    });
    println!("{report}");
}
