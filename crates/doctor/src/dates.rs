//! Relative dates in memory bodies (SPEC R2.3), in English, Chinese,
//! Japanese and Korean, and their repair where the memory's `modified`
//! time decides the date.
//!
//! What is found: words for a day relative to "now" (tomorrow, 明天, 明日,
//! 내일, …), "in two days" / "two days ago", weekday names used for one
//! day ("Thursday", "this Friday", 本周五, 今週の金曜日, 이번 주 금요일),
//! and weeks relative to now (next week, 下周, 来週, 다음 주, …). What is
//! not: recurring weekdays ("every Thursday", "on Thursdays",
//! "Thursday's standup is weekly", 每周五, 毎週, 매주), a weekday followed
//! by a date, and anything inside code.
//!
//! What is repaired, against the UTC date of `modified`: day words and
//! "in N days" / "N days ago"; a bare or "this" weekday (the next such day
//! after `modified`; not when `modified` is that weekday); a weekday of
//! "this week" in Chinese, Japanese or Korean (that day of `modified`'s
//! Monday-to-Sunday week; not Sunday, which some calendars put first).
//! "Next Monday", "last week" and the like are reported, never repaired.

use std::sync::LazyLock;

use jiff::ToSpan;
use jiff::civil::{Date, Weekday};
use memdir_memtypes::{parse_memory_str, update_memory};
use regex::Regex;

use crate::text::{body_first_line, line_of, mask_code};

/// What a relative date stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rel {
    /// This many days from the reference date.
    Days(i64),
    /// The next such weekday after the reference date.
    NextWeekday(Weekday),
    /// That weekday of the reference date's Monday-to-Sunday week.
    SameWeek(Weekday),
    /// Relative, but no one date.
    Vague,
}

/// How a match is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// By the date alone.
    Date,
    /// By "on" and the date ("in two days" → "on 2026-03-06").
    OnDate,
}

/// One relative date found in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Byte range in the body.
    pub(crate) start: usize,
    pub(crate) end: usize,
    rel: Rel,
    style: Style,
}

impl Found {
    /// What replaces the match, given the reference date; `None` when the
    /// date is not decided.
    pub(crate) fn replacement(&self, reference: Option<Date>) -> Option<String> {
        let reference = reference?;
        let date = match self.rel {
            Rel::Days(n) => reference.checked_add(n.days()).ok()?,
            Rel::NextWeekday(w) if reference.weekday() != w => reference.nth_weekday(1, w).ok()?,
            Rel::SameWeek(w) if w != Weekday::Sunday => {
                let monday = reference
                    .checked_sub(i64::from(reference.weekday().to_monday_zero_offset()).days())
                    .ok()?;
                monday
                    .checked_add(i64::from(w.to_monday_zero_offset()).days())
                    .ok()?
            }
            _ => return None,
        };
        Some(match self.style {
            Style::Date => date.to_string(),
            Style::OnDate => format!("on {date}"),
        })
    }
}

/// One repaired date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateChange {
    /// The 1-based line of the file.
    pub line: usize,
    /// The relative date found.
    pub from: String,
    /// What replaced it.
    pub to: String,
}

/// A memory with its relative dates made absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFix {
    /// The whole new file text; the frontmatter is kept byte for byte.
    pub text: String,
    /// What changed, in order.
    pub changes: Vec<DateChange>,
}

