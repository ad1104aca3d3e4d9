//! Project automation, run as `cargo xtask <task>`.
//!
//! Hand-rolled argument matching and no dependencies beyond a JSON parser,
//! so that it builds in seconds and needs nothing but cargo.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool: its progress and reports are printed"
)]

mod deps;
mod fuzz;
mod layers;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <task>

Tasks:
  test     everything a change must pass: cargo fmt --check, clippy with
           warnings denied, all tests and doctests, layers, tidy, package
  layers   print the layer table, and check that every crate depends only
           on crates in lower layers
           ([workspace.metadata.layers] in Cargo.toml), and that anyhow and
           clap stay in memory-cli and xtask
  tidy     check conventions: a //! header on every Rust file, a README in
           every crate, workspace lints in every crate, no unused
           dependency, no leftover .snap.new or .pending-snap files
  package  package every publishable crate on its own and build each from
           its package alone (cargo package, verified): proof that no crate
           reaches outside its folder
  eval     cargo xtask eval [recall|doctor|all] [--failures] [--check]
           [--only SETS]: `recall` (the default) prints memdir's recall
           (hit@1, hit@5, MRR, nothing returned, false injection, hit@5
           before abstention, per category) beside a plain BM25 floor run
           at the same time, and each target met or not, on LoCoMo's
           development split (../shared/testdata/locomo-dev beside the
           workspace), the coding set (fixtures/recall/coding), each
           skipped with a line when absent, and the relevance crate's
           bundled set; --check exits 1 when a recall target is not met,
           --only locomo,coding,bundled picks sets, --model DIR (or
           MEMDIR_EMBED_MODEL) adds an embedding model's rows (its
           cosine alone, and fused with memdir's ranking), --help lists
           the rest;
           `doctor` prints each doctor check's precision and recall on
           fixtures/doctor/ and the near-duplicate threshold table; `all`
           runs both; --failures lists every wrong answer
  bench    run the criterion benchmarks (extra arguments go to cargo bench)
  fuzz     run the fuzz targets in fuzz/ (needs nightly and cargo-fuzz):
           cargo xtask fuzz [--seconds N] [--no-cmin] [TARGET...]; a
           failing input is saved where `cargo xtask test` replays it
  review   review changed insta snapshots (needs cargo-insta)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("layers") => layers::run(&root()),
        Some("tidy") => tidy::run(&root()),
        Some("bench") => bench(&args[1..]),
        Some("eval") => eval(&args[1..]),
        Some("review") => review(),
        Some("fuzz") => fuzz::run(&root(), &args[1..]),
        Some("package") => package(),
        None | Some("help" | "-h" | "--help") => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown task {other:?}; run `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the folder above this crate's manifest.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_owned()
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `cargo <args>` in the workspace root, failing with the command line.
fn run_cargo(args: &[&str]) -> Result<(), String> {
    eprintln!("==> cargo {}", args.join(" "));
    // Cargo's rustc probe reads stdin; never hand it ours.
    let status = Command::new(cargo())
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

fn test() -> Result<(), String> {
    run_cargo(&["fmt", "--all", "--", "--check"])?;
    run_cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ])?;
    // `cargo test` (not nextest) so that doctests run too.
    run_cargo(&["test", "--workspace", "--locked"])?;
    eprintln!("==> layers");
    layers::run(&root())?;
    eprintln!("==> tidy");
    tidy::run(&root())?;
    package()?;
    eprintln!("==> all checks passed");
    Ok(())
}

/// `cargo package`, verified, for every workspace crate that may be
/// published: each is built from its own package, with its workspace
/// dependencies taken from their packages too.
fn package() -> Result<(), String> {
    let metadata = layers::metadata(&root())?;
    let publishable: Vec<String> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            p["publish"]
                .as_array()
                .is_none_or(|registries| !registries.is_empty())
        })
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect();
    forget_unpacked(&publishable);
    // Cargo takes a registry crate's build for good once made, whatever
    // its sources now say: the verification builds in its own target
    // folder, where our packages' builds are forgotten before each run.
    let target = root().join("target").join("package-verify");
    forget_builds(&target, &publishable);
    let mut args = vec!["package", "--allow-dirty", "--locked", "--target-dir"];
    let target_arg = target.display().to_string();
    args.push(&target_arg);
    for name in &publishable {
        args.extend(["--package", name]);
    }
    run_cargo(&args)
}

/// Removes the build fingerprints of our packages under `target`, so that
/// each is rebuilt from the sources just packaged.
fn forget_builds(target: &Path, names: &[String]) {
    let Ok(entries) = std::fs::read_dir(target.join("debug").join(".fingerprint")) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let dir_name = entry.file_name().to_string_lossy().into_owned();
        if names.iter().any(|n| is_versioned_name(&dir_name, n)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether `dir_name` is a cargo folder of package `name`: `<name>-` and
/// a version (`0.1.0`) or a build hash (hex digits), never the folder of a
/// longer package name such as `<name>-extra-…`.
fn is_versioned_name(dir_name: &str, name: &str) -> bool {
    dir_name
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit())
                || (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_hexdigit()))
        })
}

/// Removes cargo's unpacked copies of our own packages from its local
/// registry folders. The verification unpacks each workspace dependency
/// from a temporary local registry into `$CARGO_HOME/registry/src/<id>/`,
/// and reuses a copy found there: without this, a second run would build
/// against the sources of the first. crates.io's folders are left alone.
fn forget_unpacked(names: &[String]) {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    for registry in registries.filter_map(Result::ok) {
        if registry.file_name().to_string_lossy().starts_with("index.") {
            continue;
        }
        let Ok(unpacked) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for dir in unpacked.filter_map(Result::ok) {
            let dir_name = dir.file_name().to_string_lossy().into_owned();
            if names.iter().any(|n| is_versioned_name(&dir_name, n)) {
                let _ = std::fs::remove_dir_all(dir.path());
            }
        }
    }
}

fn bench(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["bench", "--workspace"];
    args.extend(extra.iter().map(String::as_str));
    run_cargo(&args)
}

/// `eval [recall|doctor|all] [ARGS…]`: the labelled evaluations; the
/// recall one when no set is named.
fn eval(extra: &[String]) -> Result<(), String> {
    let (sets, rest): (&[(&str, &str)], &[String]) = match extra.first().map(String::as_str) {
        Some("recall") => (&[("memdir-relevance", "recall_eval")], &extra[1..]),
        Some("doctor") => (&[("memdir-doctor", "doctor_eval")], &extra[1..]),
        Some("all") => (
            &[
                ("memdir-relevance", "recall_eval"),
                ("memdir-doctor", "doctor_eval"),
            ],
            &extra[1..],
        ),
        _ => (&[("memdir-relevance", "recall_eval")], extra),
    };
    for (package, example) in sets {
        let mut args = vec![
            "run",
            "--quiet",
            "--release",
            "--package",
            package,
            "--example",
            example,
        ];
        if *package == "memdir-relevance" {
            // The embedding model's rows, when a model is given.
            args.extend(["--features", "semantic"]);
        }
        args.push("--");
        args.extend(rest.iter().map(String::as_str));
        run_cargo(&args)?;
    }
    Ok(())
}

fn review() -> Result<(), String> {
    let installed = Command::new(cargo())
        .args(["insta", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        return Err(
            "cargo-insta is not installed; `cargo install cargo-insta --locked`".to_owned(),
        );
    }
    run_cargo(&["insta", "review", "--workspace"])
}

#[cfg(test)]
mod tests {
    use super::is_versioned_name;

    #[test]
    fn cargo_folders_of_a_package_are_told_from_longer_names() {
        assert!(is_versioned_name("memdir-scan-0.1.0", "memdir-scan"));
        assert!(is_versioned_name(
            "memdir-scan-6ec66fd7c6263527",
            "memdir-scan"
        ));
        assert!(!is_versioned_name("memdir-scanner-0.1.0", "memdir-scan"));
        assert!(!is_versioned_name("memdir-scan-extra-0.1.0", "memdir-scan"));
        assert!(!is_versioned_name("memdir-scan", "memdir-scan"));
    }
}
