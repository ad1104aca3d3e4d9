//! Retries against a scripted server: `Retry-After` in both forms, a 429
//! over the cap, a 503 then a 200, refused connections. The sleeper
//! records pauses instead of waiting, so nothing here depends on timing.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use memdir_http::{
    Backoff, ClientConfig, Error, HttpClient, LongRetryAfter, Request, RetryPolicy, RetryWhen, Url,
    format_http_date,
};

use memdir_testkit::{Reply, ScriptedServer, dead_url};

/// A policy whose pauses are recorded, not slept.
fn recorded(policy: RetryPolicy) -> (RetryPolicy, Arc<Mutex<Vec<Duration>>>) {
    let slept = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&slept);
    (
        policy.sleeper(move |pause| recorder.lock().unwrap().push(pause)),
        slept,
    )
}

/// The model's rules.
fn fail_fast() -> RetryPolicy {
    RetryPolicy::new(1)
        .backoff(Backoff::Constant(Duration::from_millis(200)))
        .statuses(&[
            (429..=429, RetryWhen::WithRetryAfter),
            (500..=599, RetryWhen::Always),
        ])
        .max_retry_after(Duration::from_secs(5), LongRetryAfter::GiveUp)
        .retry_transport_errors(false)
}

fn send(server_url: &str, policy: &RetryPolicy) -> Result<memdir_http::Response, Error> {
    let client = HttpClient::new(ClientConfig::new(Duration::from_secs(10)));
    client.send_with_retries(&Request::get(Url::parse(server_url).unwrap()), policy)
}

#[test]
fn service_unavailable_then_ok() {
    let server = ScriptedServer::start(vec![Reply::text(503, "busy"), Reply::text(200, "done")]);
    let (policy, slept) = recorded(RetryPolicy::new(3));
    let response = send(server.url(), &policy).unwrap();
    assert_eq!((response.status, response.text().as_ref()), (200, "done"));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(*slept.lock().unwrap(), [Duration::from_millis(500)]);
}

#[test]
fn retry_after_http_date_is_waited_from_the_injected_clock() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000);
    let date = format_http_date(now + Duration::from_secs(4)).unwrap();
    let server = ScriptedServer::start(vec![
        Reply::text(429, "slow down").header("Retry-After", &date),
        Reply::text(200, "ok"),
    ]);
    let (policy, slept) = recorded(fail_fast().clock(move || now));
    assert_eq!(send(server.url(), &policy).unwrap().status, 200);
    assert_eq!(*slept.lock().unwrap(), [Duration::from_secs(4)]);
}

#[test]
fn retry_after_seconds_are_waited() {
    let server = ScriptedServer::start(vec![
        Reply::text(429, "").header("Retry-After", "1.5"),
        Reply::text(200, "ok"),
    ]);
    let (policy, slept) = recorded(fail_fast());
    assert_eq!(send(server.url(), &policy).unwrap().status, 200);
    assert_eq!(*slept.lock().unwrap(), [Duration::from_millis(1500)]);
}

#[test]
fn too_many_requests_over_the_cap_fails_fast_with_the_response() {
    let server = ScriptedServer::start(vec![
        Reply::text(429, "later").header("Retry-After", "60"),
        Reply::text(200, "ok"),
    ]);
    let (policy, slept) = recorded(fail_fast());
    let response = send(server.url(), &policy).unwrap();
    assert_eq!(response.status, 429);
    assert_eq!(policy.retry_after(&response), Some(Duration::from_secs(60)));
    assert_eq!(server.requests().len(), 1);
    assert!(slept.lock().unwrap().is_empty());
}

#[test]
fn too_many_requests_over_the_cap_waits_the_cap_when_asked() {
    let server = ScriptedServer::start(vec![
        Reply::text(429, "later").header("Retry-After", "3600"),
        Reply::text(200, "ok"),
    ]);
    let (policy, slept) = recorded(
        RetryPolicy::new(3).max_retry_after(Duration::from_secs(30), LongRetryAfter::WaitLongest),
    );
    assert_eq!(send(server.url(), &policy).unwrap().status, 200);
    assert_eq!(*slept.lock().unwrap(), [Duration::from_secs(30)]);
}

#[test]
fn exhausted_retries_return_the_last_response() {
    let server = ScriptedServer::start(vec![
        Reply::text(529, "overloaded"),
        Reply::text(503, "still down"),
        Reply::text(200, "too late"),
    ]);
    let (policy, slept) = recorded(fail_fast());
    let response = send(server.url(), &policy).unwrap();
    assert_eq!(
        (response.status, response.text().as_ref()),
        (503, "still down")
    );
    assert_eq!(server.requests().len(), 2);
    assert_eq!(slept.lock().unwrap().len(), 1);
}

#[test]
fn refused_connections_are_retried_with_backoff_then_reported() {
    let (policy, slept) = recorded(RetryPolicy::new(3).backoff(Backoff::Exponential {
        first: Duration::from_millis(100),
        max: Duration::from_millis(250),
    }));
    let err = send(&dead_url(), &policy).unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    let ms = Duration::from_millis;
    assert_eq!(*slept.lock().unwrap(), [ms(100), ms(200), ms(250)]);
}

#[test]
fn refused_connections_fail_fast_when_transport_retries_are_off() {
    let (policy, slept) = recorded(fail_fast());
    let err = send(&dead_url(), &policy).unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(slept.lock().unwrap().is_empty());
}

#[test]
fn timeouts_are_retried_as_transport_errors() {
    let server = ScriptedServer::start(vec![
        Reply::text(200, "late").delay(Duration::from_secs(20)),
        Reply::text(200, "on time"),
    ]);
    let (policy, slept) = recorded(RetryPolicy::new(1));
    let client = HttpClient::new(ClientConfig::new(Duration::from_millis(300)));
    let request = Request::get(Url::parse(server.url()).unwrap());
    let response = client.send_with_retries(&request, &policy).unwrap();
    assert_eq!(response.text(), "on time");
    assert_eq!(slept.lock().unwrap().len(), 1);
}
