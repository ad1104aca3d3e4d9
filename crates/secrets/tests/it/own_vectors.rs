//! The project's own vectors (`tests/vectors/own.jsonl`): for each text,
//! the findings gitleaks 8.30.1 reported, which the built-in scanner must
//! reproduce exactly. Positives in several contexts for every rule, near
//! misses and tricky negatives.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use memdir_secrets::Scanner;

type Findings = BTreeSet<(String, usize, usize)>;

#[test]
fn the_project_vectors_agree_with_the_recorded_gitleaks_findings() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/own.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut wrong = Vec::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut positives: BTreeMap<String, usize> = BTreeMap::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let want: Findings = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let span = f["span"].as_array().unwrap();
                let at = |k: usize| usize::try_from(span[k].as_u64().unwrap()).unwrap();
                (f["rule_id"].as_str().unwrap().to_owned(), at(0), at(1))
            })
            .collect();
        let got: Findings = Scanner::builtin()
            .scan(v["text"].as_str().unwrap())
            .into_iter()
            .map(|f| (f.rule_id, f.start, f.end))
            .collect();
        if got != want {
            wrong.push(format!(
                "line {} ({}): want {want:?}, got {got:?}",
                i + 1,
                v["id"]
            ));
        }
        let kind = v["kind"].as_str().unwrap_or("?").to_owned();
        if kind == "positive" {
            *positives
                .entry(v["rule_id"].as_str().unwrap_or("?").to_owned())
                .or_default() += 1;
        }
        *kinds.entry(kind).or_default() += 1;
    }
    assert!(
        wrong.is_empty(),
        "{} vectors disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Every built-in rule has positives of its own.
    for rule in Scanner::builtin().rules() {
        assert!(
            positives.get(&rule.id).copied().unwrap_or(0) >= 3,
            "rule {} has fewer than 3 positives",
            rule.id
        );
    }
    assert!(
        kinds.get("tricky-negative").copied().unwrap_or(0) >= 25,
        "{kinds:?}"
    );
    assert!(
        kinds.get("near-miss").copied().unwrap_or(0) >= 54,
        "{kinds:?}"
    );
}
