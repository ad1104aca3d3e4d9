//! The manifest a model chooses memories from (SPEC R5.4).

use std::fmt::Write;

use crate::MemoryHeader;

/// One line per memory: `- [type] filename (ISO-8601 UTC mtime):
/// description`, leaving out `[type] ` for an untyped memory and
/// `: description` when there is none.
///
/// The time is [`MemoryHeader::mtime_ms`], the memory's effective time
/// (its recorded `modified`, else its mtime): R5.4 names the mtime, but the
/// manifest's time is there for a model to judge how stale a memory is,
/// which is freshness in R2.5's sense, and a cloned folder's mtimes would
/// show every memory as written at checkout.
///
/// ```
/// use memdir_scan::{format_manifest, MemoryHeader};
/// let m = MemoryHeader {
///     filename: "notes/db.md".into(),
///     file_path: "/m/notes/db.md".into(),
///     mtime_ms: 1_764_000_000_000,
///     name: None,
///     description: None,
///     memory_type: None,
///     body_head: String::new(),
///     supersedes: Vec::new(),
///     superseded_by: None,
/// };
/// assert_eq!(format_manifest(&[m]), "- notes/db.md (2025-11-24T16:00:00.000Z)");
/// ```
#[must_use]
pub fn format_manifest(memories: &[MemoryHeader]) -> String {
    let mut out = String::new();
    for (i, m) in memories.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("- ");
        if let Some(t) = m.memory_type {
            let _ = write!(out, "[{t}] ");
        }
        let _ = write!(out, "{} ({})", m.filename, iso_utc(m.mtime_ms));
        if let Some(d) = m.description.as_deref().filter(|d| !d.trim().is_empty()) {
            let _ = write!(out, ": {}", d.trim());
        }
    }
    out
}

/// Milliseconds since the Unix epoch as ISO-8601 UTC with milliseconds,
/// `2026-11-29T19:27:54.123Z`. Out-of-range times print as the epoch.
#[must_use]
pub fn iso_utc(ms: i64) -> String {
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use memdir_memtypes::MemoryType;

    fn header(filename: &str, t: Option<MemoryType>, d: Option<&str>) -> MemoryHeader {
        MemoryHeader {
            filename: filename.into(),
            file_path: filename.into(),
            mtime_ms: 1_795_000_000_123,
            name: None,
            description: d.map(Into::into),
            memory_type: t,
            body_head: String::new(),
            supersedes: Vec::new(),
            superseded_by: None,
        }
    }

    #[test]
    fn each_optional_part() {
        let lines = format_manifest(&[
            header("a.md", Some(MemoryType::Feedback), Some("Use pnpm")),
            header("b.md", None, Some("Untyped")),
            header("c.md", Some(MemoryType::User), None),
            header("d.md", None, Some("  ")),
        ]);
        assert_eq!(
            lines,
            "- [feedback] a.md (2026-11-18T11:06:40.123Z): Use pnpm\n\
             - b.md (2026-11-18T11:06:40.123Z): Untyped\n\
             - [user] c.md (2026-11-18T11:06:40.123Z)\n\
             - d.md (2026-11-18T11:06:40.123Z)"
        );
    }

    #[test]
    fn iso_keeps_three_decimals_and_survives_extremes() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_utc(i64::MAX), "1970-01-01T00:00:00.000Z");
    }
}
