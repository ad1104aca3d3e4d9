//! 5xx and 429 against a scripted server: retried, honouring `Retry-After`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use memdir_teamsync::{Client, ErrorType};

/// Serves `answers` in order, one per connection, then stops.
fn scripted(answers: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for answer in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut stream = stream;
            stream.write_all(answer.as_bytes()).unwrap();
        }
    });
    url
}

fn answer(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    )
}

fn client(url: &str, team: &std::path::Path) -> Client {
    Client::new(url, team)
        .with_token(Some("t".to_owned()))
        .with_repo(Some("acme/widgets".to_owned()))
        .with_timeout(Duration::from_secs(10))
        .with_backoff(Duration::from_millis(10), Duration::from_secs(5))
}

#[test]
fn retries_5xx_and_429_honouring_retry_after() {
    let data = r#"{"organizationId":"acme","repo":"acme/widgets","version":1,"lastModified":null,"checksum":"sha256:00","content":{"entries":{"a.md":"from the server\n"},"entryChecksums":{}}}"#;
    let url = scripted(vec![
        answer("503 Service Unavailable", "", r#"{"error":"unavailable"}"#),
        answer(
            "429 Too Many Requests",
            "Retry-After: 1\r\n",
            r#"{"error":"slow down"}"#,
        ),
        answer("200 OK", "", data),
    ]);
    let team = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = client(&url, team.path()).pull();
    assert!(r.success, "{r:?}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(
        std::fs::read_to_string(team.path().join("a.md")).unwrap(),
        "from the server\n"
    );
}

#[test]
fn gives_up_after_three_retries() {
    let busy = answer("500 Internal Server Error", "", r#"{"error":"internal"}"#);
    let url = scripted(vec![busy; 4]);
    let team = tempfile::tempdir().unwrap();
    let r = client(&url, team.path()).pull();
    assert!(!r.success);
    assert_eq!(r.error_type, Some(ErrorType::Network), "{r:?}");
}
