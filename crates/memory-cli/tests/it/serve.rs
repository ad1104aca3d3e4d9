//! `memdir serve`: tokens, and the server as a process on 127.0.0.1 until
//! SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use memdir_testkit::PgDatabase;

use crate::{memdir_in, stderr, stdout};

#[test]
fn tokens_are_created_once_and_revoked_by_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    let out = memdir_in(
        tmp.path(),
        &[],
        [
            "serve",
            "--db",
            "team.db",
            "--create-token",
            "acme",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (token, prefix) = (j["token"].as_str().unwrap(), j["prefix"].as_str().unwrap());
    assert!(token.starts_with(prefix) && prefix.starts_with("mdt_"));
    assert!(stderr(&out).contains("shown only now"));
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", "team.db", "--revoke-token", prefix],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("revoked {prefix}"));
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", "team.db", "--revoke-token", prefix],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("memdir: no token with prefix"));
}

/// A `memdir serve` process on 127.0.0.1 with the database `team.db` in
/// `dir`, its address, and the rest of its stderr.
pub(crate) fn start_server(
    dir: &std::path::Path,
) -> (
    std::process::Child,
    String,
    std::io::Lines<BufReader<std::process::ChildStderr>>,
) {
    start_server_on(dir, "team.db")
}

/// As [`start_server`], on the database `db` (a path or a URL).
fn start_server_on(
    dir: &std::path::Path,
    db: &str,
) -> (
    std::process::Child,
    String,
    std::io::Lines<BufReader<std::process::ChildStderr>>,
) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["serve", "--db", db, "--bind", "127.0.0.1:0"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // Log lines (a schema migration) may come first.
    let first = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("http://"))
        .expect("a line with the address");
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    (child, addr, lines)
}

/// Sends one request on a fresh connection and reads the whole answer.
fn exchange(addr: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// SIGTERMs a server, checks it exits 0 saying so, and returns the rest of
/// its stderr.
fn stop(
    mut child: std::process::Child,
    lines: std::io::Lines<BufReader<std::process::ChildStderr>>,
) -> Vec<String> {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "exits 0 on SIGTERM");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l == "memdir: stopped"), "{rest:?}");
    rest
}

#[test]
fn the_server_runs_until_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let (child, addr, lines) = start_server(tmp.path());
    let response = exchange(
        &addr,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    stop(child, lines);
}

/// The password in a PostgreSQL URL, if it has one.
fn password_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let (userinfo, _) = rest.split_once('@')?;
    userinfo.split_once(':').map(|(_, p)| p)
}

#[test]
fn a_postgres_database_serves_and_keeps_tokens() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let url = db.url();
    assert!(url.starts_with("postgres"), "the test needs a URL: {url}");
    let secret = password_of(url);
    let tmp = tempfile::tempdir().unwrap();
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", url, "--create-token", "acme", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (token, prefix) = (j["token"].as_str().unwrap(), j["prefix"].as_str().unwrap());

    let (child, addr, lines) = start_server_on(tmp.path(), url);
    let body = r#"{"entries": {"k.md": "v"}}"#;
    let request = format!(
        "PUT /api/claude_code/team_memory?repo=o/r HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let response = exchange(&addr, request.as_bytes());
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"version\":1"), "{response}");
    let rest = stop(child, lines);
    if let Some(secret) = secret {
        assert!(!rest.iter().any(|l| l.contains(secret)), "{rest:?}");
    }

    // The token is in the database, so it can be revoked from anywhere.
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", url, "--revoke-token", prefix],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("revoked {prefix}"));
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", url, "--revoke-token", prefix],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("memdir: no token with prefix"));
    assert!(
        !tmp.path().join(url).exists() && std::fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "a URL is not a file name"
    );
}

#[test]
fn a_postgres_database_that_cannot_be_reached_is_one_line_without_the_password() {
    let tmp = tempfile::tempdir().unwrap();
    for url in [
        // Nobody listens on port 1.
        "postgres://memdir:s3cr3t-pw@127.0.0.1:1/team?connect_timeout=5",
        "postgresql://memdir:s3cr3t-pw@127.0.0.1:notaport/team",
        "postgresql://memdir:s3cr3t-pw@127.0.0.1/team?s3cr3t=1",
    ] {
        let out = memdir_in(
            tmp.path(),
            &[],
            ["serve", "--db", url, "--create-token", "acme"],
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("memdir: "), "{err}");
        assert!(!err.contains("s3cr3t"), "{err}");
        assert!(stdout(&out).is_empty());
    }
    let err = stderr(&memdir_in(
        tmp.path(),
        &[],
        [
            "serve",
            "--db",
            "postgres://memdir:s3cr3t-pw@127.0.0.1:1/team?connect_timeout=5",
        ],
    ));
    assert!(
        err.starts_with("memdir: cannot connect to postgres://memdir@127.0.0.1:1/team: "),
        "{err}"
    );
}
