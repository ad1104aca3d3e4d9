//! Every labelled problem is found, and nothing on a clean file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use memdir_doctor::{Doctor, Severity};

#[derive(serde::Deserialize)]
struct Labels {
    files: BTreeMap<String, Vec<String>>,
}

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/doctor")
}

fn labels() -> Labels {
    toml::from_str(&std::fs::read_to_string(fixture().join("labels.toml")).unwrap()).unwrap()
}

/// For every file, the checks that fired on it.
fn fired() -> BTreeMap<String, BTreeSet<String>> {
    let mut fired: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in Doctor::builtin().run(&fixture().join("memory")).unwrap() {
        fired.entry(f.file).or_default().insert(f.check.to_owned());
    }
    fired
}

#[test]
fn the_labels_cover_at_least_twelve_clean_memories_and_every_file() {
    let labels = labels();
    let clean = labels
        .files
        .iter()
        .filter(|(f, c)| c.is_empty() && !f.ends_with("MEMORY.md"));
    assert!(clean.count() >= 12);
    for file in fired().keys() {
        assert!(labels.files.contains_key(file), "{file} is not labelled");
    }
}

#[test]
fn clean_memories_have_no_findings() {
    let fired = fired();
    for (file, checks) in labels().files {
        if checks.is_empty() {
            assert_eq!(fired.get(&file), None, "{file} is labelled clean");
        }
    }
}

#[test]
fn every_labelled_problem_is_found_and_nothing_else() {
    let fired = fired();
    for (file, checks) in labels().files {
        let want: BTreeSet<String> = checks.into_iter().collect();
        let got = fired.get(&file).cloned().unwrap_or_default();
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn a_secret_is_an_error_in_team_and_a_warning_in_private_never_shown() {
    let findings = Doctor::builtin().run(&fixture().join("memory")).unwrap();
    let secrets: Vec<_> = findings.iter().filter(|f| f.check == "secret").collect();
    assert_eq!(secrets.len(), 2);
    for f in secrets {
        let want = if f.file.starts_with("team/") {
            Severity::Error
        } else {
            Severity::Warning
        };
        assert_eq!(f.severity, want, "{f:?}");
        assert!(!f.message.contains("Zx9Qm2Lr7Kt4"), "{}", f.message);
    }
}

#[test]
fn an_empty_or_missing_index_folder_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Doctor::builtin().run(dir.path()).unwrap().is_empty());
    assert!(Doctor::builtin().run(&dir.path().join("nope")).is_err());
}
