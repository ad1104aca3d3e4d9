//! A proxy configured in the environment must not capture loopback
//! traffic: a local model server is reached directly. The environment is
//! per process, so the check runs this test binary again as a child with a
//! dead proxy in `ALL_PROXY`, `HTTPS_PROXY` and `HTTP_PROXY`.

use std::process::Command;

use memdir_model::Backend;
use memdir_testkit::{ScriptedServer, dead_url};

use crate::support::{ANSWER, KEY, anthropic, anthropic_reply, openai, openai_reply, query};

/// Calls a loopback server on both backends. Run directly it checks the
/// ordinary case; run by [`environment_proxy_is_bypassed_for_loopback`] it
/// checks the proxied one.
#[test]
fn loopback_call_succeeds() {
    let server = ScriptedServer::start(vec![anthropic_reply(ANSWER, "end_turn")]);
    anthropic(server.url()).side_query(&query()).unwrap();
    let server = ScriptedServer::start(vec![openai_reply(ANSWER)]);
    let localhost = server.url().replace("127.0.0.1", "localhost");
    let client = openai(&localhost);
    assert_eq!(client.config().backend, Backend::OpenAiCompatible);
    assert_eq!(client.config().api_key.as_deref(), Some(KEY));
    client.side_query(&query()).unwrap();
}

#[test]
fn environment_proxy_is_bypassed_for_loopback() {
    let proxy = dead_url();
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "--exact",
            "proxy::loopback_call_succeeds",
            "--test-threads=1",
        ])
        .env("ALL_PROXY", &proxy)
        .env("HTTPS_PROXY", &proxy)
        .env("HTTP_PROXY", &proxy);
    for name in [
        "NO_PROXY",
        "no_proxy",
        "all_proxy",
        "https_proxy",
        "http_proxy",
    ] {
        child.env_remove(name);
    }
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
}
