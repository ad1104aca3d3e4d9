//! `memdir list`, `recall`, `prompt` and `add` on temporary copies of the
//! bundled example and on fresh folders, offline.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::{memdir_in, memdir_with_stdin, root, stderr, stdout};

/// A temporary copy of `fixtures/example/memory`.
fn example() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir_all(&dir).unwrap();
    for entry in fs::read_dir(root().join("fixtures/example/memory")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    (tmp, dir)
}

fn run(dir: &Path, vars: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut all = vec!["--memory-dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    memdir_in(dir.parent().unwrap(), vars, all)
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn age(path: &Path, days: u64) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(days * 86_400))
        .unwrap();
}

#[test]
fn list_shows_each_memory_with_its_header() {
    let (_tmp, dir) = example();
    age(&dir.join("user-role.md"), 3);
    let j = json(&run(&dir, &[], &["list", "--json"]));
    let rows = j.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let keys: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["description", "filePath", "filename", "mtimeMs", "type"]
    );
    assert_eq!(rows[3]["filename"], "user-role.md", "oldest last");
    assert_eq!(rows[3]["type"], "user");
    let text = stdout(&run(&dir, &[], &["list"]));
    assert!(text.lines().all(|l| l.starts_with("- [")), "{text}");
}

#[test]
fn list_of_a_missing_folder_is_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&tmp.path().join("none"), &[], &["list", "--json"]);
    assert_eq!(json(&out), serde_json::json!([]));
    assert!(stderr(&out).contains("no memory folder yet"));
}

#[test]
fn recall_finds_ages_and_abstains() {
    let (_tmp, dir) = example();
    age(&dir.join("no-db-mocking.md"), 47);
    let j = json(&run(
        &dir,
        &[],
        &["recall", "should my tests mock the database?", "--json"],
    ));
    let rows = j.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{j}");
    assert_eq!(rows[0]["filename"], "no-db-mocking.md");
    assert_eq!(rows[0]["age"], "47 days ago");
    let freshness = rows[0]["freshness"].as_str().unwrap();
    assert!(
        freshness.starts_with("<system-reminder>This memory is 47 days old."),
        "{freshness}"
    );
    let keys: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["age", "filename", "freshness", "mtimeMs", "path"]);

    // Nothing relevant: an empty list, exit 0.
    assert_eq!(
        json(&run(
            &dir,
            &[],
            &["recall", "recipe for banana bread", "--json"]
        )),
        serde_json::json!([])
    );
    // Already surfaced: not recalled again.
    let out = run(
        &dir,
        &[],
        &[
            "recall",
            "mock the database in tests",
            "--surfaced",
            "no-db-mocking.md",
            "--json",
        ],
    );
    assert_eq!(json(&out), serde_json::json!([]));
}

