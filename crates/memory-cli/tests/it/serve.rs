//! `memdir serve`: tokens, and the server as a process on 127.0.0.1 until
//! SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .args(["serve", "--db", "team.db", "--bind", "127.0.0.1:0"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    (child, addr, lines)
}

#[test]
fn the_server_runs_until_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, addr, lines) = start_server(tmp.path());
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "exits 0 on SIGTERM");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l == "memdir: stopped"), "{rest:?}");
}
