//! The retry decisions, on responses and errors made up in memory, with a
//! sleeper that records instead of waiting.

use std::sync::Mutex;

use ureq::http::{HeaderMap, HeaderValue};

use super::*;

#[allow(
    clippy::unnecessary_wraps,
    reason = "an outcome as `pause` and `run` take it"
)]
fn response(status: u16, retry_after: Option<&str>) -> Result<Response, Error> {
    let mut headers = HeaderMap::new();
    if let Some(value) = retry_after {
        headers.insert("retry-after", HeaderValue::from_str(value).unwrap());
    }
    Ok(Response {
        status,
        headers,
        body: b"{}".to_vec(),
    })
}

fn refused() -> Result<Response, Error> {
    Err(Error::Transport {
        url: "http://127.0.0.1:1/".to_owned(),
        source: "connection refused".into(),
    })
}

/// The model's rules: a 429 only with a short Retry-After, 5xx after a
/// pause, no transport retries.
fn model_like() -> RetryPolicy {
    RetryPolicy::new(1)
        .backoff(Backoff::Constant(Duration::from_millis(200)))
        .statuses(&[
            (429..=429, RetryWhen::WithRetryAfter),
            (500..=599, RetryWhen::Always),
        ])
        .max_retry_after(Duration::from_secs(5), LongRetryAfter::GiveUp)
        .retry_transport_errors(false)
}

/// R8.5: 429, 5xx and transport errors, exponential backoff, Retry-After
/// honoured up to the longest backoff.
fn sync_like() -> RetryPolicy {
    RetryPolicy::new(3)
        .backoff(Backoff::Exponential {
            first: Duration::from_millis(500),
            max: Duration::from_secs(30),
        })
        .max_retry_after(Duration::from_secs(30), LongRetryAfter::WaitLongest)
}

#[test]
fn model_rules() {
    let policy = model_like();
    let ms = Duration::from_millis;
    assert_eq!(policy.pause(0, &response(429, Some("1"))), Some(ms(1000)));
    assert_eq!(policy.pause(0, &response(429, Some("5"))), Some(ms(5000)));
    assert_eq!(policy.pause(0, &response(429, Some("5.5"))), None);
    assert_eq!(policy.pause(0, &response(429, Some("60"))), None);
    assert_eq!(policy.pause(0, &response(429, None)), None);
    assert_eq!(policy.pause(0, &response(429, Some("-1"))), None);
    assert_eq!(policy.pause(0, &response(529, None)), Some(ms(200)));
    assert_eq!(policy.pause(0, &response(503, None)), Some(ms(200)));
    assert_eq!(policy.pause(0, &response(400, Some("1"))), None);
    assert_eq!(policy.pause(0, &response(200, Some("1"))), None);
    assert_eq!(policy.pause(0, &refused()), None);
    // One retry only.
    assert_eq!(policy.pause(1, &response(503, None)), None);
}

#[test]
fn sync_rules() {
    let policy = sync_like();
    let ms = Duration::from_millis;
    assert_eq!(policy.pause(0, &response(503, None)), Some(ms(500)));
    assert_eq!(policy.pause(1, &response(503, None)), Some(ms(1000)));
    assert_eq!(policy.pause(2, &refused()), Some(ms(2000)));
    assert_eq!(policy.pause(3, &refused()), None);
    assert_eq!(policy.pause(0, &response(429, None)), Some(ms(500)));
    assert_eq!(policy.pause(0, &response(429, Some("3"))), Some(ms(3000)));
    assert_eq!(
        policy.pause(0, &response(503, Some("3600"))),
        Some(Duration::from_secs(30))
    );
    for status in [200, 304, 400, 401, 404, 412] {
        assert_eq!(policy.pause(0, &response(status, None)), None, "{status}");
    }
}

#[test]
fn errors_that_a_retry_cannot_cure_are_final() {
    let policy = sync_like();
    let too_large = Err(Error::BodyTooLarge {
        url: "http://h/".to_owned(),
        limit: 1,
    });
    assert_eq!(policy.pause(0, &too_large), None);
    let bad = Err(Error::InvalidRequest {
        url: "http://h/".to_owned(),
        source: "bad header".into(),
    });
    assert_eq!(policy.pause(0, &bad), None);
}

#[test]
fn backoff_doubles_up_to_its_limit_without_overflow() {
    let backoff = Backoff::Exponential {
        first: Duration::from_millis(500),
        max: Duration::from_secs(30),
    };
    let pauses: Vec<u64> = (0..8)
        .map(|n| u64::try_from(backoff.pause(n).as_millis()).unwrap())
        .collect();
    assert_eq!(pauses, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    assert_eq!(backoff.pause(u32::MAX), Duration::from_secs(30));
    let huge = Backoff::Exponential {
        first: Duration::MAX,
        max: Duration::MAX,
    };
    assert_eq!(huge.pause(5), Duration::MAX);
}

#[test]
fn http_dates_are_read_against_the_clock() {
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_770);
    let policy = model_like().clock(move || now);
    let date = "Sun, 06 Nov 1994 08:49:33 GMT";
    assert_eq!(
        policy.pause(0, &response(429, Some(date))),
        Some(Duration::from_secs(3))
    );
    let far = "Sun, 06 Nov 1994 09:49:33 GMT";
    assert_eq!(policy.pause(0, &response(429, Some(far))), None);
}

#[test]
fn an_extra_test_retries_what_statuses_do_not() {
    let policy = model_like().retry_if(|r| r.text().contains("overloaded"));
    let mut overloaded = response(400, None).unwrap();
    overloaded.body = b"{\"type\":\"overloaded_error\"}".to_vec();
    assert_eq!(
        policy.pause(0, &Ok(overloaded)),
        Some(Duration::from_millis(200))
    );
    assert_eq!(policy.pause(0, &response(400, None)), None);
}

#[test]
fn run_sleeps_the_pauses_and_returns_the_last_outcome() {
    let slept = Arc::new(Mutex::new(Vec::new()));
    let recorder = Arc::clone(&slept);
    let policy = sync_like().sleeper(move |d| recorder.lock().unwrap().push(d));
    let mut script = vec![
        refused(),
        response(503, Some("2")),
        response(429, None),
        response(503, None),
        response(200, None),
    ]
    .into_iter();
    let mut attempts = 0;
    let last = policy
        .run(|| {
            attempts += 1;
            script.next().unwrap()
        })
        .unwrap();
    assert_eq!(attempts, 4, "three retries, then the last outcome");
    assert_eq!(last.status, 503);
    assert_eq!(
        *slept.lock().unwrap(),
        [
            Duration::from_millis(500),
            Duration::from_secs(2),
            Duration::from_secs(2)
        ]
    );
}