/// Turns the relative dates of a memory's body into absolute ones, where
/// its `modified` time decides each date; `None` when nothing can be
/// repaired (no `modified`, no relative date, or only undecided ones).
/// The frontmatter is written back with
/// [`update_memory`](memdir_memtypes::update_memory) and kept byte for
/// byte; a second run over the result changes nothing.
#[must_use]
pub fn fix_relative_dates(text: &str) -> Option<DateFix> {
    let parsed = parse_memory_str(text);
    let reference = reference_date(parsed.modified);
    reference?;
    let body = &parsed.body;
    let first_line = body_first_line(text, body);
    let mut new_body = String::with_capacity(body.len() + 16);
    let mut changes = Vec::new();
    let mut at = 0;
    for found in find(body) {
        let Some(to) = found.replacement(reference) else {
            continue;
        };
        new_body.push_str(&body[at..found.start]);
        new_body.push_str(&to);
        changes.push(DateChange {
            line: first_line + line_of(body, found.start) - 1,
            from: body[found.start..found.end].to_owned(),
            to,
        });
        at = found.end;
    }
    if changes.is_empty() {
        return None;
    }
    new_body.push_str(&body[at..]);
    let new_text = update_memory(text, &parsed.header, None, &new_body);
    // Only the body may change: a frontmatter the line edit would touch is
    // left alone, and the memory with it.
    let prefix = text.len() - body.len();
    if !text.ends_with(body.as_str()) || new_text.get(..prefix) != text.get(..prefix) {
        log::debug!("doctor: frontmatter would change; dates left as they are");
        return None;
    }
    Some(DateFix {
        text: new_text,
        changes,
    })
}

/// The UTC date of a `modified` time.
pub(crate) fn reference_date(modified: Option<jiff::Timestamp>) -> Option<Date> {
    modified.map(|t| jiff::tz::TimeZone::UTC.to_datetime(t).date())
}

