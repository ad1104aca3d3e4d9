//! Truncation for compaction: examples and its invariants.

use proptest::prelude::*;

use super::*;
use crate::markdown::bare;

fn bodies(text: &str) -> Vec<(String, usize)> {
    let parsed = split(text);
    let mut out = vec![(
        String::new(),
        parsed.preamble.iter().map(|l| l.chars().count()).sum(),
    )];
    for s in &parsed.sections {
        let mut lines = s.lines.as_slice();
        if lines.first().is_some_and(|l| is_description(l)) {
            lines = &lines[1..];
        }
        out.push((
            bare(s.heading).to_owned(),
            lines.iter().map(|l| l.chars().count()).sum(),
        ));
    }
    out
}

fn headings(text: &str) -> Vec<String> {
    split(text)
        .sections
        .iter()
        .map(|s| {
            let mut h = s.heading.to_owned();
            if let Some(first) = s.lines.first().filter(|l| is_description(l)) {
                h.push_str(first);
            }
            h
        })
        .collect()
}

#[test]
fn short_notes_are_left_as_they_are() {
    let notes = crate::DEFAULT_TEMPLATE;
    let cut = truncate_session_memory_for_compact(notes);
    assert_eq!(cut.truncated_content, notes);
    assert!(!cut.was_truncated);
    assert_eq!(
        truncate_session_memory_for_compact("").truncated_content,
        ""
    );
}

#[test]
fn a_long_section_is_cut_at_a_line_and_the_others_kept() {
    let long = "x".repeat(100) + "\n";
    let notes = format!("# A\n_a_\n{}# B\n_b_\nshort\n", long.repeat(200));
    let cut = truncate_session_memory_for_compact(&notes);
    assert!(cut.was_truncated);
    let text = &cut.truncated_content;
    assert!(text.ends_with(&format!("{TRUNCATION_MARKER}# B\n_b_\nshort\n")));
    let kept = text.matches(&long).count();
    // 78 lines of 101 characters and the 75 of the marker fit in 8,000;
    // a 79th would not.
    assert_eq!(kept, 78);
    assert!(bodies(text).iter().all(|(_, n)| *n <= MAX_SECTION_CHARS));
}

#[test]
fn one_overlong_line_is_dropped_whole_and_the_description_kept() {
    let notes = format!("# A\n_a_\n{}\nafter\n", "y".repeat(9_000));
    let cut = truncate_session_memory_for_compact(&notes);
    assert_eq!(
        cut.truncated_content,
        format!("# A\n_a_\n{TRUNCATION_MARKER}")
    );
}

#[test]
fn a_cut_inside_a_code_block_closes_it_so_later_headings_survive() {
    let code = "let x = 1;\n".repeat(1_000);
    let notes = format!("# A\n_a_\n~~~~rust\n{code}~~~~\n# B\n_b_\nend\n");
    let cut = truncate_session_memory_for_compact(&notes);
    assert!(cut.was_truncated);
    assert!(
        cut.truncated_content
            .contains(&format!("let x = 1;\n~~~~\n{TRUNCATION_MARKER}# B\n"))
    );
    assert_eq!(headings(&cut.truncated_content), headings(&notes));
    assert_eq!(
        truncate_session_memory_for_compact(&cut.truncated_content),
        TruncatedNotes {
            truncated_content: cut.truncated_content.clone(),
            was_truncated: false
        }
    );
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zé🦀 ]{0,120}",
        1 => "[a-z]{200,3000}",
        1 => Just("```".to_owned()),
        1 => Just("~~~~ text".to_owned()),
        1 => Just("# inside".to_owned()),
        1 => Just("_italic_".to_owned()),
        1 => Just(String::new()),
    ]
}

fn section() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["# One", "# Two", "# Three", "#"]),
        prop::bool::ANY,
        prop::collection::vec(line(), 0..80),
        prop::bool::ANY,
    )
        .prop_map(|(heading, described, lines, crlf)| {
            let end = if crlf { "\r\n" } else { "\n" };
            let mut s = format!("{heading}{end}");
            if described {
                s.push_str("_what goes here_");
                s.push_str(end);
            }
            for l in lines {
                s.push_str(&l);
                s.push_str(end);
            }
            s
        })
}

fn notes() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 0..5),
        prop::collection::vec(section(), 0..6),
        prop::bool::ANY,
    )
        .prop_map(|(pre, sections, chop)| {
            let mut s = String::new();
            for l in pre {
                s.push_str(&l);
                s.push('\n');
            }
            s.extend(sections);
            if chop {
                s.pop();
            }
            s
        })
}

proptest! {
    #[test]
    fn every_body_fits_headings_stay_and_a_second_cut_changes_nothing(text in notes()) {
        let cut = truncate_session_memory_for_compact(&text);
        let out = &cut.truncated_content;
        for (heading, chars) in bodies(out) {
            prop_assert!(chars <= MAX_SECTION_CHARS, "{heading}: {chars}");
        }
        prop_assert_eq!(headings(out), headings(&text));
        prop_assert_eq!(cut.was_truncated, out != &text);
        let again = truncate_session_memory_for_compact(out);
        prop_assert_eq!(&again.truncated_content, out);
        prop_assert!(!again.was_truncated);
    }
}
