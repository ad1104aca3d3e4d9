//! How old a memory is, and the warning that goes with an old one
//! (SPEC R6.5).
//!
//! All functions are pure: they take the memory's time and "now", both in
//! milliseconds since the Unix epoch, so that they can be tested without a
//! clock. Callers pass `SystemTime::now()` converted with [`unix_millis`].
//!
//! A memory's time is [`effective_time_ms`]: the `modified` its frontmatter
//! records when that is valid, else the file's mtime (SPEC R2.5). Every
//! caller that sorts memories, shows their time or judges their age uses
//! that one rule.

use std::time::{SystemTime, UNIX_EPOCH};

const MILLIS_PER_DAY: i64 = 86_400_000;

/// Milliseconds since the Unix epoch for a [`SystemTime`]; times before the
/// epoch are negative, times too far out saturate.
#[must_use]
pub fn unix_millis(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
    }
}

/// Nanoseconds since the Unix epoch for a [`SystemTime`], as
/// [`unix_millis`] counts milliseconds.
#[must_use]
pub fn unix_nanos(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |ns| -ns),
    }
}

/// A memory's time for freshness, sorting and display (SPEC R2.5, R6.5):
/// the frontmatter's valid `modified` when there is one, capped at `now_ms`
/// (a write time in the future counts as now), else the file's mtime.
///
/// The recorded time wins because a synced or cloned folder's mtimes are
/// checkout times, while `modified` is when the memory was written.
///
/// ```
/// use memdir_memtypes::effective_time_ms;
/// let written: jiff::Timestamp = "2026-03-05T09:30:00Z".parse().unwrap();
/// let (mtime, now) = (1_800_000_000_000, 1_800_000_100_000);
/// assert_eq!(effective_time_ms(Some(written), mtime, now), written.as_millisecond());
/// assert_eq!(effective_time_ms(None, mtime, now), mtime);
/// let future: jiff::Timestamp = "2099-01-01T00:00:00Z".parse().unwrap();
/// assert_eq!(effective_time_ms(Some(future), mtime, now), now);
/// ```
#[must_use]
pub fn effective_time_ms(modified: Option<jiff::Timestamp>, mtime_ms: i64, now_ms: i64) -> i64 {
    match modified {
        Some(time) => time.as_millisecond().min(now_ms),
        None => mtime_ms,
    }
}

/// Whole days between `mtime_ms` and `now_ms`, rounded down; never
/// negative (a modification time in the future counts as 0 days).
///
/// ```
/// use memdir_memtypes::memory_age_days;
/// let day = 86_400_000;
/// assert_eq!(memory_age_days(0, day - 1), 0);
/// assert_eq!(memory_age_days(0, 47 * day + 5), 47);
/// assert_eq!(memory_age_days(10 * day, 0), 0);
/// ```
#[must_use]
pub fn memory_age_days(mtime_ms: i64, now_ms: i64) -> u64 {
    let elapsed = now_ms.saturating_sub(mtime_ms).max(0);
    u64::try_from(elapsed / MILLIS_PER_DAY).unwrap_or(0)
}

/// The age in words: `today`, `yesterday` or `N days ago`.
#[must_use]
pub fn memory_age(mtime_ms: i64, now_ms: i64) -> String {
    match memory_age_days(mtime_ms, now_ms) {
        0 => "today".to_owned(),
        1 => "yesterday".to_owned(),
        n => format!("{n} days ago"),
    }
}

/// The staleness warning for a memory older than one day; empty for a
/// memory from today or yesterday.
#[must_use]
pub fn memory_freshness_text(mtime_ms: i64, now_ms: i64) -> String {
    let days = memory_age_days(mtime_ms, now_ms);
    if days <= 1 {
        return String::new();
    }
    format!(
        "This memory is {days} days old. Memories are point-in-time observations, not live state \
         -- claims about code behavior or file:line citations may be outdated. Verify against \
         current code before asserting as fact."
    )
}

/// [`memory_freshness_text`] wrapped in a `<system-reminder>` element; empty
/// when there is nothing to warn about.
#[must_use]
pub fn memory_freshness_note(mtime_ms: i64, now_ms: i64) -> String {
    let text = memory_freshness_text(mtime_ms, now_ms);
    if text.is_empty() {
        return text;
    }
    format!("<system-reminder>{text}</system-reminder>")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = MILLIS_PER_DAY;
    const NOW: i64 = 1_795_000_000_000;

    #[test]
    fn age_in_words() {
        let check = |mtime: i64, expected: &str| assert_eq!(memory_age(mtime, NOW), expected);
        check(NOW, "today");
        check(NOW - DAY + 1, "today");
        check(NOW - DAY, "yesterday");
        check(NOW - 2 * DAY + 1, "yesterday");
        check(NOW - 2 * DAY, "2 days ago");
        check(NOW - 47 * DAY, "47 days ago");
        check(NOW + 5 * DAY, "today");
    }

    #[test]
    fn extreme_times_do_not_overflow() {
        assert_eq!(
            memory_age_days(i64::MIN, i64::MAX),
            u64::try_from(i64::MAX / DAY).unwrap()
        );
        assert_eq!(memory_age_days(i64::MAX, i64::MIN), 0);
    }

    #[test]
    fn freshness_text_only_past_one_day() {
        assert_eq!(memory_freshness_text(NOW, NOW), "");
        assert_eq!(memory_freshness_text(NOW - DAY, NOW), "");
        assert_eq!(memory_freshness_note(NOW - DAY, NOW), "");
        assert_eq!(
            memory_freshness_text(NOW - 47 * DAY, NOW),
            "This memory is 47 days old. Memories are point-in-time observations, not live state \
             -- claims about code behavior or file:line citations may be outdated. Verify against \
             current code before asserting as fact."
        );
        let note = memory_freshness_note(NOW - 2 * DAY, NOW);
        assert!(note.starts_with("<system-reminder>This memory is 2 days old."));
        assert!(note.ends_with("as fact.</system-reminder>"));
    }

    #[test]
    fn effective_time_prefers_a_recorded_past_time_and_caps_a_future_one() {
        let at = |ms: i64| jiff::Timestamp::from_millisecond(ms).unwrap();
        let mtime = NOW - DAY;
        // A cloned folder: mtime is the checkout, `modified` the write.
        assert_eq!(
            effective_time_ms(Some(at(NOW - 40 * DAY)), mtime, NOW),
            NOW - 40 * DAY
        );
        assert_eq!(
            memory_age(effective_time_ms(Some(at(NOW - 40 * DAY)), mtime, NOW), NOW),
            "40 days ago"
        );
        // Later than the mtime is fine too (a clock ahead on the writer).
        assert_eq!(
            effective_time_ms(Some(at(NOW - 1)), NOW - 5 * DAY, NOW),
            NOW - 1
        );
        assert_eq!(effective_time_ms(Some(at(NOW + 3 * DAY)), mtime, NOW), NOW);
        assert_eq!(effective_time_ms(None, mtime, NOW), mtime);
        // Nothing recorded and an mtime in the future: the age rule caps it.
        assert_eq!(
            memory_age(effective_time_ms(None, NOW + DAY, NOW), NOW),
            "today"
        );
    }

    #[test]
    fn unix_millis_round_trips() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1234);
        assert_eq!(unix_millis(t), 1234);
        let before = UNIX_EPOCH - std::time::Duration::from_millis(1234);
        assert_eq!(unix_millis(before), -1234);
    }
}
