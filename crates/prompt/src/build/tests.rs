//! Unit tests of the assembly: placeholders, section joins, the empty index
//! and the size budget.

use camino::Utf8Path;
use std::fmt::Write;

use super::*;

const AUTO: &str = "/m/";
const TEAM: &str = "/m/team/";
const LOG: &str = "/m/logs/2026/03/2026-03-05.md";

fn all_modes(index: &str, options: PromptOptions) -> [String; 3] {
    [
        build_single_prompt(Utf8Path::new(AUTO), index, &options),
        build_combined_prompt(
            Utf8Path::new(AUTO),
            Utf8Path::new(TEAM),
            index,
            index,
            &options,
        ),
        build_daily_log_prompt(Utf8Path::new(AUTO), Utf8Path::new(LOG), index, &options),
    ]
}

fn filled(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::new();
    fill(template, vars, &mut out);
    out
}

#[test]
fn fill_replaces_known_names_once() {
    let vars = [
        ("index", "{index} {auto_dir}"),
        ("index_path", "/m/MEMORY.md"),
    ];
    assert_eq!(
        filled("a {index_path} b {index} c {other} {", &vars),
        "a /m/MEMORY.md b {index} {auto_dir} c {other} {"
    );
    assert_eq!(filled("", &vars), "");
    assert_eq!(filled("{index}{index}", &[("index", "x")]), "xx");
}

#[test]
fn assemble_skips_empty_sections_and_ends_with_one_newline() {
    assert_eq!(
        assemble(&["# A\n", "", "  ", "## B\n\n"], &[]),
        "# A\n\n## B\n"
    );
}

#[test]
fn every_placeholder_is_filled_in_every_mode() {
    for include_search_section in [false, true] {
        let options = PromptOptions {
            assistant_mode: false,
            include_search_section,
        };
        for text in all_modes("- [a](a.md) — hook", options) {
            for name in [
                "auto_dir",
                "team_dir",
                "log_path",
                "index_path",
                "team_index_path",
                "index",
                "team_index",
            ] {
                assert!(!text.contains(&format!("{{{name}}}")), "{name} in:\n{text}");
            }
            assert!(!text.contains("\n\n\n"), "a double blank line in:\n{text}");
        }
    }
}

#[test]
fn an_absent_or_blank_index_is_stated_plainly() {
    for index in ["", " \n\n\t\n"] {
        for text in all_modes(index, PromptOptions::default()) {
            assert!(text.contains("_Empty: no memories saved yet._"), "{text}");
        }
    }
    let [single, ..] = all_modes("- [a](a.md) — hook", PromptOptions::default());
    assert!(!single.contains("no memories saved yet"));
}

#[test]
fn the_index_is_truncated_with_its_warning() {
    let mut index = String::new();
    for i in 1..=201 {
        writeln!(index, "- [m{i}](m{i}.md) — h").unwrap();
    }
    let [single, ..] = all_modes(&index, PromptOptions::default());
    assert!(single.contains("- [m200](m200.md) — h\n"));
    assert!(!single.contains("m201"));
    assert!(single.contains("> WARNING: MEMORY.md is 201 lines (limit: 200)."));
}

#[test]
fn the_search_section_is_optional() {
    let heading = "## Searching past sessions";
    for text in all_modes("", PromptOptions::default()) {
        assert!(!text.contains(heading));
    }
    let options = PromptOptions {
        include_search_section: true,
        ..PromptOptions::default()
    };
    for text in all_modes("", options) {
        assert!(text.contains(heading));
        assert!(text.contains("grep -rn \"term\" /m/"));
    }
}

/// The prompt goes into every request, so it must stay compact: each mode,
/// with every optional section and an empty index, stays under 2,000 words.
#[test]
fn every_mode_stays_within_the_word_budget() {
    let options = PromptOptions {
        include_search_section: true,
        ..PromptOptions::default()
    };
    for text in all_modes("", options) {
        let words = text.split_whitespace().count();
        assert!(words < 2_000, "{words} words");
    }
}
