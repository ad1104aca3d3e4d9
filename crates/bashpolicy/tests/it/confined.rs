//! What the runner confines a stage to: a memory cap, a private
//! temporary folder removed after the run (also after a timeout), a
//! session of its own, and limits on file size and core dumps.

use std::path::Path;
use std::time::Duration;

use memdir_bashpolicy::{
    DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_MEMORY_BYTES, Decision, Plan, RunLimits, Stage, Step, When,
    check, run,
};

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[track_caller]
fn stage(command: &str) -> Stage {
    let Decision::Allowed(plan) = check(command) else {
        panic!("{command:?} is allowed: {}", check(command).reason());
    };
    plan.steps[0].pipeline[0].clone()
}

/// `tail -n 1 /dev/zero` keeps one ever-growing line: without a cap it
/// takes a gigabyte a second until the timeout. Under the default cap the
/// allocation fails and tail ends with its own error ("memory exhausted",
/// in the language the environment asks for).
#[test]
fn tail_of_an_endless_line_ends_on_the_memory_cap() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plan = Plan::pipeline(vec![stage("tail -n 1 /dev/zero").argv]);
    let limits = RunLimits {
        timeout: Duration::from_secs(5),
        ..RunLimits::default()
    };
    assert_eq!(limits.max_memory_bytes, DEFAULT_MAX_MEMORY_BYTES);
    let out = run(&plan, dir.path(), &limits).expect("the plan runs");
    assert!(!out.timed_out, "{out:?}");
    assert_eq!(out.exit_code, Some(1), "{out:?}");
    assert!(out.output.starts_with("tail: "), "{out:?}");
}

/// Every stage gets the limits, a session of its own (so no terminal to
/// read and one group to kill), and no core dumps.
#[cfg(target_os = "linux")]
#[test]
fn each_stage_runs_in_its_own_session_with_the_limits() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let limits = RunLimits {
        max_memory_bytes: 300 * 1024 * 1024,
        max_file_bytes: 5 * 1024 * 1024,
        ..RunLimits::default()
    };
    let plan = Plan::pipeline(vec![argv(&["cat", "/proc/self/stat", "/proc/self/limits"])]);
    let out = run(&plan, dir.path(), &limits).expect("the plan runs");
    // pid (comm) state ppid pgrp session …
    let stat: Vec<&str> = out
        .output
        .lines()
        .next()
        .expect("stat")
        .split(' ')
        .collect();
    assert_eq!(stat[0], stat[4], "{}", out.output);
    assert_eq!(stat[0], stat[5], "{}", out.output);
    let limit = |name: &str| -> Vec<String> {
        let line = out
            .output
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {}", out.output));
        line[name.len()..]
            .split_whitespace()
            .take(2)
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(limit("Max data size"), ["314572800", "314572800"]);
    assert_eq!(limit("Max file size"), ["5242880", "5242880"]);
    assert_eq!(limit("Max core file size"), ["0", "0"]);
    assert_eq!(DEFAULT_MAX_FILE_BYTES, 128 * 1024 * 1024);
}

/// Stages see a private `TMPDIR`, not the caller's, and it is gone when
/// the run returns.
#[test]
fn the_temporary_folder_is_private_and_removed() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plan = Plan::pipeline(vec![argv(&["printenv", "TMPDIR"])]);
    let out = run(&plan, dir.path(), &RunLimits::default()).expect("the plan runs");
    let temp = out.output.trim();
    assert!(
        Path::new(temp)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("memdir-bash-")),
        "{temp}"
    );
    assert_ne!(Some(temp.to_owned()), std::env::var("TMPDIR").ok());
    assert!(!Path::new(temp).exists(), "{temp} is left behind");
}

/// `sort` spills to temporary files when its buffer is small. Killed by
/// the timeout while it holds them, it cannot remove them; the runner
/// does, with the whole private folder.
#[test]
fn sort_s_temporary_files_go_when_the_timeout_kills_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let line = "the quick brown fox jumps over the lazy dog\n";
    std::fs::write(dir.path().join("big.txt"), line.repeat(50_000)).expect("write");
    // The input never ends, so sort holds its temporary files until it
    // is killed; the last stage lists them meanwhile.
    let plan = Plan {
        steps: vec![Step {
            when: When::Always,
            pipeline: vec![
                Stage::new(argv(&["sh", "-c", "cat big.txt; sleep 30"])),
                stage("sort -S 64K"),
                Stage::new(argv(&[
                    "sh",
                    "-c",
                    "sleep 1; ls \"$TMPDIR\"; echo \"dir=$TMPDIR\"; cat > /dev/null",
                ])),
            ],
        }],
    };
    let out = run(
        &plan,
        dir.path(),
        &RunLimits {
            timeout: Duration::from_secs(3),
            ..RunLimits::default()
        },
    )
    .expect("the plan runs");
    assert!(out.timed_out, "{out:?}");
    assert!(
        out.output.lines().any(|l| l.starts_with("sort")),
        "sort wrote no temporary file: {}",
        out.output
    );
    let temp = out
        .output
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .expect("the folder");
    assert!(!Path::new(temp).exists(), "{temp} is left behind");
}

/// A file written past the file-size cap ends its writer.
#[test]
fn a_file_cannot_grow_past_the_cap() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plan = Plan::pipeline(vec![argv(&[
        "sh",
        "-c",
        "head -c 3000000 /dev/zero > \"$TMPDIR/big\"; echo status=$?; wc -c < \"$TMPDIR/big\"",
    ])]);
    let out = run(
        &plan,
        dir.path(),
        &RunLimits {
            max_file_bytes: 1_000_000,
            ..RunLimits::default()
        },
    )
    .expect("the plan runs");
    assert!(!out.output.contains("status=0"), "{}", out.output);
    assert!(out.output.trim_end().ends_with("1000000"), "{}", out.output);
}
