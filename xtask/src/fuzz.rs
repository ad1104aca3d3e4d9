//! `cargo xtask fuzz`: runs the cargo-fuzz targets in `fuzz/` for a time
//! budget each, minimises their corpora, and saves every failing input as a
//! regression that `cargo xtask test` replays on stable.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const DEFAULT_SECONDS: u64 = 60;

/// Targets whose inputs stay shorter than libFuzzer's default, so that the
/// corpus kept in the repository stays small: a gitleaks configuration
/// mutated from the 20 KB built-in one would fill it with near copies.
const MAX_LEN: &[(&str, usize)] = &[("secrets_config", 4096)];

pub(crate) const HELP: &str = "\
cargo xtask fuzz [--seconds N] [--no-cmin] [TARGET...]

Runs each fuzz target in fuzz/fuzz_targets/ (all of them when none is
named) for N seconds (default 60), one after another, then minimises its
corpus in fuzz/corpus/<target>/. A failing input is copied to
fuzz/regressions/<target>/, where `cargo xtask test` replays it on stable
until the bug is fixed. Logs go to fuzz/artifacts/<target>.log.

Needs the nightly toolchain and cargo-fuzz, and installs neither:
  rustup toolchain install nightly
  cargo install cargo-fuzz --locked
";

struct Options {
    seconds: u64,
    cmin: bool,
    targets: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        seconds: DEFAULT_SECONDS,
        cmin: true,
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let value = args.next().ok_or("--seconds needs a number")?;
                options.seconds = value
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("--seconds {value:?} is not a positive number"))?;
            }
            "--no-cmin" => options.cmin = false,
            "-h" | "--help" => return Err(HELP.to_owned()),
            flag if flag.starts_with('-') => {
                return Err(format!("unknown option {flag:?}\n\n{HELP}"));
            }
            target => options.targets.push(target.to_owned()),
        }
    }
    Ok(options)
}

/// The targets: the files of `fuzz/fuzz_targets/`, sorted.
fn all_targets(fuzz: &Path) -> Result<Vec<String>, String> {
    let dir = fuzz.join("fuzz_targets");
    let entries = fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    names.sort();
    Ok(names)
}

/// `cargo` through rustup's proxy, which understands `+nightly` (the
/// `CARGO` that runs xtask is the stable toolchain's own binary).
fn rustup_cargo() -> Command {
    let mut cargo = Command::new("cargo");
    cargo.env_remove("RUSTUP_TOOLCHAIN").env_remove("CARGO");
    cargo
}

fn tool_works(args: &[&str]) -> bool {
    rustup_cargo()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What one run of a target came to.
struct Outcome {
    target: String,
    seconds: u64,
    executions: Option<u64>,
    per_second: Option<u64>,
    corpus: usize,
    failure: Option<PathBuf>,
}

pub(crate) fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let options = match parse(args) {
        Ok(o) => o,
        Err(help) if help == HELP => {
            print!("{HELP}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let fuzz = root.join("fuzz");
    let known = all_targets(&fuzz)?;
    let targets = if options.targets.is_empty() {
        known.clone()
    } else {
        options.targets.clone()
    };
    if let Some(bad) = targets.iter().find(|t| !known.contains(t)) {
        return Err(format!(
            "no fuzz target {bad:?}; the targets are: {}",
            known.join(", ")
        ));
    }
    if !tool_works(&["+nightly", "--version"]) {
        return Err(
            "the fuzzers need the nightly toolchain: `rustup toolchain install nightly`".to_owned(),
        );
    }
    if !tool_works(&["+nightly", "fuzz", "--version"]) {
        return Err("cargo-fuzz is not installed: `cargo install cargo-fuzz --locked`".to_owned());
    }
    let mut outcomes = Vec::new();
    for target in &targets {
        outcomes.push(fuzz_one(root, &fuzz, target, &options)?);
    }
    print_summary(&outcomes);
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.failure.is_some())
        .map(|o| o.target.as_str())
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fuzzing found failures in {}; their inputs are in fuzz/regressions/, \
             and `cargo xtask test` fails on them until they are fixed",
            failed.join(", ")
        ))
    }
}

