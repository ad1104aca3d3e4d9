//! One exchange at a time: what goes on the wire, statuses as data, the
//! body limit, timeouts and refused connections.

use std::time::Duration;

use memdir_http::{ClientConfig, Error, HttpClient, Request, USER_AGENT, Url};

use memdir_testkit::{Reply, ScriptedServer, dead_url};

fn client() -> HttpClient {
    HttpClient::new(ClientConfig::new(Duration::from_secs(10)))
}

fn url(text: &str) -> Url {
    Url::parse(text).unwrap()
}

#[test]
fn get_sends_its_headers_and_no_body() {
    let server = ScriptedServer::start(vec![
        Reply::text(200, r#"{"ok":true}"#).header("Content-Type", "application/json"),
    ]);
    let request = Request::get(url(&format!(
        "{}/api/x?repo=acme/w&view=hashes",
        server.url()
    )))
    .header("Authorization", "Bearer mdt_1")
    .header("Accept", "application/json");
    let response = client().send(&request).unwrap();
    assert_eq!(response.status, 200);
    assert!(response.is_success());
    assert_eq!(response.text(), r#"{"ok":true}"#);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.header("Content-Type"), Some("application/json"));

    let [seen] = server.requests().try_into().unwrap();
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.target, "/api/x?repo=acme/w&view=hashes");
    assert_eq!(seen.header("authorization"), Some("Bearer mdt_1"));
    assert_eq!(seen.header("accept"), Some("application/json"));
    assert_eq!(seen.header("user-agent"), Some(USER_AGENT));
    assert!(USER_AGENT.starts_with("memdir/"), "{USER_AGENT}");
    assert!(seen.body.is_empty());
}

#[test]
fn put_and_post_send_their_body_and_headers() {
    let server = ScriptedServer::start(vec![Reply::text(200, "{}"), Reply::text(201, "")]);
    let put = Request::put(url(&format!("{}/r", server.url())), r#"{"a":1}"#)
        .header("Content-Type", "application/json")
        .header("If-Match", "\"sha256:ab\"");
    assert_eq!(client().send(&put).unwrap().status, 200);
    let post = Request::post(url(&format!("{}/p", server.url())), vec![1u8, 2, 3]);
    assert_eq!(client().send(&post).unwrap().status, 201);

    let [put, post] = server.requests().try_into().unwrap();
    assert_eq!((put.method.as_str(), put.target.as_str()), ("PUT", "/r"));
    assert_eq!(put.header("content-type"), Some("application/json"));
    assert_eq!(put.header("if-match"), Some("\"sha256:ab\""));
    assert_eq!(put.body, br#"{"a":1}"#);
    assert_eq!(post.method, "POST");
    assert_eq!(post.body, [1, 2, 3]);
}

#[test]
fn error_statuses_are_responses_with_their_bodies() {
    let server = ScriptedServer::start(vec![
        Reply::text(412, r#"{"error":"checksum mismatch"}"#).header("ETag", "\"sha256:cd\""),
        Reply::text(304, ""),
        Reply::text(401, "no"),
        Reply::text(503, "upstream down"),
    ]);
    let get = Request::get(url(server.url()));
    let client = client();
    let conflict = client.send(&get).unwrap();
    assert_eq!(conflict.status, 412);
    assert!(!conflict.is_success());
    assert_eq!(conflict.text(), r#"{"error":"checksum mismatch"}"#);
    assert_eq!(conflict.header("etag"), Some("\"sha256:cd\""));
    assert_eq!(client.send(&get).unwrap().status, 304);
    assert_eq!(client.send(&get).unwrap().text(), "no");
    let down = client.send(&get).unwrap();
    assert_eq!((down.status, down.text().as_ref()), (503, "upstream down"));
}

#[test]
fn bodies_past_the_limit_are_refused_and_say_so() {
    let server = ScriptedServer::start(vec![Reply::text(200, "12345"), Reply::text(200, "123456")]);
    let client = HttpClient::new(ClientConfig {
        timeout: Duration::from_secs(10),
        max_body: 5,
    });
    let get = Request::get(url(server.url()));
    assert_eq!(client.send(&get).unwrap().body, b"12345");
    let err = client.send(&get).unwrap_err();
    assert!(
        matches!(&err, Error::BodyTooLarge { limit: 5, url } if *url == format!("{}/", server.url())),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("larger than the limit of 5 bytes"),
        "{err}"
    );
}

#[test]
fn a_slow_server_is_a_timeout() {
    let server = ScriptedServer::start(vec![Reply::text(200, "{}").delay(Duration::from_secs(20))]);
    let client = HttpClient::new(ClientConfig::new(Duration::from_millis(300)));
    let err = client.send(&Request::get(url(server.url()))).unwrap_err();
    assert!(
        matches!(&err, Error::Timeout { timeout, .. } if *timeout == Duration::from_millis(300)),
        "{err:?}"
    );
    assert!(err.is_transient());
    assert!(err.to_string().contains("timed out after 300 ms"), "{err}");
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn a_refused_connection_is_a_transport_error_with_a_clean_url() {
    let dead = dead_url();
    let target = dead.replace("http://", "http://me:hunter2@") + "/x?token=t0k&repo=a";
    let err = client().send(&Request::get(url(&target))).unwrap_err();
    let Error::Transport { url: shown, .. } = &err else {
        panic!("expected Transport, got {err:?}");
    };
    assert_eq!(shown, &format!("{dead}/x?token=[redacted]&repo=a"));
    assert!(err.is_transient());
    assert!(std::error::Error::source(&err).is_some());
    let mut texts = vec![err.to_string(), format!("{err:?}")];
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        texts.push(cause.to_string());
        source = cause.source();
    }
    for text in texts {
        assert!(!text.contains("hunter2") && !text.contains("t0k"), "{text}");
    }
}

#[test]
fn a_header_value_with_a_line_break_is_an_invalid_request() {
    let server = ScriptedServer::start(vec![]);
    let request = Request::get(url(server.url())).header("Authorization", "Bearer x\r\nX-Evil: 1");
    let err = client().send(&request).unwrap_err();
    assert!(matches!(err, Error::InvalidRequest { .. }), "{err:?}");
    assert!(!err.is_transient());
    assert!(server.requests().is_empty());
}
