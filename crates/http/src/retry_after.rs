//! Reading a `Retry-After` header value (RFC 9110 §10.2.3): delta-seconds
//! or an HTTP date.

use std::time::{Duration, SystemTime};

use jiff::Timestamp;
use jiff::fmt::rfc2822::DateTimeParser;
use jiff::fmt::strtime::BrokenDownTime;
use jiff::tz::TimeZone;

/// The IMF-fixdate parser (`Sun, 06 Nov 1994 08:49:37 GMT`), which RFC
/// 2822 syntax covers.
static RFC2822: DateTimeParser = DateTimeParser::new();

/// The two obsolete HTTP date forms recipients must still accept: RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`).
const OBSOLETE_DATE_FORMATS: &[&str] = &["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"];

/// The wait a `Retry-After` value asks for, at the time `now`.
///
/// - Delta-seconds: ASCII digits, optionally with a fraction (`1.5`),
///   which some servers send though the RFC allows only whole seconds.
///   Signs, exponents, `inf` and `NaN` are not numbers here. A value too
///   large for a [`Duration`] is the largest one.
/// - An HTTP date, in the IMF-fixdate form or either obsolete form; the
///   wait is the time from `now` to it, zero for a date in the past.
///
/// Anything else, negative values included, is `None`: no usable wait.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use memdir_http::parse_retry_after;
///
/// let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_770);
/// assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
/// assert_eq!(
///     parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now),
///     Some(Duration::from_secs(7)),
/// );
/// assert_eq!(parse_retry_after("-1", now), None);
/// ```
#[must_use]
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if value.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return parse_seconds(value);
    }
    let date = parse_http_date(value)?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// `DIGITS [ "." DIGITS ]`, at least one digit in all.
fn parse_seconds(value: &str) -> Option<Duration> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || !all_digits(fraction) || whole.len() + fraction.len() == 0 {
        return None;
    }
    let seconds = whole.bytes().try_fold(0u64, |n, b| {
        n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    });
    let Some(seconds) = seconds else {
        return Some(Duration::MAX);
    };
    // Nanoseconds from the first nine fraction digits; the rest cannot
    // matter.
    let nanos = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(9)
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    Some(Duration::new(seconds, nanos))
}

/// An HTTP date in any of its three forms, as a time.
fn parse_http_date(value: &str) -> Option<SystemTime> {
    let timestamp = RFC2822.parse_timestamp(value).ok().or_else(|| {
        OBSOLETE_DATE_FORMATS.iter().find_map(|format| {
            let time = BrokenDownTime::parse(format, value).ok()?;
            let zoned = time
                .to_datetime()
                .ok()?
                .to_zoned_datetime(TimeZone::UTC)
                .ok()?;
            Some(zoned.timestamp())
        })
    })?;
    SystemTime::try_from(timestamp).ok()
}

/// The HTTP date (IMF-fixdate) of a time, for tests and scripted servers.
#[must_use]
pub fn format_http_date(time: SystemTime) -> Option<String> {
    let timestamp = Timestamp::try_from(time).ok()?;
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&timestamp)
        .ok()
}

#[cfg(test)]
mod tests;
