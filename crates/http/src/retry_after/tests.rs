//! `Retry-After` values: both forms, and what is not one.

use super::*;

/// 1994-11-06T08:49:30Z, seven seconds before the RFC's example date.
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_770)
}

fn check(value: &str, expected: Option<Duration>) {
    assert_eq!(parse_retry_after(value, now()), expected, "{value:?}");
}

#[test]
fn delta_seconds() {
    check("0", Some(Duration::ZERO));
    check("1", Some(Duration::from_secs(1)));
    check(" 120 ", Some(Duration::from_secs(120)));
    check("007", Some(Duration::from_secs(7)));
}

#[test]
fn fractional_seconds_are_tolerated() {
    check("0.5", Some(Duration::from_millis(500)));
    check(" 0.5 ", Some(Duration::from_millis(500)));
    check("1.", Some(Duration::from_secs(1)));
    check(".25", Some(Duration::from_millis(250)));
    check("2.0000000019", Some(Duration::new(2, 1)));
}

#[test]
fn huge_values_saturate() {
    check("18446744073709551615", Some(Duration::from_secs(u64::MAX)));
    check("99999999999999999999999999", Some(Duration::MAX));
    check(&"9".repeat(10_000), Some(Duration::MAX));
}

#[test]
fn negative_and_garbage_are_none() {
    for value in [
        "",
        " ",
        "-1",
        "-0.5",
        "+1",
        "1e3",
        "inf",
        "NaN",
        "1.2.3",
        "1 2",
        "0x10",
        ".",
        "soon",
        "١٢",
        "Wed, 32 Oct 2026 07:28:00 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT",
    ] {
        check(value, None);
    }
}

#[test]
fn http_dates_count_from_now() {
    // IMF-fixdate, RFC 850 and asctime: the RFC's three spellings.
    check(
        "Sun, 06 Nov 1994 08:49:37 GMT",
        Some(Duration::from_secs(7)),
    );
    check(
        "Sunday, 06-Nov-94 08:49:37 GMT",
        Some(Duration::from_secs(7)),
    );
    check("Sun Nov  6 08:49:37 1994", Some(Duration::from_secs(7)));
    check(
        "Sun, 06 Nov 1994 09:49:30 GMT",
        Some(Duration::from_secs(3600)),
    );
}

#[test]
fn past_dates_are_no_wait() {
    check("Sun, 06 Nov 1994 08:49:00 GMT", Some(Duration::ZERO));
    check("Thu, 01 Jan 1970 00:00:00 GMT", Some(Duration::ZERO));
}

#[test]
fn formatted_dates_read_back() {
    let later = now() + Duration::from_secs(42);
    let text = format_http_date(later).unwrap();
    assert_eq!(text, "Sun, 06 Nov 1994 08:50:12 GMT");
    check(&text, Some(Duration::from_secs(42)));
}
