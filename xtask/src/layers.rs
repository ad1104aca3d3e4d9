//! The layering check: every normal dependency between workspace crates
//! points to a strictly lower layer, every crate is in the table, and
//! `anyhow` and `clap` stay in the binary and the tooling.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Crates allowed to use `anyhow` and `clap`.
const APP_CRATES: [&str; 2] = ["memory-cli", "xtask"];
/// Crates only applications may use.
const APP_ONLY_DEPS: [&str; 2] = ["anyhow", "clap"];

pub(crate) fn run(root: &Path) -> Result<(), String> {
    let metadata = metadata(root)?;
    let errors = check(&metadata);
    if errors.is_empty() {
        print!("{}", table(&metadata));
        Ok(())
    } else {
        Err(format!("layering violated:\n  {}", errors.join("\n  ")))
    }
}

pub(crate) fn metadata(root: &Path) -> Result<Value, String> {
    let out = Command::new(crate::cargo())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata printed bad JSON: {e}"))
}

/// The layer table as text, lowest layer first: one line per layer, then
/// the tooling.
fn table(metadata: &Value) -> String {
    let names = |v: &Value| -> String {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let table = &metadata["metadata"]["layers"];
    let mut out = String::new();
    for (i, layer) in table["layers"].as_array().into_iter().flatten().enumerate() {
        let _ = writeln!(out, "layer {i}: {}", names(layer));
    }
    let _ = writeln!(out, "tooling: {}", names(&table["tools"]));
    out
}

/// Where a crate sits: a product layer (0 is the lowest) or the tooling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Layer(usize),
    Tool,
}

/// Every violation in `cargo metadata --no-deps` output, as messages.
fn check(metadata: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let table = &metadata["metadata"]["layers"];
    let mut place: HashMap<&str, Place> = HashMap::new();
    match table["layers"].as_array() {
        Some(layers) => {
            for (i, layer) in layers.iter().enumerate() {
                for name in layer
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if place.insert(name, Place::Layer(i)).is_some() {
                        errors.push(format!("{name} is listed twice in the layer table"));
                    }
                }
            }
        }
        None => {
            errors.push("Cargo.toml has no [workspace.metadata.layers] layers table".to_owned());
        }
    }
    for name in table["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if place.insert(name, Place::Tool).is_some() {
            errors.push(format!("{name} is listed twice in the layer table"));
        }
    }

    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let members: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    for name in place.keys() {
        if !members.contains(name) {
            errors.push(format!(
                "{name} is in the layer table but not in the workspace"
            ));
        }
    }
    for package in &packages {
        let Some(name) = package["name"].as_str() else {
            continue;
        };
        let Some(&here) = place.get(name) else {
            errors.push(format!(
                "{name} is missing from [workspace.metadata.layers]"
            ));
            continue;
        };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let Some(dep_name) = dep["name"].as_str() else {
                continue;
            };
            let kind = dep["kind"].as_str().unwrap_or("normal");
            if APP_ONLY_DEPS.contains(&dep_name) && !APP_CRATES.contains(&name) {
                errors.push(format!(
                    "{name} depends on {dep_name} ({kind}), which only memory-cli and xtask may use"
                ));
            }
            if kind != "normal" || !members.contains(&dep_name) {
                continue;
            }
            let forbidden = table["forbidden"][name].as_array();
            if forbidden.is_some_and(|f| f.iter().any(|d| d.as_str() == Some(dep_name))) {
                errors.push(format!(
                    "{name} depends on {dep_name}, which [workspace.metadata.layers.forbidden] keeps from it"
                ));
            }
            match (here, place.get(dep_name).copied()) {
                (_, Some(Place::Tool)) => {
                    errors.push(format!("{name} depends on {dep_name}, which is tooling"));
                }
                (Place::Layer(a), Some(Place::Layer(b))) if b >= a => errors.push(format!(
                    "{name} (layer {a}) depends on {dep_name} (layer {b}); dependencies must point to a lower layer"
                )),
                _ => {}
            }
        }
    }
    errors.sort();
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn package(name: &str, deps: &[(&str, Option<&str>)]) -> Value {
        let deps: Vec<Value> = deps
            .iter()
            .map(|(n, kind)| json!({"name": n, "kind": kind}))
            .collect();
        json!({"name": name, "dependencies": deps})
    }

    fn metadata(layers: &Value, packages: &[Value]) -> Value {
        json!({"packages": packages, "metadata": {"layers": {"layers": layers, "tools": ["xtask"]}}})
    }

    #[test]
    fn this_workspace_is_layered() {
        let root = crate::root();
        let errors = check(&super::metadata(&root).unwrap());
        assert!(errors.is_empty(), "{errors:#?}");
    }

    #[test]
    fn a_downward_dependency_passes() {
        let m = metadata(
            &json!([["a"], ["b"]]),
            &[
                package("a", &[]),
                package("b", &[("a", None), ("serde", None)]),
                package("xtask", &[]),
            ],
        );
        assert_eq!(check(&m), Vec::<String>::new());
    }

    #[test]
    fn upward_and_sideways_dependencies_fail() {
        let m = metadata(
            &json!([["a", "c"], ["b"]]),
            &[
                package("a", &[("b", None), ("c", None)]),
                package("b", &[]),
                package("c", &[]),
                package("xtask", &[]),
            ],
        );
        let errors = check(&m);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("a (layer 0) depends on b (layer 1)"));
        assert!(errors[1].contains("a (layer 0) depends on c (layer 0)"));
    }

    #[test]
    fn a_dev_dependency_may_point_anywhere() {
        let m = metadata(
            &json!([["a"], ["b"]]),
            &[
                package("a", &[("b", Some("dev"))]),
                package("b", &[]),
                package("xtask", &[]),
            ],
        );
        assert_eq!(check(&m), Vec::<String>::new());
    }

    #[test]
    fn missing_crates_and_app_only_dependencies_fail() {
        let m = metadata(
            &json!([["a"], ["memory-cli"]]),
            &[
                package("a", &[("anyhow", None)]),
                package("new-crate", &[]),
                package("memory-cli", &[("anyhow", None), ("clap", None)]),
                package("xtask", &[]),
                package("tests-only", &[]),
            ],
        );
        let errors = check(&m);
        assert!(
            errors.iter().any(|e| e.contains("a depends on anyhow")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.contains("new-crate is missing")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.contains("tests-only is missing")),
            "{errors:?}"
        );
        assert!(
            !errors.iter().any(|e| e.starts_with("memory-cli")),
            "{errors:?}"
        );
    }

    #[test]
    fn a_forbidden_dependency_fails_even_downward() {
        let mut meta = metadata(
            &json!([["low"], ["high"]]),
            &[
                package("low", &[]),
                package("high", &[("low", None)]),
                package("xtask", &[]),
            ],
        );
        meta["metadata"]["layers"]["forbidden"] = json!({"high": ["low"]});
        assert_eq!(
            check(&meta),
            ["high depends on low, which [workspace.metadata.layers.forbidden] keeps from it"]
        );
    }

    #[test]
    fn nothing_may_depend_on_tooling() {
        let m = metadata(
            &json!([["a"]]),
            &[package("a", &[("xtask", None)]), package("xtask", &[])],
        );
        assert_eq!(check(&m), ["a depends on xtask, which is tooling"]);
    }
}
