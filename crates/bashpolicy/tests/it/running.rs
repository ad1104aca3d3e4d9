//! Running plans without a shell: literal arguments, pipes, lists, the
//! timeout, the output cap, the exit status and the environment.

use std::time::{Duration, Instant};

use memdir_bashpolicy::{
    Decision, Plan, RunError, RunLimits, RunOutput, Stage, Stderr, Step, When, check, run,
};

fn limits() -> RunLimits {
    RunLimits {
        timeout: Duration::from_secs(20),
        ..RunLimits::default()
    }
}

#[track_caller]
fn run_checked(command: &str, dir: &std::path::Path) -> RunOutput {
    let Decision::Allowed(plan) = check(command) else {
        panic!("{command:?} is allowed");
    };
    run(&plan, dir, &limits()).expect("the plan runs")
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

#[test]
fn shell_characters_in_quotes_reach_the_program_literally() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = run_checked(r#"echo 'a; touch pwned' "\$(id)\$HOME" '>' x"#, dir.path());
    assert_eq!(out.output, "a; touch pwned $(id)$HOME > x\n");
    assert_eq!(out.exit_code, Some(0));
    assert!(!dir.path().join("pwned").exists());
    assert!(!dir.path().join("x").exists());
}

#[test]
fn a_pipeline_pipes_and_runs_in_the_folder() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("a.txt"), "b\na\nb\nc\n").expect("write");
    let out = run_checked(
        "cat a.txt | sort | uniq -c | sort -rn | head -1",
        dir.path(),
    );
    assert_eq!(out.output.trim(), "2 b");
}

#[test]
fn the_exit_status_is_the_last_stage_s() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    // grep finds nothing (1), but the pipeline ends with wc (0).
    assert_eq!(
        run_checked("echo a | grep z | wc -l", dir.path()).exit_code,
        Some(0)
    );
    assert_eq!(
        run_checked("echo a | grep z", dir.path()).exit_code,
        Some(1)
    );
    assert_eq!(
        run_checked("ls missing 2>/dev/null", dir.path()).exit_code,
        Some(2)
    );
}

#[test]
fn lists_run_as_the_shell_runs_them() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = run_checked(
        "ls missing 2>/dev/null && echo yes || echo no; echo end",
        dir.path(),
    );
    assert_eq!(out.output, "no\nend\n");
    let out = run_checked("echo a || echo b && echo c", dir.path());
    assert_eq!(out.output, "a\nc\n");
}

#[test]
fn stderr_goes_to_the_output_unless_redirected() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = run_checked("ls missing-file", dir.path());
    assert!(out.output.contains("missing-file"), "{out:?}");
    assert_eq!(
        run_checked("ls missing-file 2>/dev/null", dir.path()).output,
        ""
    );
    // 2>&1 sends the error into the pipe, where wc counts it.
    let out = run_checked("ls missing-file 2>&1 | wc -l", dir.path());
    assert_eq!(out.output.trim(), "1");
    let out = run_checked("ls missing-file | wc -l", dir.path());
    assert!(
        out.output.contains("missing-file") && out.output.contains('0'),
        "{out:?}"
    );
}

#[test]
fn stdin_is_empty() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = run_checked("cat", dir.path());
    assert_eq!(out.output, "");
    assert_eq!(run_checked("wc -c", dir.path()).output.trim(), "0");
}

#[test]
fn the_timeout_kills_the_whole_pipeline() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    // Neither is allowed by the policy; `run` is tested on its own here.
    let plan = Plan {
        steps: vec![
            Step {
                when: When::Always,
                pipeline: vec![
                    Stage::new(argv(&["sleep", "30"])),
                    Stage::new(argv(&["cat"])),
                ],
            },
            Step {
                when: When::Always,
                pipeline: vec![Stage::new(argv(&["echo", "never"]))],
            },
        ],
    };
    let started = Instant::now();
    let out = run(
        &plan,
        dir.path(),
        &RunLimits {
            timeout: Duration::from_millis(300),
            ..RunLimits::default()
        },
    )
    .expect("the plan runs");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert!(!out.output.contains("never"));
}

