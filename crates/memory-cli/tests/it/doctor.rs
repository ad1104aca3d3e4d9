//! `memdir doctor`: the labelled fixture folder through the real binary —
//! the JSON shape, the exit statuses, and `--fix` making only the safe
//! repairs, once.

use std::fmt::Write as _;
use std::path::Path;

use memdir_testkit::{Folders, copy_tree};
use serde_json::Value;

use crate::{memdir_in, root, stderr, stdout};

/// A copy of `fixtures/doctor/memory/` in a fresh folder.
fn fixture_copy() -> (Folders, std::path::PathBuf) {
    let f = Folders::new();
    let memory = f.root.join("memory");
    copy_tree(&root().join("fixtures/doctor/memory"), &memory);
    (f, memory)
}

fn doctor(f: &Folders, memory: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["--memory-dir", memory.to_str().unwrap(), "doctor", "--json"];
    args.extend_from_slice(extra);
    let out = memdir_in(&f.project, &[], args);
    let json = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out.status.code(), json)
}

#[test]
fn the_json_has_the_documented_shape_and_problems_exit_1() {
    let (f, memory) = fixture_copy();
    let (code, json) = doctor(&f, &memory, &[]);
    assert_eq!(code, Some(1));
    assert_eq!(json["fixed"], Value::Array(vec![]));
    let findings = json["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for finding in findings {
        let keys: Vec<&str> = finding
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in ["check", "severity", "file", "message"] {
            assert!(keys.contains(&key), "{finding}");
        }
        assert!(
            keys.iter()
                .all(|k| ["check", "severity", "file", "line", "message"].contains(k))
        );
        assert!(["error", "warning"].contains(&finding["severity"].as_str().unwrap()));
    }
    let secret = findings
        .iter()
        .find(|f| f["file"] == "team/deploy-token.md")
        .unwrap();
    assert_eq!(secret["check"], "secret");
    assert_eq!(secret["severity"], "error");
    assert!(
        !json.to_string().contains("Zx9Qm2Lr7Kt4"),
        "a secret is never echoed"
    );
}

#[test]
fn a_clean_folder_exits_0_with_no_findings() {
    let f = Folders::new();
    let memory = f.root.join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    let fixture = root().join("fixtures/doctor/memory");
    for file in ["use-pnpm.md", "staging-vpn.md", "weekly-sync.md"] {
        std::fs::copy(fixture.join(file), memory.join(file)).unwrap();
    }
    let (code, json) = doctor(&f, &memory, &["--fix"]);
    assert_eq!(json["findings"], Value::Array(vec![]), "{json}");
    // The missing index is the one repair: it gets the three lines.
    assert_eq!(json["fixed"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(code, Some(0));
    let text = memdir_in(
        &f.project,
        &[],
        ["--memory-dir", memory.to_str().unwrap(), "doctor"],
    );
    assert_eq!(text.status.code(), Some(0));
    assert!(
        stdout(&text).contains("no problems found"),
        "{}",
        stdout(&text)
    );
}

/// The repairs, and the files they changed compared with the fixture.
fn changes(memory: &Path, fixed: &Value) -> String {
    let mut out = String::new();
    for f in fixed.as_array().unwrap() {
        let _ = writeln!(
            out,
            "{}: {}",
            f["file"].as_str().unwrap(),
            f["change"].as_str().unwrap()
        );
    }
    let fixture = root().join("fixtures/doctor/memory");
    let mut files: Vec<String> = fixed
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_owned())
        .collect();
    files.dedup();
    for file in files {
        let before = std::fs::read_to_string(fixture.join(&file)).unwrap();
        let after = std::fs::read_to_string(memory.join(&file)).unwrap();
        let _ = writeln!(out, "\n== {file}");
        for (b, a) in before.lines().zip(after.lines()) {
            if a != b {
                let _ = writeln!(out, "- {b}\n+ {a}");
            }
        }
        for a in after.lines().skip(before.lines().count()) {
            let _ = writeln!(out, "+ {a}");
        }
    }
    out
}

#[test]
fn fix_makes_only_the_safe_repairs_and_a_second_run_changes_nothing() {
    let (f, memory) = fixture_copy();
    let (_, before) = doctor(&f, &memory, &[]);
    let (code, first) = doctor(&f, &memory, &["--fix"]);
    assert_eq!(code, Some(1), "unfixable findings remain");
    insta::assert_snapshot!("doctor_fix_changes", changes(&memory, &first["fixed"]));
    // What was fixed is gone; everything else is still reported.
    let remaining = first["findings"].as_array().unwrap();
    let fixable = |f: &&Value| {
        f["message"].as_str().unwrap().contains("(from `modified`)")
            || f["message"]
                .as_str()
                .unwrap()
                .contains("no index line links to")
    };
    assert_eq!(remaining.iter().filter(fixable).count(), 0);
    assert_eq!(
        remaining.len(),
        before["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| !fixable(f))
            .count()
    );
    // No memory was deleted.
    for entry in std::fs::read_dir(root().join("fixtures/doctor/memory")).unwrap() {
        assert!(memory.join(entry.unwrap().file_name()).exists());
    }
    let snapshot = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    };
    let after_first = snapshot(&memory);
    let (code, second) = doctor(&f, &memory, &["--fix"]);
    assert_eq!(code, Some(1));
    assert_eq!(second["fixed"], Value::Array(vec![]));
    assert_eq!(second["findings"], first["findings"]);
    assert_eq!(snapshot(&memory), after_first);
}
