//! `memdir agent check-bash`: the read-only Bash policy from the command
//! line, exit 0 when allowed and 3 when denied, text and JSON.

use crate::{memdir, stderr, stdout};

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)))
}

#[test]
fn an_allowed_command_exits_0_and_shows_what_would_run() {
    // The words are joined with spaces and read as Bash would: the quotes
    // here are part of the command line.
    let out = memdir(["agent", "check-bash", "--", "grep", "-rn", "'a;b'", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "allowed: read-only: `grep`\n  grep -rn 'a;b' src\n"
    );
    // One quoted string is the same command line.
    let out = memdir(["agent", "check-bash", "ls -la | head -5 2>/dev/null && pwd"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "allowed: read-only: `ls`, `head`, `pwd`\n  ls -la | head -5 2>/dev/null\n  && pwd\n"
    );
}

#[test]
fn a_denied_command_exits_3_with_its_reason() {
    let out = memdir(["agent", "check-bash", "--", "cat", "a", ">", "b"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stdout(&out), "denied: `>` redirects output to a file\n");
    assert_eq!(stderr(&out), "");
    let out = memdir(["agent", "check-bash", "ls; rm -rf /"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout(&out), "denied: `rm` changes files\n");
}

#[test]
fn json_has_allowed_reason_and_the_plan() {
    let out = memdir([
        "--json",
        "agent",
        "check-bash",
        "--",
        "ls",
        "-la",
        "|",
        "wc",
        "-l",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j["allowed"], true);
    assert_eq!(j["reason"], "read-only: `ls`, `wc`");
    assert_eq!(
        j["plan"],
        serde_json::json!([{"when": "always", "pipeline": [
            {"argv": ["ls", "-la"], "stderr": "output"},
            {"argv": ["wc", "-l"], "stderr": "output"},
        ]}])
    );

    let out = memdir(["agent", "check-bash", "--json", "echo $(id)"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(
        json(&out),
        serde_json::json!({"allowed": false, "reason": "`$(…)` runs a command"})
    );
}

#[test]
fn a_command_starting_with_a_dash_is_a_command() {
    let out = memdir(["agent", "check-bash", "-rf"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("denied: `-rf` is not one of"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_missing_command_is_a_usage_error() {
    let out = memdir(["agent", "check-bash"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("<CMD>"), "{}", stderr(&out));
}

#[test]
fn help_teaches_with_examples() {
    let out = memdir(["agent", "check-bash", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for part in [
        "memdir agent check-bash -- ls -la src",
        "Exit 0 when allowed, 3 when denied",
        "JSON: {allowed, reason, plan?}",
        "Options such as --json go before --",
    ] {
        assert!(help.contains(part), "{part:?} missing from:\n{help}");
    }
    let out = memdir(["agent", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("check-bash"));
}

#[test]
fn a_glob_is_shown_as_the_pattern_it_expands() {
    let out = memdir(["agent", "check-bash", "wc -l *.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("\n  wc -l *.md\n"),
        "{}",
        stdout(&out)
    );
    let out = memdir(["--json", "agent", "check-bash", "wc -l *.md"]);
    let j = json(&out);
    assert_eq!(
        j["plan"][0]["pipeline"][0]["globs"],
        serde_json::json!([{"arg": 2, "pattern": "*.md"}])
    );
}
