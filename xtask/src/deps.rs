//! The unused-dependency check: every dependency a crate declares is named
//! by the code that may use it. A normal dependency must be named in `src/`
//! (a dependency only tests use is a dev-dependency), a dev-dependency in
//! `src/`, `tests/`, `benches/` or `examples/`, a build dependency in
//! `build.rs`. "Named" means a path (`dep::`), a `use dep` or an
//! `extern crate dep`, with the dependency's Rust name (its rename, or its
//! package name with `-` as `_`).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Every unused dependency among the workspace members of `metadata`
/// (`cargo metadata --no-deps` output), as messages.
pub(crate) fn check(metadata: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or("?");
        let Some(dir) = package["manifest_path"]
            .as_str()
            .and_then(|p| Path::new(p).parent())
        else {
            continue;
        };
        let text_of = |dirs: &[&str]| -> String {
            let mut text = String::new();
            for d in dirs {
                let path = dir.join(d);
                let files = if path.is_file() {
                    vec![path]
                } else {
                    rust_files(&path)
                };
                for file in files {
                    text.push_str(&fs::read_to_string(file).unwrap_or_default());
                    text.push('\n');
                }
            }
            text
        };
        let src = text_of(&["src"]);
        let dev = text_of(&["src", "tests", "benches", "examples"]);
        let build = text_of(&["build.rs"]);
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let dep_name = dep["name"].as_str().unwrap_or("?");
            let ident = dep["rename"].as_str().unwrap_or(dep_name).replace('-', "_");
            let (kind, text, place) = match dep["kind"].as_str() {
                Some("dev") => ("dev-dependency", &dev, "src/, tests/ or benches/"),
                Some("build") => ("build dependency", &build, "build.rs"),
                _ => ("dependency", &src, "src/"),
            };
            if !names(text, &ident) {
                problems.push(format!(
                    "{name}: {kind} {dep_name} is not used in {place}; remove it{}",
                    if kind == "dependency" && names(&dev, &ident) {
                        " or make it a dev-dependency"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    problems
}

/// Whether `text` names the crate `ident`: `ident::`, `use ident` or
/// `extern crate ident`, with no identifier character before it.
fn names(text: &str, ident: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(ident).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        if before.is_some_and(is_ident) {
            return false;
        }
        let after = &text[i + ident.len()..];
        if after.starts_with("::") {
            return true;
        }
        let ends_word = after.chars().next().is_none_or(|c| !is_ident(c));
        let head = text[..i].trim_end();
        ends_word && (head.ends_with("use") || head.ends_with("extern crate"))
    })
}

/// The `.rs` files below `dir`, as tidy lists files.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    crate::tidy::files(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_is_named_by_paths_uses_and_extern_crate() {
        assert!(names("let x = serde_json::to_string(&y);", "serde_json"));
        assert!(names("use memchr;\n", "memchr"));
        assert!(names("use  memchr::memmem;", "memchr"));
        assert!(names("extern crate alloc_thing;", "alloc_thing"));
        assert!(names("#[derive(thiserror::Error)]", "thiserror"));
        assert!(!names("let my_serde_json = 1;", "serde_json"));
        assert!(!names("serde_json_extra::x()", "serde_json"));
        assert!(!names("// we once used regex here", "regex"));
        assert!(!names("use regexes::x;", "regex"));
    }

    #[test]
    fn unused_dependencies_are_found_by_kind() {
        let dir = std::env::temp_dir().join(format!("xtask-deps-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::create_dir_all(dir.join("tests")).unwrap();
        fs::write(dir.join("src/lib.rs"), "//! Demo.\nuse used_dep::X;\n").unwrap();
        fs::write(
            dir.join("tests/t.rs"),
            "//! T.\nfn f() { test_only::g(); }\n",
        )
        .unwrap();
        let manifest = dir.join("Cargo.toml");
        let metadata = serde_json::json!({"packages": [{
            "name": "demo",
            "manifest_path": manifest.to_str().unwrap(),
            "dependencies": [
                {"name": "used-dep", "rename": null, "kind": null},
                {"name": "test-only", "rename": null, "kind": null},
                {"name": "never", "rename": null, "kind": "dev"},
                {"name": "renamed-crate", "rename": "used_dep", "kind": "dev"},
            ],
        }]});
        assert_eq!(
            check(&metadata),
            [
                "demo: dependency test-only is not used in src/; remove it or make it a dev-dependency",
                "demo: dev-dependency never is not used in src/, tests/ or benches/; remove it",
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
