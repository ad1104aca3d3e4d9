//! Citations checked at recall and by `memdir verify`, on the fixture
//! project under `fixtures/citations/` (copied to a temporary folder).

use std::path::Path;

use memdir_testkit::copy_tree;

use crate::{memdir_in, root, stdout};

/// The fixture project and memory folder, copied; a file that only a
/// `.gitignore` rule covers holds an identifier one memory cites.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = root().join("fixtures/citations");
    copy_tree(&fixtures.join("project"), &dir.path().join("project"));
    copy_tree(&fixtures.join("memory"), &dir.path().join("memory"));
    let build = dir.path().join("project/build");
    std::fs::create_dir_all(&build).unwrap();
    std::fs::write(
        build.join("client.rs"),
        "pub const generated_client_id: &str = \"x\";\n",
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    let project = dir.join("project");
    let memory = dir.join("memory");
    let mut all = vec![
        "--project",
        project.to_str().unwrap(),
        "--memory-dir",
        memory.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    memdir_in(dir, &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")], all)
}

#[test]
fn recall_notes_name_each_broken_citation_and_nothing_else() {
    let dir = fixture();
    let out = run(
        dir.path(),
        &["recall", "billing retry deploy auth", "--json"],
    );
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let note = m
                .get("citations")
                .map_or("(all hold)".to_owned(), |n| n.as_str().unwrap().to_owned());
            format!("{}: {note}", m["filename"].as_str().unwrap())
        })
        .collect();
    rows.sort();
    insta::assert_snapshot!("recall_citations_json", rows.join("\n"));

    let text = run(dir.path(), &["recall", "billing retry deploy auth"]);
    let shown = stdout(&text).replace(dir.path().to_str().unwrap(), "<tmp>");
    let notes: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("Checked against the project"))
        .collect();
    assert_eq!(notes.len(), 2, "{shown}");
}

#[test]
fn verify_records_verified_only_where_every_citation_holds() {
    let dir = fixture();
    let out = run(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let mut lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    lines.sort();
    insta::assert_snapshot!("verify_text", lines.join("\n"));
    let memory = dir.path().join("memory");
    let verified = std::fs::read_to_string(memory.join("legacy-auth.md")).unwrap();
    assert!(verified.contains("\nverified: "), "{verified}");
    assert!(verified.ends_with("test a change with `--dry-run` first.\n"));
    let broken = std::fs::read_to_string(memory.join("retry-policy.md")).unwrap();
    assert!(!broken.contains("verified:"), "{broken}");

    // One file by name, as JSON; all of it holds, so the exit status is 0.
    let one = run(dir.path(), &["verify", "user-role.md", "--json"]);
    assert!(one.status.success(), "{one:?}");
    let json: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(json[0]["file"], "user-role.md");
    assert_eq!(json[0]["status"], "verified");

    let missing = run(dir.path(), &["verify", "nope.md"]);
    assert!(!missing.status.success());
}

#[test]
fn verify_help_has_an_example() {
    let out = crate::memdir(["verify", "--help"]);
    assert!(stdout(&out).contains("memdir verify retry-policy.md --json"));
}

#[test]
fn doctor_reports_each_broken_citation_with_its_file_and_line() {
    let dir = fixture();
    let out = run(dir.path(), &["doctor", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut cited: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "citation")
        .map(|f| {
            assert_eq!(f["severity"], "warning", "{f}");
            assert!(f["line"].as_u64().is_some(), "{f}");
            format!(
                "{}: {}",
                f["file"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    cited.sort();
    insta::assert_snapshot!(cited.join("\n"));
}

#[test]
fn verify_refuses_a_file_outside_the_memory_folder() {
    let dir = fixture();
    let outside = dir.path().join("project/docs/deploy.md");
    let out = run(dir.path(), &["verify", outside.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the memory folder"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
