//! The values of the known keys read as text: a memory type and an
//! ISO 8601 time, each with its diagnostic when it is not one. Shared by
//! the YAML reader and the line-by-line recovery.

use super::parsed::Diagnostic;
use crate::types::MemoryType;

pub(super) fn type_text(value: &str, diags: &mut Vec<Diagnostic>) -> Option<MemoryType> {
    let parsed = MemoryType::parse(value);
    if parsed.is_none() {
        diags.push(Diagnostic::UnknownType {
            value: value.to_owned(),
        });
    }
    parsed
}

pub(super) fn modified_text(
    key: &'static str,
    value: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<jiff::Timestamp> {
    let parsed = parse_iso_time(value);
    if parsed.is_none() {
        diags.push(Diagnostic::InvalidModified {
            key,
            value: value.to_owned(),
        });
    }
    parsed
}

/// File names written as text: one name, or a flow list `[a.md, b.md]`
/// (what a block that is not valid YAML still shows), each unquoted.
pub(super) fn names_text(value: &str) -> Vec<String> {
    let value = value.trim();
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    inner
        .split(',')
        .map(|n| n.trim().trim_matches(['"', '\'']).trim())
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An ISO 8601 time: a timestamp with an offset (`2026-03-05T09:30:00Z`,
/// `…+01:00`) as the reference agent writes it, or, as a person might, a
/// date and time without an offset or a bare date, both read as UTC.
#[must_use]
pub fn parse_iso_time(value: &str) -> Option<jiff::Timestamp> {
    let value = value.trim();
    if let Ok(ts) = value.parse::<jiff::Timestamp>() {
        return Some(ts);
    }
    let datetime = value.parse::<jiff::civil::DateTime>().ok().or_else(|| {
        value
            .parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    })?;
    jiff::tz::Offset::UTC.to_timestamp(datetime).ok()
}
