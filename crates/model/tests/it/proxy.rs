//! A proxy configured in the environment must not capture loopback
//! traffic: a local model server is reached directly. The environment is
//! per process, so the check runs this test binary again as a child with a
//! dead proxy in `ALL_PROXY`, `HTTPS_PROXY` and `HTTP_PROXY`.

use memdir_model::Backend;
use memdir_testkit::{ScriptedServer, dead_url, run_test_with_proxy};

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
    run_test_with_proxy("proxy::loopback_call_succeeds", &proxy, &[]);
}
