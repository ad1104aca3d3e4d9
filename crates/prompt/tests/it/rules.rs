//! Each rule of SPEC R7 (and the R1–R3 guidance it carries) is in the text
//! of the modes it belongs to, and only there: removing or moving a rule
//! fails one of these tests.

use camino::Utf8Path;

use memdir_memtypes::MemoryType;
use memdir_prompt::{
    PromptOptions, build_combined_prompt, build_daily_log_prompt, build_single_prompt,
};

const AUTO: &str = "/home/user/.claude/projects/-home-user-app/memory/";
const TEAM: &str = "/home/user/.claude/projects/-home-user-app/memory/team/";
const LOG: &str = "/home/user/.claude/projects/-home-user-app/memory/logs/2026/03/2026-03-05.md";
const PRIVATE_INDEX: &str = "- [Backend developer](user-role.md) — explain frontend via backend";
const TEAM_INDEX: &str = "- [No database mocks](no-db-mocking.md) — tests hit a real database";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Single,
    Combined,
    DailyLog,
}

const MODES: [Mode; 3] = [Mode::Single, Mode::Combined, Mode::DailyLog];

fn build(mode: Mode, include_search_section: bool) -> String {
    let options = PromptOptions {
        assistant_mode: mode == Mode::DailyLog,
        include_search_section,
    };
    let (auto, team, log) = (Utf8Path::new(AUTO), Utf8Path::new(TEAM), Utf8Path::new(LOG));
    match mode {
        Mode::Single => build_single_prompt(auto, PRIVATE_INDEX, &options),
        Mode::Combined => build_combined_prompt(auto, team, PRIVATE_INDEX, TEAM_INDEX, &options),
        Mode::DailyLog => build_daily_log_prompt(auto, log, PRIVATE_INDEX, &options),
    }
}

/// The `#` and `##` headings of a text, outside code blocks.
fn headings(text: &str) -> Vec<&str> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && (line.starts_with("# ") || line.starts_with("## ")) {
            out.push(line);
        }
    }
    out
}

/// The section under a `##` heading, up to the next `##` heading.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no {heading:?} in:\n{text}"));
    let body = &text[start + 1..];
    let end = body[3..].find("\n## ").map_or(body.len(), |i| i + 4);
    &body[..end]
}

/// The title and introduction: everything before the first `##` heading.
fn intro(text: &str) -> &str {
    assert!(text.starts_with(&format!("{TITLE}\n")), "{text}");
    let end = text.find("\n## ").expect("a second section");
    &text[..=end]
}

fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
}

const TITLE: &str = "# Persistent memory";
const SCOPE: &str = "## Memory scope: private or team";
const TYPES: &str = "## Four types of memory";
const NOT_TO_SAVE: &str = "## What not to save";
const HOW_TO_SAVE: &str = "## How to save memories";
const HOW_TO_LOG: &str = "## How to log memories";
const WHEN_TO_READ: &str = "## When to read memories";
const TRUST_CHECK: &str = "## Check before you rely on a memory";
const OTHER_PERSISTENCE: &str = "## Memory versus plans, todos and CLAUDE.md";
const SEARCH: &str = "## Searching past sessions";
const INDEX: &str = "## Your MEMORY.md";
const INDEXES: &str = "## Your MEMORY.md indexes";

/// The sections of each mode in the order of R7.2, with the optional search
/// section.
fn expected_headings(mode: Mode) -> Vec<&'static str> {
    match mode {
        Mode::Single => vec![
            TITLE,
            TYPES,
            NOT_TO_SAVE,
            HOW_TO_SAVE,
            WHEN_TO_READ,
            TRUST_CHECK,
            OTHER_PERSISTENCE,
            SEARCH,
            INDEX,
        ],
        Mode::Combined => vec![
            TITLE,
            SCOPE,
            TYPES,
            NOT_TO_SAVE,
            HOW_TO_SAVE,
            WHEN_TO_READ,
            TRUST_CHECK,
            OTHER_PERSISTENCE,
            SEARCH,
            INDEXES,
        ],
        Mode::DailyLog => vec![
            TITLE,
            TYPES,
            NOT_TO_SAVE,
            HOW_TO_LOG,
            WHEN_TO_READ,
            TRUST_CHECK,
            OTHER_PERSISTENCE,
            SEARCH,
            INDEX,
        ],
    }
}