#[test]
fn recall_with_the_model_selector_and_no_model_falls_back_with_a_note() {
    let (_tmp, dir) = example();
    let out = run(
        &dir,
        &[],
        &[
            "recall",
            "merge to main during the freeze",
            "--selector",
            "model",
            "--json",
        ],
    );
    let j = json(&out);
    assert_eq!(j[0]["filename"], "merge-freeze.md");
    assert!(
        stderr(&out).contains("no model is configured"),
        "{}",
        stderr(&out)
    );
    // A model that cannot be reached: the local ranker answers, with a note.
    let out = run(
        &dir,
        &[
            ("ANTHROPIC_API_KEY", "k"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            ("MEMDIR_MODEL_TIMEOUT_MS", "500"),
        ],
        &[
            "recall",
            "merge to main during the freeze",
            "--selector",
            "model",
            "--json",
        ],
    );
    assert_eq!(json(&out)[0]["filename"], "merge-freeze.md");
    assert!(
        stderr(&out).contains("model selector failed"),
        "{}",
        stderr(&out)
    );
    let out = run(&dir, &[], &["recall", "x", "--selector", "oracle"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn prompt_in_each_mode() {
    let (_tmp, dir) = example();
    let j = json(&run(&dir, &[], &["prompt", "--json"]));
    assert_eq!(j["mode"], "single");
    let prompt = j["prompt"].as_str().unwrap();
    assert!(prompt.contains(dir.to_str().unwrap()));
    assert!(
        prompt.contains("[No database mocks](no-db-mocking.md)"),
        "the index is in the prompt"
    );

    assert_eq!(
        json(&run(&dir, &[("MEMDIR_TEAM", "1")], &["prompt", "--json"]))["mode"],
        "combined"
    );
    assert_eq!(
        json(&run(&dir, &[], &["prompt", "--assistant", "--json"]))["mode"],
        "daily-log"
    );
    let off = json(&run(
        &dir,
        &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")],
        &["prompt", "--json"],
    ));
    assert_eq!(off["mode"], "off");
    assert_eq!(off["prompt"], serde_json::Value::Null);
    assert!(
        off["reason"]
            .as_str()
            .unwrap()
            .contains("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    );
    // Text mode prints the prompt itself.
    assert!(stdout(&run(&dir, &[], &["prompt"])).starts_with("# "));
}

#[test]
fn add_writes_the_memory_and_its_index_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    let out = memdir_with_stdin(
        tmp.path(),
        &[],
        [
            "--memory-dir",
            dir.to_str().unwrap(),
            "add",
            "--type",
            "feedback",
            "--name",
            "use-pnpm",
            "--description",
            "Use pnpm: npm breaks the lockfile",
            "--json",
        ],
        Some("Use pnpm, never npm.\n\n**Why:** npm rewrote the lockfile.\n"),
    );
    let j = json(&out);
    let path = PathBuf::from(j["path"].as_str().unwrap());
    assert_eq!(path, dir.join("use-pnpm.md"));
    let memory = memdir_memtypes::parse_memory(&fs::read(&path).unwrap());
    assert_eq!(
        memory.header.description.as_deref(),
        Some("Use pnpm: npm breaks the lockfile")
    );
    assert_eq!(
        memory.header.memory_type,
        Some(memdir_memtypes::MemoryType::Feedback)
    );
    assert!(memory.body.starts_with("Use pnpm, never npm."));
    assert!(memory.diagnostics.is_empty());
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [use-pnpm](use-pnpm.md) — Use pnpm: npm breaks the lockfile\n"
    );

    // A second memory appends its line; the new memory is found by recall.
    let out = run(
        &dir,
        &[],
        &[
            "add",
            "--type",
            "project",
            "--name",
            "freeze",
            "--description",
            "Release freeze from 2026-12-10",
            "--body",
            "No merges.",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(dir.join("MEMORY.md"))
            .unwrap()
            .lines()
            .count(),
        2
    );
    let j = json(&run(
        &dir,
        &[],
        &["recall", "is there a release freeze", "--json"],
    ));
    assert_eq!(j[0]["filename"], "freeze.md");
    // And the index is clean.
    assert!(run(&dir, &[], &["index", "check"]).status.success());
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario of refusals, step by step"
)]
fn add_refuses_collisions_escapes_and_private_types_in_team() {
    let (_tmp, dir) = example();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "add",
            "--type",
            "project",
            "--description",
            "d",
            "--body",
            "b",
        ];
        args.extend_from_slice(extra);
        run(&dir, &[], &args)
    };
    let before = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    for (name, code) in [
        ("merge-freeze", 1),
        ("Merge-Freeze", 1),
        ("../escape", 3),
        ("a/b", 3),
        ("%2e%2e", 3),
        ("MEMORY", 3),
        ("", 3),
        (".hidden", 3),
    ] {
        let out = add(&["--name", name]);
        assert_eq!(out.status.code(), Some(code), "{name:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{name:?}: {}",
            stderr(&out)
        );
    }
    let out = run(
        &dir,
        &[],
        &[
            "add",
            "--type",
            "user",
            "--name",
            "me",
            "--description",
            "d",
            "--body",
            "b",
            "--team",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("stay private"));
    let out = run(
        &dir,
        &[],
        &[
            "add",
            "--type",
            "opinion",
            "--name",
            "x",
            "--description",
            "d",
            "--body",
            "b",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &dir,
        &[],
        &[
            "add",
            "--type",
            "project",
            "--name",
            "empty",
            "--description",
            "d",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "an empty body (stdin is empty) is refused"
    );
    assert!(stderr(&out).contains("text is empty"), "{}", stderr(&out));
    // Nothing was written by any refusal.
    assert_eq!(fs::read_to_string(dir.join("MEMORY.md")).unwrap(), before);
    let visible = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            !e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(
        visible, 5,
        "only the folder's lock file may have been added"
    );
    assert!(!dir.parent().unwrap().join("escape.md").exists());
}

#[test]
fn add_to_the_team_folder() {
    let (_tmp, dir) = example();
    let team_add = [
        "add",
        "--type",
        "reference",
        "--name",
        "dashboards",
        "--description",
        "Latency dashboards are in Grafana",
        "--body",
        "See the Latency board.",
        "--team",
    ];
    // Team memory off: refused as pull is, and nothing written.
    let out = run(&dir, &[], &team_add);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("team memory is off"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("team").exists());
    let out = run(&dir, &[("MEMDIR_TEAM", "1")], &team_add);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("team/dashboards.md").is_file());
    assert!(
        fs::read_to_string(dir.join("team/MEMORY.md"))
            .unwrap()
            .contains("(dashboards.md)")
    );
    // The private index is untouched.
    assert!(
        !fs::read_to_string(dir.join("MEMORY.md"))
            .unwrap()
            .contains("dashboards")
    );
}
