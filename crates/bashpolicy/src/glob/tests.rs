//! Glob patterns matched as Bash matches them: `*`, `?`, sets, escapes,
//! and a leading `.` matched only by a literal one.

use super::*;

#[track_caller]
fn check(pattern: &str, name: &str, expected: bool) {
    let parsed = Pattern::parse(pattern);
    assert_eq!(parsed.segments.len(), 1, "{pattern:?}");
    assert_eq!(
        matches(&parsed.segments[0], name),
        expected,
        "{pattern:?} against {name:?}"
    );
}

#[test]
fn stars_and_question_marks_match_as_in_bash() {
    check("*", "a", true);
    check("*", "", true);
    check("*.md", "notes.md", true);
    check("*.md", "notes.md.bak", false);
    check("a*b*c", "axxbyyc", true);
    check("a*b*c", "axxbyy", false);
    check("**x", "yx", true);
    check("?", "a", true);
    check("?", "ab", false);
    check("?.rs", "é.rs", true);
    check("*a*a*a*a*a*b", &"a".repeat(60), false);
}

#[test]
fn a_leading_dot_is_matched_only_by_a_literal_dot() {
    check("*", ".hidden", false);
    check("?hidden", ".hidden", false);
    check("[.]hidden", ".hidden", false);
    check(".*", ".hidden", true);
    check(r"\.h*", ".hidden", true);
    check("*.md", ".x.md", false);
}

#[test]
fn sets_match_one_character_of_them() {
    check("[ab]", "a", true);
    check("[ab]", "c", false);
    check("[!ab]", "c", true);
    check("[^ab]", "a", false);
    check("[a-c]x", "bx", true);
    check("[a-c]x", "dx", false);
    check("[]]", "]", true);
    check("[!]]", "]", false);
    check("[a-]", "-", true);
    check("[[:digit:]]*", "7up", true);
    check("[[:digit:]]*", "up", false);
    check("[[:upper:][:digit:]]", "Q", true);
    check(r"[\]]", "]", true);
}

#[test]
fn an_unclosed_or_unknown_set_is_literal() {
    let parsed = Pattern::parse("a[b");
    assert!(!parsed.is_glob());
    check("a[b", "a[b", true);
    // A set cannot hold a `/`.
    assert!(!Pattern::parse("[a/b]").is_glob());
}

#[test]
fn escaped_characters_mean_themselves() {
    assert!(!Pattern::parse(r"\*\?\[a]").is_glob());
    check(r"\*", "*", true);
    check(r"\*", "x", false);
    let mut pattern = String::new();
    for c in "a*[b]?\\".chars() {
        escape_into(&mut pattern, c);
    }
    assert_eq!(pattern, r"a\*\[b\]\?\\");
    assert!(!Pattern::parse(&pattern).is_glob());
}

#[test]
fn patterns_are_split_into_folders() {
    let parsed = Pattern::parse("src/*/lib.rs");
    assert_eq!(parsed.segments.len(), 3);
    assert!(!parsed.absolute);
    assert!(Pattern::parse("/etc/*").absolute);
    assert!(Pattern::parse(r"\/etc/*").absolute);
    assert!(Pattern::parse("*/").folders_only);
    assert!(Pattern::parse("a/../*").check("a/../*").is_err());
    assert!(Pattern::parse(r"a/\.\./*").check("a/../*").is_err());
    assert!(Pattern::parse("a/..b/*").check("a/..b/*").is_ok());
}