struct Pattern {
    re: Regex,
    rel: fn(&regex::Captures<'_>) -> Rel,
    style: Style,
}

const EN_DAYS: &str = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";

fn en_weekday(name: &str) -> Weekday {
    match name.to_ascii_lowercase().as_str() {
        "monday" => Weekday::Monday,
        "tuesday" => Weekday::Tuesday,
        "wednesday" => Weekday::Wednesday,
        "thursday" => Weekday::Thursday,
        "friday" => Weekday::Friday,
        "saturday" => Weekday::Saturday,
        _ => Weekday::Sunday,
    }
}

fn cjk_weekday(c: &str) -> Weekday {
    match c {
        "一" | "月" | "월" => Weekday::Monday,
        "二" | "火" | "화" => Weekday::Tuesday,
        "三" | "水" | "수" => Weekday::Wednesday,
        "四" | "木" | "목" => Weekday::Thursday,
        "五" | "金" | "금" => Weekday::Friday,
        "六" | "土" | "토" => Weekday::Saturday,
        _ => Weekday::Sunday,
    }
}

fn en_count(word: &str) -> i64 {
    match word.to_ascii_lowercase().as_str() {
        "a" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        digits => digits.parse().unwrap_or(0),
    }
}

fn pattern(re: &str, rel: fn(&regex::Captures<'_>) -> Rel, style: Style) -> Pattern {
    Pattern {
        re: Regex::new(re).expect("the date patterns are valid"),
        rel,
        style,
    }
}

/// The patterns, longest and most specific first: a later match that
/// overlaps an earlier one is dropped.
static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    let count = "one|two|three|four|five|six|seven|a|[0-9]{1,2}";
    vec![
        pattern(
            r"(?i)\bthe day after tomorrow\b",
            |_| Rel::Days(2),
            Style::Date,
        ),
        pattern(
            r"(?i)\bthe day before yesterday\b",
            |_| Rel::Days(-2),
            Style::Date,
        ),
        pattern(r"(?i)\btomorrow\b", |_| Rel::Days(1), Style::Date),
        pattern(r"(?i)\byesterday\b", |_| Rel::Days(-1), Style::Date),
        pattern(
            &format!(r"(?i)\bin ({count}) days?\b"),
            |c| Rel::Days(en_count(&c[1])),
            Style::OnDate,
        ),
        pattern(
            &format!(r"(?i)\b({count}) days? ago\b"),
            |c| Rel::Days(-en_count(&c[1])),
            Style::OnDate,
        ),
        pattern(
            &format!(r"(?i)\b(?:next|last|this coming|this past) (?:week|month|{EN_DAYS})\b"),
            |_| Rel::Vague,
            Style::Date,
        ),
        pattern(r"(?i)\bthis week\b", |_| Rel::Vague, Style::Date),
        pattern(
            &format!(r"(?i)\bthis ({EN_DAYS})\b"),
            |c| Rel::NextWeekday(en_weekday(&c[1])),
            Style::Date,
        ),
        pattern(
            &format!(r"(?i)\b({EN_DAYS})\b"),
            |c| Rel::NextWeekday(en_weekday(&c[1])),
            Style::Date,
        ),
        // Chinese.
        pattern(r"大后天|大前天", |_| Rel::Vague, Style::Date),
        pattern(r"后天|後天", |_| Rel::Days(2), Style::Date),
        pattern(r"明天", |_| Rel::Days(1), Style::Date),
        pattern(r"昨天", |_| Rel::Days(-1), Style::Date),
        pattern(r"前天", |_| Rel::Days(-2), Style::Date),
        pattern(
            r"(?:本|这|這)(?:周|週|星期|礼拜)([一二三四五六日天])",
            |c| Rel::SameWeek(cjk_weekday(&c[1])),
            Style::Date,
        ),
        pattern(
            r"(?:下|上)个?(?:周|週|星期|礼拜)[一二三四五六日天]?|(?:本|这)(?:周|星期)",
            |_| Rel::Vague,
            Style::Date,
        ),
        // Japanese.
        pattern(r"明後日|あさって", |_| Rel::Days(2), Style::Date),
        pattern(r"一昨日|おととい", |_| Rel::Days(-2), Style::Date),
        pattern(r"明日|あした", |_| Rel::Days(1), Style::Date),
        pattern(r"昨日", |_| Rel::Days(-1), Style::Date),
        pattern(
            r"今週の?([月火水木金土日])曜日?",
            |c| Rel::SameWeek(cjk_weekday(&c[1])),
            Style::Date,
        ),
        pattern(
            r"(?:来週|先週|今週)(?:の?[月火水木金土日]曜日)?",
            |_| Rel::Vague,
            Style::Date,
        ),
        // Korean.
        pattern(r"그저께|그제", |_| Rel::Days(-2), Style::Date),
        pattern(r"모레", |_| Rel::Days(2), Style::Date),
        pattern(r"내일", |_| Rel::Days(1), Style::Date),
        pattern(r"어제", |_| Rel::Days(-1), Style::Date),
        pattern(
            r"이번 ?주 ?([월화수목금토일])요일",
            |c| Rel::SameWeek(cjk_weekday(&c[1])),
            Style::Date,
        ),
        pattern(
            r"(?:다음|지난|이번) ?주(?: ?[월화수목금토일]요일)?",
            |_| Rel::Vague,
            Style::Date,
        ),
    ]
});

