//! Conventions that a reviewer should not have to check by eye.

use std::fs;
use std::path::{Path, PathBuf};

pub(crate) fn run(root: &Path) -> Result<(), String> {
    let problems = check(root);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("tidy found problems:\n  {}", problems.join("\n  ")))
    }
}

/// Every convention broken under `root`, as messages.
fn check(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("Cargo.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    crates.push(root.join("xtask"));
    crates.sort();

    for krate in &crates {
        let name = krate
            .strip_prefix(root)
            .unwrap_or(krate)
            .display()
            .to_string();
        if !krate.join("README.md").is_file() {
            problems.push(format!("{name} has no README.md"));
        }
        let manifest = fs::read_to_string(krate.join("Cargo.toml")).unwrap_or_default();
        if !manifest.contains("[lints]\nworkspace = true") {
            problems.push(format!(
                "{name}/Cargo.toml does not inherit the workspace lints ([lints] workspace = true)"
            ));
        }
        for dir in ["src", "tests", "benches"] {
            for file in files(&krate.join(dir)) {
                if file.extension().is_some_and(|e| e == "rs") && !has_module_doc(&file) {
                    problems.push(format!(
                        "{} does not open with a //! header",
                        rel(root, &file)
                    ));
                }
            }
        }
    }
    // Only a real workspace has metadata to read (the unit test's fake
    // tree has none).
    if root.join("Cargo.toml").is_file() {
        match crate::layers::metadata(root) {
            Ok(metadata) => problems.extend(crate::deps::check(&metadata)),
            Err(e) => problems.push(e),
        }
    }
    for file in files(root) {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(".snap.new") || name.ends_with(".pending-snap") {
            problems.push(format!(
                "{} is a leftover snapshot; review it with `cargo insta review`",
                rel(root, &file)
            ));
        }
    }
    problems
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether the first line that is not blank is a `//!` comment.
fn has_module_doc(file: &Path) -> bool {
    fs::read_to_string(file).is_ok_and(|text| {
        text.lines()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.starts_with("//!"))
    })
}

/// Every file below `dir`, skipping `target` and hidden folders.
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            match entry.file_type() {
                Ok(t) if t.is_dir() && name != "target" && !name.starts_with('.') => {
                    stack.push(path);
                }
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_workspace_is_tidy() {
        let problems = check(&crate::root());
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn finds_each_kind_of_problem() {
        let dir = tempfile_dir();
        let root = dir.as_path();
        let krate = root.join("crates/demo");
        fs::create_dir_all(krate.join("src")).unwrap();
        fs::create_dir_all(krate.join("tests/snapshots")).unwrap();
        fs::write(krate.join("Cargo.toml"), "[package]\nname = \"demo\"\n").unwrap();
        fs::write(
            krate.join("src/lib.rs"),
            "\n// not a module doc\npub fn f() {}\n",
        )
        .unwrap();
        fs::write(krate.join("tests/snapshots/a.snap.new"), "x").unwrap();
        fs::create_dir_all(root.join("xtask/src")).unwrap();
        fs::write(root.join("xtask/Cargo.toml"), "[lints]\nworkspace = true\n").unwrap();
        fs::write(root.join("xtask/README.md"), "x").unwrap();
        fs::write(root.join("xtask/src/main.rs"), "//! Fine.\n").unwrap();
        let problems = check(root);
        assert_eq!(
            problems,
            [
                "crates/demo has no README.md",
                "crates/demo/Cargo.toml does not inherit the workspace lints ([lints] workspace = true)",
                "crates/demo/src/lib.rs does not open with a //! header",
                "crates/demo/tests/snapshots/a.snap.new is a leftover snapshot; review it with `cargo insta review`",
            ]
        );
        fs::remove_dir_all(root).unwrap();
    }

    /// A fresh folder under the target directory (xtask has no tempfile).
    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-tidy-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }
}
