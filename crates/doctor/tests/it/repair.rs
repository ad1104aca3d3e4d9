//! The date repair: only what `modified` decides, the frontmatter byte
//! for byte, and nothing more on a second run.

use memdir_doctor::fix_relative_dates;

const NESTED: &str = "---\r\nname: plan\r\n# a comment kept\r\nmetadata:\r\n  node_type: memory\r\n  type: project\r\n  modified: 2026-03-04T23:30:00+09:00\r\n---\r\nShip tomorrow; review next Monday; `tomorrow` in code stays.\r\n";

#[test]
fn the_frontmatter_is_kept_byte_for_byte_and_the_utc_date_is_the_reference() {
    let fix = fix_relative_dates(NESTED).unwrap();
    let head = NESTED.split("---\r\nShip").next().unwrap();
    assert!(fix.text.starts_with(head), "{}", fix.text);
    // 23:30 in Tokyo is 14:30 UTC on 2026-03-04.
    assert!(
        fix.text
            .ends_with("Ship 2026-03-05; review next Monday; `tomorrow` in code stays.\r\n"),
        "{}",
        fix.text
    );
    assert_eq!(fix.changes.len(), 1);
    assert_eq!(fix.changes[0].line, 9);
    assert_eq!(
        fix_relative_dates(&fix.text),
        None,
        "a second run changes nothing"
    );
}

#[test]
fn without_modified_or_with_only_vague_dates_nothing_is_repaired() {
    assert_eq!(
        fix_relative_dates("---\nname: a\n---\nShip tomorrow.\n"),
        None
    );
    assert_eq!(
        fix_relative_dates(
            "---\nname: a\nmodified: 2026-03-04T10:00:00Z\n---\nShip next week, or last Friday.\n"
        ),
        None
    );
    assert_eq!(fix_relative_dates("no frontmatter, tomorrow"), None);
}

#[test]
fn a_weekday_equal_to_the_modified_day_is_ambiguous() {
    // 2026-03-04 is a Wednesday.
    let text = "---\nmodified: 2026-03-04T10:00:00Z\n---\nDemo on Wednesday, retro on Friday.\n";
    let fix = fix_relative_dates(text).unwrap();
    assert!(
        fix.text
            .ends_with("Demo on Wednesday, retro on 2026-03-06.\n"),
        "{}",
        fix.text
    );
}

#[test]
fn hostile_bodies_do_not_panic() {
    for body in [
        "`",
        "```",
        "\u{feff}",
        "明",
        "내",
        "in 99 days",
        "0 days ago",
        "\r\n\r\n",
        "ééé tomorrow`",
    ] {
        let text = format!("---\nmodified: 2026-03-04T10:00:00Z\n---\n{body}");
        let _ = fix_relative_dates(&text);
        let _ = fix_relative_dates(body);
    }
}

/// Words a body is made of in the property test: relative dates of the
/// four languages, recurring weekdays, code, and filler.
const WORDS: [&str; 18] = [
    "tomorrow",
    "Thursday",
    "every Friday",
    "in two days",
    "next week",
    "`yesterday`",
    "明天",
    "本周五",
    "明日",
    "今週の金曜日",
    "내일",
    "이번 주 금요일",
    "ship",
    " ",
    "\n",
    "on",
    "Monday's",
    "2026-03-05",
];

proptest::proptest! {
    #[test]
    fn a_repair_keeps_the_frontmatter_and_a_second_one_changes_nothing(
        picks in proptest::collection::vec(0..WORDS.len(), 0..24),
    ) {
        let head = "---\nname: p\nmetadata:\n  type: project\n  modified: 2026-03-04T10:00:00Z\n---\n";
        let body: String = picks.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
        let text = format!("{head}{body}\n");
        if let Some(fix) = fix_relative_dates(&text) {
            proptest::prop_assert!(fix.text.starts_with(head));
            proptest::prop_assert!(!fix.changes.is_empty());
            proptest::prop_assert_eq!(fix_relative_dates(&fix.text), None);
        }
    }
}