/// Every relative date of `body`, in order; code is not looked at.
pub(crate) fn find(body: &str) -> Vec<Found> {
    let masked = mask_code(body);
    let mut found: Vec<Found> = Vec::new();
    for p in PATTERNS.iter() {
        for caps in p.re.captures_iter(&masked) {
            let m = caps.get(0).expect("group 0 is the match");
            let (start, end) = (m.start(), m.end());
            if found.iter().any(|f| start < f.end && f.start < end) {
                continue;
            }
            let rel = (p.rel)(&caps);
            if is_excluded(&masked, start, end, rel) {
                continue;
            }
            found.push(Found {
                start,
                end,
                rel,
                style: p.style,
            });
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// Words before a weekday that make it a recurring one.
const RECURRING_BEFORE: [&str; 6] = [
    "every ",
    "each ",
    "on a ",
    "most ",
    "alternate ",
    "every other ",
];
/// Words on the same line that make a weekday a recurring one.
const RECURRING_LINE: [&str; 5] = ["weekly", "every week", "each week", "recurring", "biweekly"];
/// Month names: a weekday followed by one is part of an absolute date.
const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn is_excluded(text: &str, start: usize, end: usize, rel: Rel) -> bool {
    let before = &text[..start];
    let after = &text[end..];
    // A Hangul word that merely contains the day word (아모레).
    if text[start..].starts_with(is_hangul) && before.ends_with(is_hangul) {
        return true;
    }
    // Every week: 每周, 毎週, 매주 just before.
    let tail: String = before.chars().rev().take(3).collect();
    if tail.contains(['每', '毎']) || tail.contains("주매") {
        return true;
    }
    if !matches!(rel, Rel::NextWeekday(_)) {
        return false;
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line_end = after.find('\n').map_or(text.len(), |i| end + i);
    let line = text[line_start..line_end].to_lowercase();
    let before_lower = text[line_start..start].to_lowercase();
    let after_lower = after.to_lowercase();
    let next = after_lower.trim_start_matches([',', ' ']);
    after.starts_with("'s")
        || after.starts_with("’s")
        || RECURRING_BEFORE.iter().any(|w| before_lower.ends_with(w))
        || RECURRING_LINE.iter().any(|w| line.contains(w))
        || next.starts_with(|c: char| c.is_ascii_digit())
        || MONTHS.iter().any(|m| next.starts_with(m))
}

fn is_hangul(c: char) -> bool {
    ('\u{ac00}'..='\u{d7a3}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(body: &str) -> Vec<&str> {
        find(body).iter().map(|f| &body[f.start..f.end]).collect()
    }

    #[test]
    fn finds_english_relative_dates() {
        let body = "Ship tomorrow. Demo on Thursday, review this Friday, retro next week, \
                    sync last Monday, release in two days, broke 3 days ago.";
        assert_eq!(
            words(body),
            [
                "tomorrow",
                "Thursday",
                "this Friday",
                "next week",
                "last Monday",
                "in two days",
                "3 days ago"
            ]
        );
    }

    #[test]
    fn recurring_weekdays_and_code_are_not_relative() {
        for body in [
            "Standup every Thursday at 10.",
            "We deploy on Thursdays.",
            "Thursday's standup is weekly.",
            "Run `deploy --when tomorrow` to schedule.",
            "Since Thursday, 5 March 2026 the API is v2.",
            "Planning is on a Monday.",
            "```\nyesterday\n```\n",
            "Todays and tomorrows are words; Mondayitis too.",
        ] {
            assert_eq!(words(body), Vec::<&str>::new(), "{body}");
        }
    }

    #[test]
    fn finds_cjk_relative_dates() {
        assert_eq!(
            words("明天发布，昨天回滚，下周评审，上周三上线，本周五冻结，后天。"),
            ["明天", "昨天", "下周", "上周三", "本周五", "后天"]
        );
        assert_eq!(
            words("明日リリース。昨日、来週、先週、今週の金曜日、あした。"),
            ["明日", "昨日", "来週", "先週", "今週の金曜日", "あした"]
        );
        assert_eq!(
            words("내일 배포, 어제 롤백, 다음 주 회의, 지난주 장애, 이번 주 금요일, 모레."),
            [
                "내일",
                "어제",
                "다음 주",
                "지난주",
                "이번 주 금요일",
                "모레"
            ]
        );
        assert_eq!(
            words("每周五发布。毎週金曜日。매주 금요일. 아모레"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn replacements_follow_the_reference_date() {
        // 2026-03-04 is a Wednesday.
        let reference = Some(jiff::civil::date(2026, 3, 4));
        let body = "tomorrow, Thursday, Wednesday, next Monday, 本周五, 今週の日曜日, in two days";
        let got: Vec<Option<String>> = find(body)
            .iter()
            .map(|f| f.replacement(reference))
            .collect();
        assert_eq!(
            got,
            [
                Some("2026-03-05".to_owned()),
                Some("2026-03-05".to_owned()),
                None,
                None,
                Some("2026-03-06".to_owned()),
                None,
                Some("on 2026-03-06".to_owned()),
            ]
        );
    }
}
