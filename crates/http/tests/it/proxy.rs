//! A proxy from the environment carries remote traffic but never loopback
//! traffic. The environment is per process, so the check runs this test
//! binary again as a child, with a scripted server as the proxy.

use std::time::Duration;

use memdir_http::{ClientConfig, HttpClient, Request, Url};

use memdir_testkit::{Reply, ScriptedServer, run_test_with_proxy};

/// The variable the child reads its loopback target from.
const TARGET_VAR: &str = "MEMDIR_HTTP_TEST_TARGET";

/// Run by [`environment_proxy_carries_remote_but_not_loopback_calls`]; run
/// directly, without its variable, it checks nothing.
#[test]
fn child_sends_loopback_and_remote_requests() {
    let Ok(target) = std::env::var(TARGET_VAR) else {
        return;
    };
    let client = HttpClient::new(ClientConfig::new(Duration::from_secs(10)));
    let local = client
        .send(&Request::get(
            Url::parse(&format!("{target}/direct")).unwrap(),
        ))
        .unwrap();
    assert_eq!(local.text(), "from the target");
    let localhost = target.replace("127.0.0.1", "localhost");
    let local = client
        .send(&Request::get(
            Url::parse(&format!("{localhost}/direct")).unwrap(),
        ))
        .unwrap();
    assert_eq!(local.text(), "from the target");
    // ureq may tunnel through the proxy with CONNECT, which the scripted
    // proxy does not carry on with; that the proxy was asked is what
    // counts, and the parent checks it.
    let _ = client.send(&Request::get(
        Url::parse("http://memdir.invalid/remote").unwrap(),
    ));
}

#[test]
fn environment_proxy_carries_remote_but_not_loopback_calls() {
    let proxy = ScriptedServer::start(vec![Reply::text(200, "from the proxy")]);
    let target = ScriptedServer::start(vec![
        Reply::text(200, "from the target"),
        Reply::text(200, "from the target"),
    ]);
    run_test_with_proxy(
        "proxy::child_sends_loopback_and_remote_requests",
        proxy.url(),
        &[(TARGET_VAR, target.url())],
    );

    let through_proxy: Vec<String> = proxy.requests().into_iter().map(|r| r.target).collect();
    assert!(
        through_proxy == ["http://memdir.invalid/remote"] || through_proxy == ["memdir.invalid:80"],
        "{through_proxy:?}"
    );
    let direct: Vec<String> = target.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(direct, ["/direct", "/direct"]);
}
