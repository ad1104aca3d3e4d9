//! Each case under `fixtures/entrypoint/` still is what its name says, so
//! that the golden snapshots keep testing the edge they were made for.

use std::path::PathBuf;

use memdir_entrypoint::{FolderListing, LintKind, lint_index, truncate_entrypoint_content};

fn case_dir(case: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "fixtures",
        "entrypoint",
        case,
    ]
    .iter()
    .collect()
}

fn fixture(case: &str) -> String {
    let path = case_dir(case).join("MEMORY.md");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn lint_kinds(case: &str) -> Vec<LintKind> {
    let dir = case_dir(case);
    let listing = FolderListing::read(&dir).unwrap();
    lint_index(&fixture(case), Some(&listing))
        .iter()
        .map(|l| l.kind)
        .collect()
}

/// Checks a case's counts, flags and the lines of the entries it drops.
fn check(case: &str, lines: usize, bytes: usize, flags: (bool, bool), dropped: &[usize]) {
    let t = truncate_entrypoint_content(&fixture(case));
    assert_eq!(
        (t.line_count, t.byte_count),
        (lines, bytes),
        "{case}: counts"
    );
    assert_eq!(
        (t.was_line_truncated, t.was_byte_truncated),
        flags,
        "{case}: flags"
    );
    let got: Vec<usize> = t.dropped.iter().map(|d| d.line).collect();
    assert_eq!(got, dropped, "{case}: dropped entries");
}

#[test]
fn size_cases_sit_on_their_edges() {
    check("empty", 0, 0, (false, false), &[]);
    check("lines-200", 200, 13_730, (false, false), &[]);
    check("lines-201", 201, 13_797, (true, false), &[201]);
    check("bytes-25000", 166, 25_000, (false, false), &[]);
    check("bytes-25001", 166, 25_001, (false, true), &[166]);
    check(
        "multibyte-straddle",
        167,
        25_132,
        (false, true),
        &[166, 167],
    );
    check("first-line-over", 1, 30_198, (false, true), &[1]);
    check("crlf", 210, 14_596, (true, false), &[201]);
    check("both-limits", 250, 26_500, (true, true), &[250]);
    check("blank-around", 6, 69, (false, false), &[]);
}

#[test]
fn the_byte_cut_lands_where_the_case_says() {
    // The mark of the straddle case falls inside a 3-byte character.
    let text = fixture("multibyte-straddle");
    assert!(!text.trim().is_char_boundary(25_000));
    let t = truncate_entrypoint_content(&text);
    assert!(
        t.kept().ends_with("before merging") || t.kept().ends_with('x'),
        "whole ASCII line kept last"
    );
    // The one-line case is cut inside its line at a character boundary
    // short of the mark, which falls inside a 4-byte character.
    let text = fixture("first-line-over");
    assert!(!text.trim().is_char_boundary(25_000));
    let t = truncate_entrypoint_content(&text);
    assert!(t.kept().len() < 25_000 && t.kept().len() > 24_996);
    // CRLF: 200 lines kept, no trailing carriage return.
    let t = truncate_entrypoint_content(&fixture("crlf"));
    assert_eq!(t.kept().split('\n').count(), 200);
    assert!(!t.kept().ends_with('\r'));
}

#[test]
fn lint_cases_find_what_they_are_named_for() {
    use LintKind::*;
    assert_eq!(lint_kinds("clean"), []);
    assert_eq!(lint_kinds("lint-long-line"), [LongLine, LongLine]);
    assert_eq!(
        lint_kinds("lint-missing-unlinked"),
        [MissingFile, MissingFile, UnlinkedFile, UnlinkedFile]
    );
    assert_eq!(
        lint_kinds("lint-duplicate-outside"),
        [
            DuplicateLink,
            LinkOutsideFolder,
            LinkOutsideFolder,
            DuplicateLink
        ]
    );
    assert_eq!(lint_kinds("lint-frontmatter"), [Frontmatter]);
    assert_eq!(lint_kinds("team-subfolder"), []);
}