#[test]
fn the_timeout_ends_what_a_stage_started() {
    // `sh` leaves `sleep` behind holding the output pipe; its process
    // group is killed with it, so the run ends.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plan = Plan::pipeline(vec![argv(&["sh", "-c", "sleep 30; echo late"])]);
    let started = Instant::now();
    let out = run(
        &plan,
        dir.path(),
        &RunLimits {
            timeout: Duration::from_millis(300),
            ..RunLimits::default()
        },
    )
    .expect("the plan runs");
    assert!(out.timed_out);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_output_cap_holds_and_counts_the_rest() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let line = "0123456789abcdef\n";
    std::fs::write(dir.path().join("big.txt"), line.repeat(64 * 1024)).expect("write");
    let out = run(
        &Plan::pipeline(vec![argv(&["cat", "big.txt"])]),
        dir.path(),
        &RunLimits {
            max_output_bytes: 30_000,
            ..limits()
        },
    )
    .expect("the plan runs");
    assert_eq!(out.output.len(), 30_000);
    assert_eq!(out.dropped_bytes, (line.len() * 64 * 1024 - 30_000) as u64);
    assert_eq!(out.exit_code, Some(0));
    assert!(!out.timed_out);
}

#[test]
fn a_character_cut_by_the_cap_is_dropped_whole() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("u.txt"), "aé").expect("write");
    let out = run(
        &Plan::pipeline(vec![argv(&["cat", "u.txt"])]),
        dir.path(),
        &RunLimits {
            max_output_bytes: 2,
            ..limits()
        },
    )
    .expect("the plan runs");
    assert_eq!(out.output, "a");
    assert_eq!(out.dropped_bytes, 1);
}

#[test]
fn the_environment_is_cleaned() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    // `printenv` is not allowed by the policy; it shows what stages see.
    let out = run(
        &Plan::pipeline(vec![argv(&["printenv"])]),
        dir.path(),
        &limits(),
    )
    .expect("the plan runs");
    let names: Vec<&str> = out
        .output
        .lines()
        .filter_map(|l| l.split('=').next())
        .collect();
    for name in names {
        assert!(
            matches!(
                name,
                "PATH"
                    | "HOME"
                    | "LANG"
                    | "TZ"
                    | "TMPDIR"
                    | "PAGER"
                    | "GIT_PAGER"
                    | "GIT_TERMINAL_PROMPT"
                    | "GIT_OPTIONAL_LOCKS"
                    | "GIT_NO_LAZY_FETCH"
                    | "NO_COLOR"
                    | "TERM"
            ) || name.starts_with("LC_"),
            "{name} leaked into the environment"
        );
    }
    assert!(out.output.contains("GIT_PAGER=cat\n"), "{}", out.output);
}

#[test]
fn git_runs_read_only_in_a_repository() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "one\n").expect("write");
    git(&["add", "a.txt"]);
    git(&[
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-qm",
        "first",
    ]);
    std::fs::write(dir.path().join("a.txt"), "two\n").expect("write");
    let out = run_checked("git log --oneline | wc -l; git diff --stat", dir.path());
    assert!(out.output.starts_with("1\n"), "{}", out.output);
    assert!(out.output.contains("a.txt"), "{}", out.output);
    assert_eq!(out.exit_code, Some(0));
    let out = run_checked(
        "git show HEAD --stat; git blame a.txt; git status --short",
        dir.path(),
    );
    assert_eq!(out.exit_code, Some(0), "{}", out.output);
}

#[test]
fn a_missing_program_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let plan = Plan::pipeline(vec![argv(&["memdir-no-such-program"])]);
    let err = run(&plan, dir.path(), &limits()).expect_err("nothing to run");
    assert!(
        matches!(&err, RunError::Spawn { program, .. } if program == "memdir-no-such-program"),
        "{err:?}"
    );
    let empty = Plan {
        steps: vec![Step {
            when: When::Always,
            pipeline: vec![Stage {
                argv: vec![],
                stderr: Stderr::Output,
                globs: vec![],
            }],
        }],
    };
    assert!(matches!(
        run(&empty, dir.path(), &limits()),
        Err(RunError::EmptyStage)
    ));
}
