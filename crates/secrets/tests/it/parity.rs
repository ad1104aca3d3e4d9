//! Parity with gitleaks v8.30.1 on its own test vectors
//! (`../shared/testdata/secrets/vectors.json`): the verdict for every entry
//! and the exact (rule, span) set of every finding. The vectors and the
//! reference rules are reference data outside the project; when they are
//! absent (a user's clone), these tests say so and check nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;

use memdir_secrets::Scanner;

#[allow(clippy::print_stderr, reason = "a skipped check says so")]
fn testdata() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/secrets");
    if dir.join("vectors.json").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent; gitleaks parity is not checked on this clone",
            dir.display()
        );
        None
    }
}

type Findings = BTreeSet<(String, usize, usize)>;

fn expected(entry: &serde_json::Value) -> Findings {
    entry["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let span = f["span"].as_array().unwrap();
            (
                f["rule_id"].as_str().unwrap().to_owned(),
                usize::try_from(span[0].as_u64().unwrap()).unwrap(),
                usize::try_from(span[1].as_u64().unwrap()).unwrap(),
            )
        })
        .collect()
}

/// Runs every vector through `scanner` and returns the disagreements.
fn disagreements(scanner: &Scanner, dir: &std::path::Path) -> (usize, Vec<String>) {
    let vectors: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vectors.json")).unwrap()).unwrap();
    let entries = vectors["entries"].as_array().unwrap();
    let mut wrong = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let text = entry["text"].as_str().unwrap();
        let got: Findings = scanner
            .scan(text)
            .into_iter()
            .map(|f| (f.rule_id, f.start, f.end))
            .collect();
        let want = expected(entry);
        if got != want {
            wrong.push(format!(
                "#{i} {}: want {want:?}, got {got:?}",
                entry["rule_id"]
            ));
        }
        // The verdict for the entry's own rule.
        let rule = entry["rule_id"].as_str().unwrap();
        let fired = got.iter().any(|(r, _, _)| r == rule);
        assert_eq!(fired, entry["expect"] == "match", "#{i} {rule}: verdict");
    }
    (entries.len(), wrong)
}

/// Requires every vector to agree, listing the first disagreements.
fn assert_agrees(scanner: &Scanner, dir: &std::path::Path) {
    let (total, wrong) = disagreements(scanner, dir);
    assert_eq!(total, 1_610, "the vector file changed size");
    let first: Vec<String> = wrong.iter().take(20).cloned().collect();
    assert!(
        wrong.is_empty(),
        "{} of {total} vectors disagree:\n{}",
        wrong.len(),
        first.join("\n")
    );
}

fn reference_scanner(dir: &std::path::Path) -> Scanner {
    Scanner::from_toml(&std::fs::read_to_string(dir.join("rules.toml")).unwrap()).unwrap()
}

#[test]
fn the_engine_agrees_with_gitleaks_using_the_reference_rules() {
    let Some(dir) = testdata() else { return };
    assert_agrees(&reference_scanner(&dir), &dir);
}

#[test]
fn the_built_in_rules_agree_with_gitleaks() {
    let Some(dir) = testdata() else { return };
    assert_agrees(Scanner::builtin(), &dir);
}

#[test]
fn the_built_in_rules_cover_the_reference_rule_ids() {
    let Some(dir) = testdata() else { return };
    let reference = reference_scanner(&dir);
    let ids = |s: &Scanner| s.rules().into_iter().map(|r| r.id).collect::<BTreeSet<_>>();
    assert_eq!(ids(Scanner::builtin()), ids(&reference));
}
