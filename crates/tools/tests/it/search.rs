//! Grep and Glob over a small project tree.

use std::time::{Duration, Instant, SystemTime};

use memdir_tools::{GlobInput, GrepInput, OutputMode, Stop, ToolError, glob, grep};

fn never() -> bool {
    false
}

fn stop() -> Stop<'static> {
    Stop {
        deadline: Instant::now() + Duration::from_secs(30),
        cancelled: &never,
    }
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/billing")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::create_dir_all(root.join(".hidden")).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "fn retry() {}\nfn other() {}\n").unwrap();
    std::fs::write(
        root.join("src/billing/retry.rs"),
        "// Retry the charge\nfn retry_charge() {}\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "call retry() twice\n").unwrap();
    std::fs::write(root.join("target/out.rs"), "fn retry() {}\n").unwrap();
    std::fs::write(root.join(".hidden/x.rs"), "fn retry() {}\n").unwrap();
    std::fs::write(root.join("src/blob.bin"), b"retry\0\x01\x02").unwrap();
    dir
}

fn grep_input(pattern: &str) -> GrepInput {
    GrepInput {
        pattern: pattern.to_owned(),
        path: None,
        glob: None,
        output_mode: None,
        case_insensitive: None,
        head_limit: None,
    }
}

fn sorted_lines(s: &str, root: &std::path::Path) -> Vec<String> {
    let prefix = format!("{}/", root.display());
    let mut v: Vec<String> = s.lines().map(|l| l.replace(&prefix, "")).collect();
    v.sort();
    v
}

#[test]
fn grep_skips_ignored_hidden_and_binary_files() {
    let dir = project();
    let out = grep(dir.path(), &grep_input(r"retry\("), &stop()).unwrap();
    assert_eq!(sorted_lines(&out, dir.path()), ["README.md", "src/lib.rs"]);
}

#[test]
fn grep_content_count_case_and_glob() {
    let dir = project();
    let content = grep(
        dir.path(),
        &GrepInput {
            output_mode: Some(OutputMode::Content),
            case_insensitive: Some(true),
            glob: Some("*.rs".into()),
            ..grep_input("retry")
        },
        &stop(),
    )
    .unwrap();
    assert_eq!(
        sorted_lines(&content, dir.path()),
        [
            "src/billing/retry.rs:1:// Retry the charge",
            "src/billing/retry.rs:2:fn retry_charge() {}",
            "src/lib.rs:1:fn retry() {}",
        ]
    );
    let count = grep(
        dir.path(),
        &GrepInput {
            output_mode: Some(OutputMode::Count),
            path: Some("src".into()),
            ..grep_input("fn ")
        },
        &stop(),
    )
    .unwrap();
    assert_eq!(
        sorted_lines(&count, dir.path()),
        ["src/billing/retry.rs:1", "src/lib.rs:2"]
    );
}

#[test]
fn grep_caps_results_and_refuses_a_bad_pattern() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.txt"), "hit\n".repeat(1000)).unwrap();
    let out = grep(
        dir.path(),
        &GrepInput {
            output_mode: Some(OutputMode::Content),
            head_limit: Some(10),
            ..grep_input("hit")
        },
        &stop(),
    )
    .unwrap();
    assert_eq!(out.lines().count(), 11, "{out}");
    assert!(out.ends_with("(more results: showing the first 10)\n"));
    assert!(matches!(
        grep(dir.path(), &grep_input("(unclosed"), &stop()),
        Err(ToolError::Pattern { .. })
    ));
    assert!(matches!(
        grep(
            dir.path(),
            &GrepInput {
                path: Some("nope".into()),
                ..grep_input("x")
            },
            &stop()
        ),
        Err(ToolError::NotFound { .. })
    ));
}

#[test]
fn a_cancelled_search_says_it_stopped() {
    let dir = project();
    let yes = || true;
    let out = grep(
        dir.path(),
        &grep_input("retry"),
        &Stop {
            deadline: Instant::now() + Duration::from_secs(30),
            cancelled: &yes,
        },
    )
    .unwrap();
    assert!(out.contains("stopped before the end"), "{out}");
}

#[test]
fn glob_matches_relative_paths_newest_first() {
    let dir = project();
    let old = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(dir.path().join("src/lib.rs"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let all = glob(
        dir.path(),
        &GlobInput {
            pattern: "**/*.rs".into(),
            path: None,
        },
        &stop(),
    )
    .unwrap();
    let rel: Vec<String> = all
        .lines()
        .map(|l| l.replace(&format!("{}/", dir.path().display()), ""))
        .collect();
    assert_eq!(rel, ["src/billing/retry.rs", "src/lib.rs"]);
    let top = glob(
        dir.path(),
        &GlobInput {
            pattern: "*.rs".into(),
            path: Some("src".into()),
        },
        &stop(),
    )
    .unwrap();
    assert_eq!(top.lines().count(), 1, "{top}");
    let none = glob(
        dir.path(),
        &GlobInput {
            pattern: "*.py".into(),
            path: None,
        },
        &stop(),
    )
    .unwrap();
    assert_eq!(none, "no files match\n");
    assert!(matches!(
        glob(
            dir.path(),
            &GlobInput {
                pattern: "a[".into(),
                path: None
            },
            &stop()
        ),
        Err(ToolError::Pattern { .. })
    ));
}