#[test]
fn sections_come_in_the_specified_order() {
    for mode in MODES {
        let with_search = expected_headings(mode);
        assert_eq!(headings(&build(mode, true)), with_search, "{mode:?}");
        let without: Vec<&str> = with_search.into_iter().filter(|h| *h != SEARCH).collect();
        assert_eq!(headings(&build(mode, false)), without, "{mode:?}");
    }
}

#[test]
fn the_introduction_names_the_folders() {
    let single = build(Mode::Single, false);
    assert_contains_all(
        intro(&single),
        &[&format!("`{AUTO}`"), "outlasts this conversation"],
    );
    let combined = build(Mode::Combined, false);
    assert_contains_all(
        intro(&combined),
        &[
            &format!("**private** `{AUTO}`"),
            &format!("**team** `{TEAM}`"),
            "outlasts this conversation",
        ],
    );
}

#[test]
fn the_four_types_come_in_order_with_what_when_how_and_an_example() {
    for mode in MODES {
        let text = build(mode, false);
        let types = section(&text, TYPES);
        let subheadings: Vec<&str> = types.lines().filter(|l| l.starts_with("### ")).collect();
        let expected: Vec<String> = MemoryType::ALL
            .iter()
            .map(|t| format!("### {}", t.as_str()))
            .collect();
        assert_eq!(subheadings, expected, "{mode:?}");
        for (i, t) in MemoryType::ALL.iter().enumerate() {
            let heading = &expected[i];
            let start = types.find(&format!("{heading}\n")).unwrap();
            let end = expected
                .get(i + 1)
                .map_or(types.len(), |next| types.find(next.as_str()).unwrap());
            let body = &types[start..end];
            assert_contains_all(body, &["**Save when**", "**Use it to**", "**Example"]);
            // Feedback and project memories lead with the rule or fact, then
            // give the reason and when it applies (R2.1).
            if matches!(t, MemoryType::Feedback | MemoryType::Project) {
                assert_contains_all(body, &["first", "**Why:**", "**How to apply:**"]);
            }
        }
    }
}

#[test]
fn scope_tags_appear_in_combined_mode_only() {
    let combined = build(Mode::Combined, false);
    let types = section(&combined, TYPES);
    assert_eq!(types.matches("\n<scope>").count(), 4, "{types}");
    assert_eq!(
        combined.matches("<scope>").count(),
        5,
        "4 tags and the mention"
    );
    for (t, scope) in MemoryType::ALL.iter().zip([
        "<scope>always private</scope>",
        "<scope>private by default; team when it is a convention the whole project follows</scope>",
        "<scope>team, in nearly every case</scope>",
        "<scope>usually team; private when only this user has access</scope>",
    ]) {
        assert!(
            types.contains(&format!("### {t}\n\n{scope}\n")),
            "{t}: {scope}"
        );
    }
    for mode in [Mode::Single, Mode::DailyLog] {
        assert!(!build(mode, true).contains("<scope>"), "{mode:?}");
    }
}

#[test]
fn the_scope_section_and_the_no_secrets_rule_are_combined_only() {
    let combined = build(Mode::Combined, false);
    let scope = section(&combined, SCOPE);
    // R1.2 leanings.
    assert_contains_all(
        scope,
        &[
            "`user` memories are always private",
            "`feedback` is private unless it records a convention the whole project follows",
            "`project` memories belong here in nearly every case",
            "most `reference` memories",
        ],
    );
    // Shared memories never hold sensitive data.
    assert_contains_all(
        scope,
        &[
            "copied to every member of the team",
            "NEVER save secrets, credentials",
            "personal or sensitive information",
        ],
    );
    assert!(section(&combined, HOW_TO_SAVE).contains("nothing sensitive"));
    for mode in [Mode::Single, Mode::DailyLog] {
        let text = build(mode, true);
        for absent in ["Memory scope", "NEVER", "secrets", "team folder"] {
            assert!(!text.contains(absent), "{mode:?}: {absent}");
        }
    }
}

#[test]
fn every_kind_of_thing_not_to_save_is_listed() {
    for mode in MODES {
        let text = build(mode, false);
        let not = section(&text, NOT_TO_SAVE);
        assert_contains_all(
            not,
            &[
                "**Code patterns, architecture, or file paths**",
                "read from the project as it is now",
                "**Git history**",
                "`git log` and `git blame`",
                "**Debugging recipes**",
                "the fix is in the code",
                "commit message",
                "**Anything already in CLAUDE.md**",
                "**Ephemeral task details**",
            ],
        );
    }
}