fn fuzz_one(root: &Path, fuzz: &Path, target: &str, options: &Options) -> Result<Outcome, String> {
    let artifacts = fuzz.join("artifacts").join(target);
    let corpus = fuzz.join("corpus").join(target);
    fs::create_dir_all(&artifacts).map_err(|e| format!("{}: {e}", artifacts.display()))?;
    fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let log_path = fuzz.join("artifacts").join(format!("{target}.log"));
    let log = fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    eprintln!(
        "==> fuzzing {target} for {} s (log: {})",
        options.seconds,
        log_path.display()
    );
    let started = SystemTime::now();
    let clock = Instant::now();
    let status = rustup_cargo()
        .args(["+nightly", "fuzz", "run", target, "--"])
        .arg(format!("-max_total_time={}", options.seconds))
        .args(["-print_final_stats=1", "-timeout=10"])
        .args(
            MAX_LEN
                .iter()
                .filter(|(t, _)| *t == target)
                .map(|(_, n)| format!("-max_len={n}")),
        )
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .status()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let elapsed = clock.elapsed();
    let text = fs::read_to_string(&log_path).unwrap_or_default();
    let mut failure = None;
    if !status.success() {
        failure = Some(save_failure(fuzz, target, &artifacts, started, &text)?);
    } else if options.cmin {
        eprintln!("==> minimising fuzz/corpus/{target}");
        let cmin = rustup_cargo()
            .args(["+nightly", "fuzz", "cmin", target])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot run cargo fuzz cmin: {e}"))?;
        if !cmin.success() {
            return Err(format!("`cargo fuzz cmin {target}` failed ({cmin})"));
        }
    }
    Ok(Outcome {
        target: target.to_owned(),
        seconds: elapsed.as_secs(),
        executions: stat(&text, "stat::number_of_executed_units:"),
        per_second: stat(&text, "stat::average_exec_per_sec:"),
        corpus: fs::read_dir(&corpus).map_or(0, Iterator::count),
        failure,
    })
}

/// The newest input libFuzzer saved since `started`, copied into
/// `fuzz/regressions/<target>/`.
fn save_failure(
    fuzz: &Path,
    target: &str,
    artifacts: &Path,
    started: SystemTime,
    log: &str,
) -> Result<PathBuf, String> {
    let newest = fs::read_dir(artifacts)
        .map_err(|e| format!("{}: {e}", artifacts.display()))?
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(time, _)| *time >= started - Duration::from_secs(1))
        .max();
    let tail: Vec<&str> = log.lines().rev().take(40).collect();
    eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    let Some((_, input)) = newest else {
        return Err(format!(
            "the fuzzer for {target} failed without saving an input; see the log above"
        ));
    };
    let dir = fuzz.join("regressions").join(target);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let name = input.file_name().ok_or("an artifact without a name")?;
    let saved = dir.join(name);
    fs::copy(&input, &saved).map_err(|e| format!("{}: {e}", saved.display()))?;
    eprintln!(
        "==> {target} failed; the input is saved as {} (rename it to say what it found)",
        saved.display()
    );
    Ok(saved)
}

/// The number after `key` in libFuzzer's final statistics.
fn stat(log: &str, key: &str) -> Option<u64> {
    log.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
}

fn print_summary(outcomes: &[Outcome]) {
    let show = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
    println!("| target | seconds | executions | executions/s | corpus files | result |");
    println!("|---|---:|---:|---:|---:|---|");
    for o in outcomes {
        let result = o.failure.as_ref().map_or_else(
            || "clean".to_owned(),
            |p| format!("failed: {}", p.display()),
        );
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            o.target,
            o.seconds,
            show(o.executions),
            show(o.per_second),
            o.corpus,
            result
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn options_parse() {
        let o = parse(&args(&[
            "--seconds",
            "600",
            "--no-cmin",
            "index",
            "team_key",
        ]))
        .unwrap();
        assert_eq!((o.seconds, o.cmin), (600, false));
        assert_eq!(o.targets, ["index", "team_key"]);
        assert!(parse(&args(&["--seconds", "0"])).is_err());
        assert!(parse(&args(&["--seconds"])).is_err());
        assert!(parse(&args(&["--fast"])).is_err());
    }

    #[test]
    fn final_stats_are_read() {
        let log = "#1 INITED\nstat::number_of_executed_units: 123456\nstat::average_exec_per_sec:     2057\n";
        assert_eq!(stat(log, "stat::number_of_executed_units:"), Some(123_456));
        assert_eq!(stat(log, "stat::average_exec_per_sec:"), Some(2057));
        assert_eq!(stat(log, "stat::missing:"), None);
    }
}
