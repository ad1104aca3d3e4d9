//! Golden snapshots: each mode built from a memory folder under
//! `fixtures/prompt/`, with fixed fake paths so that the text is the same
//! on every machine.

use std::path::{Path, PathBuf};

use camino::Utf8Path;

use memdir_prompt::{
    PromptOptions, build_combined_prompt, build_daily_log_prompt, build_single_prompt,
};

const AUTO: &str = "/home/user/.claude/projects/-home-user-app/memory/";
const TEAM: &str = "/home/user/.claude/projects/-home-user-app/memory/team/";
const LOG: &str = "/home/user/.claude/projects/-home-user-app/memory/logs/2026/03/2026-03-05.md";

fn memory_dir(case: &str) -> PathBuf {
    let dir: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "fixtures",
        "prompt",
        case,
        "memory",
    ]
    .iter()
    .collect();
    assert!(dir.is_dir(), "{} is missing", dir.display());
    dir
}

/// The index of a fixture folder; a missing file is an empty index, as in
/// `load_memory_prompt`.
fn index(dir: &Path) -> String {
    match std::fs::read(dir.join("MEMORY.md")) {
        Ok(bytes) => String::from_utf8(bytes).unwrap(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

#[test]
fn single() {
    let dir = memory_dir("single");
    let text = build_single_prompt(Utf8Path::new(AUTO), &index(&dir), &PromptOptions::default());
    insta::assert_snapshot!("single", text);
}

/// The combined snapshot also carries the optional search section, so that
/// its wording is reviewed too.
#[test]
fn combined() {
    let dir = memory_dir("combined");
    let options = PromptOptions {
        include_search_section: true,
        ..PromptOptions::default()
    };
    let text = build_combined_prompt(
        Utf8Path::new(AUTO),
        Utf8Path::new(TEAM),
        &index(&dir),
        &index(&dir.join("team")),
        &options,
    );
    insta::assert_snapshot!("combined", text);
}

#[test]
fn daily_log() {
    let dir = memory_dir("daily-log");
    let options = PromptOptions {
        assistant_mode: true,
        ..PromptOptions::default()
    };
    let text = build_daily_log_prompt(
        Utf8Path::new(AUTO),
        Utf8Path::new(LOG),
        &index(&dir),
        &options,
    );
    insta::assert_snapshot!("daily_log", text);
}

#[test]
fn truncated() {
    let dir = memory_dir("truncated");
    let raw = index(&dir);
    assert!(
        raw.lines().count() > 200,
        "the fixture must exceed the limit"
    );
    let text = build_single_prompt(Utf8Path::new(AUTO), &raw, &PromptOptions::default());
    assert!(text.contains("> WARNING: MEMORY.md is 230 lines (limit: 200)."));
    insta::assert_snapshot!("truncated", text);
}

#[test]
fn empty() {
    let dir = memory_dir("empty");
    assert!(!dir.join("MEMORY.md").exists(), "the fixture has no index");
    let text = build_single_prompt(Utf8Path::new(AUTO), &index(&dir), &PromptOptions::default());
    assert!(text.ends_with("_Empty: no memories saved yet._\n"));
    insta::assert_snapshot!("empty", text);
}
