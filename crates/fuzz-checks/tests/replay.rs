//! Replays every saved fuzz input through its target's check, on stable:
//! the minimised corpora in `fuzz/corpus/<target>/` and the inputs that
//! once failed in `fuzz/regressions/<target>/`. Also checks that every
//! cargo-fuzz target has a check here and the other way round.

#![allow(
    clippy::print_stderr,
    reason = "the replay reports how many inputs it ran"
)]

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use memdir_fuzz_checks::TARGETS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, sorted; none when it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable fuzz folder").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_target_has_a_check_and_a_corpus() {
    let dir = fuzz_dir().join("fuzz_targets");
    let mut files: Vec<String> = inputs(&dir)
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
        .collect();
    files.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|(n, _)| (*n).to_owned()).collect();
    names.sort();
    assert_eq!(files, names, "fuzz/fuzz_targets/ and TARGETS disagree");
    for name in &names {
        let source = fs::read_to_string(dir.join(format!("{name}.rs"))).expect("a target source");
        assert!(
            source.contains(&format!("run({name:?}, ")),
            "fuzz/fuzz_targets/{name}.rs does not run its own check"
        );
        assert!(
            !inputs(&fuzz_dir().join("corpus").join(name)).is_empty(),
            "fuzz/corpus/{name}/ is empty: run `cargo xtask fuzz {name}`"
        );
    }
}

#[test]
fn every_saved_input_passes_its_check() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (name, check) in TARGETS {
        for kind in ["corpus", "regressions"] {
            for file in inputs(&fuzz_dir().join(kind).join(name)) {
                let data = fs::read(&file).expect("a readable fuzz input");
                replayed += 1;
                if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
                    failures.push(format!("{name}: {}", file.display()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failing inputs:\n{}",
        failures.join("\n")
    );
    eprintln!("replayed {replayed} fuzz inputs");
}
