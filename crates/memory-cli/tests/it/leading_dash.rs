//! Positional arguments that start with `-` (a key, a path, a query, a
//! file) are taken as values, real options after them still work, and
//! `--` passes what looks like an option; `secrets scan`, whose inputs are
//! a list that options may follow, takes `--`. Each `--help` says so.

use std::fs;
use std::path::Path;

use crate::{memdir_in, stderr, stdout};

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)))
}

/// A temporary folder with its canonical path, and a team folder in it.
fn team() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let team = fs::canonicalize(tmp.path()).unwrap().join("team");
    fs::create_dir_all(&team).unwrap();
    (tmp, team)
}

#[test]
fn check_key_takes_a_dash_key_and_still_sees_its_options() {
    let (_tmp, team) = team();
    let team_arg = team.to_str().unwrap();
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-key",
            "-dash.md",
            "--team-dir",
            team_arg,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j["ok"], true);
    assert_eq!(j["path"], format!("{}/-dash.md", team.display()));

    // A long-option spelling and a nested key.
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-key",
            "--weird/-x.md",
            "--json",
            "--team-dir",
            team_arg,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        json(&out)["path"],
        format!("{}/--weird/-x.md", team.display())
    );

    // A dash does not bypass the rules: a hostile key is still refused.
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-key",
            "-x/../../etc",
            "--team-dir",
            team_arg,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(json(&out)["ok"], false);

    // What is an option needs `--`: the key `--json`, text output.
    let out = memdir_in(
        &team,
        &[],
        ["paths", "check-key", "--team-dir", team_arg, "--", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        format!("ok: {}/--json", team.display())
    );
}

#[test]
fn check_write_takes_a_dash_path() {
    let (_tmp, team) = team();
    let team_arg = team.to_str().unwrap();
    // Relative to the working directory, the team folder here.
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-write",
            "-new.md",
            "--team-dir",
            team_arg,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["path"], format!("{}/-new.md", team.display()));
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-write",
            "-../../x.md",
            "--team-dir",
            team_arg,
            "--json",
        ],
    );
    // `-..` is a name, not `..`: the path stays inside.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = memdir_in(
        &team,
        &[],
        [
            "paths",
            "check-write",
            "--team-dir",
            team_arg,
            "--json",
            "--",
            "--x/../../y.md",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(json(&out)["code"], "outside-team-folder");
}

/// A memory folder named `name` (in a new temporary folder) with an index
/// and the one memory it links to.
fn index_folder(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join(name);
    fs::create_dir_all(&folder).unwrap();
    fs::write(
        folder.join("MEMORY.md"),
        "- [Deploys](deploys.md) — staging first\n",
    )
    .unwrap();
    fs::write(
        folder.join("deploys.md"),
        "---\nname: deploys\ndescription: staging first\ntype: project\n---\nStaging first.\n",
    )
    .unwrap();
    tmp
}

#[test]
fn index_commands_take_a_dash_file() {
    let tmp = index_folder("-memory");
    let dir = tmp.path();
    let file = "-memory/MEMORY.md";
    let out = memdir_in(dir, &[], ["index", "check", file, "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(json(&out)["lineCount"], 1);

    let out = memdir_in(dir, &[], ["index", "show", file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        json(&out)["content"]
            .as_str()
            .unwrap()
            .contains("(deploys.md)"),
        "{}",
        stdout(&out)
    );

    let out = memdir_in(dir, &[], ["index", "fix", file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["added"], serde_json::json!([]));

    // `--` before a file named like an option: `--json` is the file, the
    // output is text.
    let tmp = index_folder("--json");
    let out = memdir_in(tmp.path(), &[], ["index", "show", "--", "--json/MEMORY.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("- [Deploys]"), "{}", stdout(&out));
}

#[test]
fn recall_takes_a_dash_query() {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path().join("memory");
    fs::create_dir_all(&memory).unwrap();
    fs::write(
        memory.join("verbose.md"),
        "---\nname: verbose\ndescription: The deploy script's -v flag prints every step\ntype: reference\n---\nUse deploy -v when a deploy fails.\n",
    )
    .unwrap();
    let dir = memory.to_str().unwrap();
    let out = memdir_in(
        tmp.path(),
        &[],
        [
            "recall",
            "-v flag of the deploy script",
            "--json",
            "--memory-dir",
            dir,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j[0]["filename"], "verbose.md", "{j}");

    // `--` makes `--json` the query; the answer is text.
    let out = memdir_in(
        tmp.path(),
        &[],
        ["recall", "--memory-dir", dir, "--", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stdout(&out).trim_start().starts_with('['),
        "{}",
        stdout(&out)
    );
    // Without a query `--json` is the option it looks like.
    let out = memdir_in(tmp.path(), &[], ["recall", "--json", "--memory-dir", dir]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

fn secret_file(dir: &Path, name: &str) {
    fs::write(dir.join(name), format!("token {TOKEN}\n")).unwrap();
}

#[test]
fn secrets_scan_takes_dash_inputs_after_a_double_dash() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    secret_file(dir, "-notes.txt");
    fs::write(dir.join("clean.txt"), "nothing here\n").unwrap();

    let out = memdir_in(dir, &[], ["secrets", "scan", "--json", "--", "-notes.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j[0]["ruleId"], "github-pat");
    assert_eq!(j[0]["file"], "-notes.txt");

    let out = memdir_in(dir, &[], ["secrets", "scan", "./-notes.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    // Options after the inputs keep working.
    let out = memdir_in(dir, &[], ["secrets", "scan", "clean.txt", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out), serde_json::json!([]));

    // Without `--` the name reads as an option: a usage error that points
    // at the help, which says what to do.
    let out = memdir_in(dir, &[], ["secrets", "scan", "-notes.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("memdir secrets scan --help"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains(TOKEN) && !stderr(&out).contains(TOKEN));
}

#[test]
fn secrets_redact_takes_a_dash_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    secret_file(dir, "-notes.txt");
    let out = memdir_in(dir, &[], ["secrets", "redact", "-notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "token [REDACTED:github-pat]\n");
    secret_file(dir, "--config");
    let out = memdir_in(dir, &[], ["secrets", "redact", "--", "--config"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "token [REDACTED:github-pat]\n");
}

#[test]
fn each_help_says_how_a_dash_value_is_passed() {
    for (args, says) in [
        (
            &["paths", "check-key", "--help"][..],
            "A KEY that starts with '-' is taken as it is",
        ),
        (
            &["paths", "check-write", "--help"],
            "A PATH that starts with '-' is taken as it is",
        ),
        (
            &["index", "check", "--help"],
            "A FILE that starts with '-' is taken as it is",
        ),
        (
            &["index", "show", "--help"],
            "A FILE that starts with '-' is taken as it is",
        ),
        (
            &["index", "fix", "--help"],
            "A FILE that starts with '-' is taken as it is",
        ),
        (
            &["recall", "--help"],
            "A QUERY that starts with '-' is taken as it is",
        ),
        (
            &["secrets", "redact", "--help"],
            "A FILE that starts with '-' is taken",
        ),
        (&["secrets", "scan", "--help"], "needs -- before the inputs"),
    ] {
        let out = memdir_in(Path::new("/"), &[], args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let help = stdout(&out)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(help.contains(says), "{args:?}: {help}");
    }
}