#[test]
fn saving_writes_the_topic_file_then_its_index_line() {
    for mode in [Mode::Single, Mode::Combined] {
        let text = build(mode, false);
        let save = section(&text, HOW_TO_SAVE);
        let file = save
            .find("**1. Write the memory to its own file**")
            .unwrap();
        let line = save.find("**2. Add one line for it to").unwrap();
        assert!(file < line, "{mode:?}: the file before its index line");
        assert_contains_all(
            save,
            &[
                "---\nname: no-db-mocking\ndescription: ",
                "\ntype: feedback\n---\n",
                "**Why:**",
                "**How to apply:**",
                "`description` is one specific line",
                "`- [No database mocks](no-db-mocking.md) — integration tests hit a real database`",
                "`MEMORY.md` is an index, not a memory: no frontmatter, one line per memory, each under about 150 characters",
                "by topic, not by date",
                "rather than adding a near-duplicate",
                "Turn relative dates into absolute ones",
                "\"Thursday\" becomes \"2026-03-05\"",
            ],
        );
    }
}

#[test]
fn daily_log_mode_appends_to_todays_log() {
    let text = build(Mode::DailyLog, false);
    assert_contains_all(
        intro(&text),
        &[&format!("`{LOG}`"), "append", "distillation"],
    );
    let log = section(&text, HOW_TO_LOG);
    assert_contains_all(
        log,
        &[
            &format!("`{LOG}`"),
            "starting with the local time",
            "Only ever append. Never rewrite, reorder or delete earlier entries",
            "absolute dates",
            "the distillation step organises the logs",
            "you never edit `MEMORY.md` or topic files",
        ],
    );
    // The existing index is still shown, so known memories are known.
    assert!(section(&text, INDEX).contains(PRIVATE_INDEX));
    for mode in [Mode::Single, Mode::Combined] {
        let other = build(mode, true);
        assert!(!other.contains("logs/"), "{mode:?}");
        assert!(!other.contains("Only ever append"), "{mode:?}");
    }
}

#[test]
fn reading_memories_is_guided() {
    for mode in MODES {
        let text = build(mode, false);
        assert_contains_all(
            section(&text, WHEN_TO_READ),
            &[
                "index line looks relevant",
                "recall, check or remember",
                "ignore memory",
                "trust what you observe",
            ],
        );
    }
}

#[test]
fn a_memory_is_checked_before_it_is_relied_on() {
    for mode in MODES {
        let text = build(mode, false);
        assert_contains_all(
            section(&text, TRUST_CHECK),
            &[
                "mentions a file, a function or a flag",
                "what was true on the day it was written",
                "a file path: does the file exist?",
                "grep the code for the name",
                "Before you recommend it or act on it",
                "\"The memory says X exists\" is not \"X exists now\"",
            ],
        );
    }
}

#[test]
fn memory_is_told_apart_from_plans_todos_and_the_instruction_file() {
    for mode in MODES {
        let text = build(mode, false);
        assert_contains_all(
            section(&text, OTHER_PERSISTENCE),
            &[
                "**A plan**",
                "**A todo list**",
                "**CLAUDE.md**, the project's instruction file",
                "**Memory** is for what will still matter in a future conversation",
            ],
        );
    }
}

#[test]
fn combined_mode_shows_both_indexes_labelled() {
    let text = build(Mode::Combined, false);
    let indexes = section(&text, INDEXES);
    let private = indexes
        .find(&format!(
            "### Private index: `{AUTO}MEMORY.md`\n\n{PRIVATE_INDEX}\n"
        ))
        .expect("the private index under its label");
    let team = indexes
        .find(&format!(
            "### Team index: `{TEAM}MEMORY.md`\n\n{TEAM_INDEX}\n"
        ))
        .expect("the team index under its label");
    assert!(private < team);
}

#[test]
fn each_index_is_stated_empty_on_its_own() {
    let options = PromptOptions::default();
    let text = build_combined_prompt(
        Utf8Path::new(AUTO),
        Utf8Path::new(TEAM),
        "",
        TEAM_INDEX,
        &options,
    );
    let indexes = section(&text, INDEXES);
    assert!(indexes.contains("MEMORY.md`\n\n_Empty: no memories saved yet._\n\n### Team index"));
    assert!(indexes.ends_with(&format!("{TEAM_INDEX}\n")));
}

#[test]
fn the_combined_prompt_stays_compact() {
    let text = build_combined_prompt(
        Utf8Path::new(AUTO),
        Utf8Path::new(TEAM),
        "",
        "",
        &PromptOptions {
            include_search_section: true,
            ..PromptOptions::default()
        },
    );
    let words = text.split_whitespace().count();
    assert!(words < 2_500, "{words} words");
}
