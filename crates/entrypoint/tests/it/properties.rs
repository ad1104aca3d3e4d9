//! Invariants of truncation and index maintenance, as proptest properties.
//! The number of cases comes from `PROPTEST_CASES` (default 256).

use memdir_entrypoint::{
    IndexEntry, MAX_ENTRYPOINT_BYTES, MAX_ENTRYPOINT_LINES, MAX_INDEX_LINE_CHARS, find_entry,
    remove_entry, truncate_entrypoint_content, upsert_entries, upsert_entry,
};
use proptest::prelude::*;

/// One index line: ASCII, CJK (3-byte) or emoji (4-byte) text of any length
/// up to well past the byte limit, sometimes a link entry.
fn line() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        Just("a"),
        Just("é"),
        Just("汉"),
        Just("🦀"),
        Just(" "),
        Just("\t")
    ];
    let text = (unit, 0usize..400).prop_map(|(u, n)| u.repeat(n));
    prop_oneof![
        8 => text.clone(),
        2 => (0u32..1000, text.clone()).prop_map(|(i, t)| format!("- [m{i}](m{i}.md) — {t}")),
        1 => (proptest::sample::select(vec![1usize, 30_000]), Just("x")).prop_map(|(n, u)| u.repeat(n)),
    ]
}

/// An index: up to 320 lines with `\n` or `\r\n` ends and blank lines.
fn index() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(line(), 0..320),
        any::<bool>(),
        "[ \n\t]{0,4}",
        "[ \n\t]{0,4}",
    )
        .prop_map(|(lines, crlf, lead, tail)| {
            let sep = if crlf { "\r\n" } else { "\n" };
            format!("{lead}{}{tail}", lines.join(sep))
        })
}

proptest! {
    #[test]
    fn truncation_is_a_prefix_within_both_limits(raw in index()) {
        let trimmed = raw.trim();
        let t = truncate_entrypoint_content(&raw);
        let kept = t.kept();
        prop_assert!(trimmed.starts_with(kept));
        prop_assert!(trimmed.is_char_boundary(kept.len()));
        prop_assert!(kept.len() <= MAX_ENTRYPOINT_BYTES);
        prop_assert!(kept.split('\n').count() <= MAX_ENTRYPOINT_LINES);
        prop_assert_eq!(t.line_count > MAX_ENTRYPOINT_LINES, t.was_line_truncated);
        prop_assert_eq!(trimmed.len() > MAX_ENTRYPOINT_BYTES, t.was_byte_truncated);
        let expected = t.warning.as_ref().map_or_else(|| kept.to_owned(), |w| format!("{kept}\n\n{w}"));
        prop_assert_eq!(&t.content, &expected);
    }

    #[test]
    fn nothing_over_means_unchanged(raw in index()) {
        let t = truncate_entrypoint_content(&raw);
        if !t.was_truncated() {
            prop_assert_eq!(t.content.as_str(), raw.trim());
            prop_assert!(t.dropped.is_empty());
        }
    }

    #[test]
    fn a_cut_ends_at_a_line_end_unless_the_first_line_is_too_long(raw in index()) {
        let trimmed = raw.trim();
        let t = truncate_entrypoint_content(&raw);
        if t.was_truncated() {
            let first_line = trimmed.split('\n').next().unwrap_or_default();
            let rest = &trimmed[t.kept().len()..];
            let at_line_end = rest.trim_start_matches([' ', '\t', '\r']).starts_with('\n');
            prop_assert!(at_line_end || first_line.len() > MAX_ENTRYPOINT_BYTES || t.kept().is_empty(),
                "cut inside a line: {:?}", &rest[..rest.len().min(40)]);
        }
    }

    #[test]
    fn upsert_then_remove_restores_an_index_without_the_entry(
        lines in proptest::collection::vec("[a-z \\[\\]()-]{0,30}", 0..20),
        crlf in any::<bool>(),
        title in "\\PC{0,20}",
        hook in "\\PC{0,40}",
    ) {
        let sep = if crlf { "\r\n" } else { "\n" };
        let index: String = lines.iter().flat_map(|l| [l.as_str(), sep]).collect();
        let entry = IndexEntry { title, file: "topic/new-entry.md".into(), hook };
        let with = upsert_entry(&index, &entry).unwrap();
        prop_assert!(with.starts_with(&index), "other lines are not disturbed");
        let (without, removed) = remove_entry(&with, "topic/new-entry.md");
        prop_assert_eq!(removed, 1);
        prop_assert_eq!(without, index);
    }

    /// Whatever a name holds (`#`, `?`, `%`, spaces, parentheses, any
    /// script), its line links back to exactly that file, stays within the
    /// line limit, and a batch equals one upsert after another.
    #[test]
    fn every_name_round_trips_and_batches_equal_single_upserts(
        names in proptest::collection::vec("[a-z#?% ()\\-_.汉é🦀]{1,24}", 1..12),
        title in "\\PC{0,300}",
        hook in "\\PC{0,600}",
        base in proptest::collection::vec("[a-z#?%.]{1,8}", 0..6),
    ) {
        let base: String = base.iter().fold(String::new(), |mut out, n| {
            for part in ["- [", n, "](", n, ".md)\n"] {
                out.push_str(part);
            }
            out
        });
        let entries: Vec<IndexEntry> = names
            .iter()
            .map(|n| IndexEntry { title: title.clone(), file: format!("{n}.md"), hook: hook.clone() })
            .filter(|e| e.to_line().is_ok())
            .collect();
        let mut one_by_one = base.clone();
        for e in &entries {
            let line = e.to_line().unwrap();
            prop_assert!(line.chars().count() <= MAX_INDEX_LINE_CHARS.max(e.file.chars().count() + 8), "{line}");
            one_by_one = upsert_entry(&one_by_one, e).unwrap();
        }
        prop_assert_eq!(upsert_entries(&base, &entries).unwrap(), one_by_one.clone());
        for e in &entries {
            let found = find_entry(&one_by_one, &e.file);
            prop_assert!(found.is_some(), "{} lost its line in {:?}", e.file, one_by_one);
        }
        // Lines of the base index that name other files are all still there.
        for line in base.lines() {
            let file = &line[line.find("](").unwrap() + 2..line.len() - 1];
            if !entries.iter().any(|e| e.file == file) {
                prop_assert!(one_by_one.lines().any(|l| l == line), "{line} was replaced");
            }
        }
    }
}
