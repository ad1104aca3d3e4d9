//! `memdir secrets scan|redact|rules` and the secret check of `memdir add
//! --team`, run as a process. The secret must never appear in any output.

use std::fs;

use crate::{memdir_in, memdir_with_stdin, root, stderr, stdout};

const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

fn both(out: &std::process::Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn scan_names_rule_and_line_and_never_the_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("notes.md");
    fs::write(&file, format!("# Notes\n\nthe CI token is {TOKEN}\n")).unwrap();
    let out = memdir_in(tmp.path(), &[], ["secrets", "scan", "notes.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("notes.md:3: github-pat"),
        "{}",
        stdout(&out)
    );
    assert!(!both(&out).contains(TOKEN));

    let out = memdir_in(tmp.path(), &[], ["secrets", "scan", "notes.md", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j[0]["ruleId"], "github-pat");
    assert_eq!(j[0]["line"], 3);
    let (start, end) = (
        usize::try_from(j[0]["start"].as_u64().unwrap()).unwrap(),
        usize::try_from(j[0]["end"].as_u64().unwrap()).unwrap(),
    );
    assert_eq!(&fs::read_to_string(&file).unwrap()[start..end], TOKEN);
    assert!(!stdout(&out).contains(TOKEN));
}

#[test]
fn clean_inputs_exit_0_and_folders_are_walked() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("memory/team")).unwrap();
    fs::write(
        tmp.path().join("memory/a.md"),
        "no secrets, just a UUID 123e4567-e89b-12d3-a456-426614174000\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("memory/team/b.md"),
        "git sha 9fceb02d0ae598e95dc970b74767f19372d61af8\n",
    )
    .unwrap();
    let out = memdir_in(tmp.path(), &[], ["secrets", "scan", "memory"]);
    assert!(out.status.success(), "{}", both(&out));
    assert!(stdout(&out).contains("no secrets found (2 inputs scanned)"));
    fs::write(
        tmp.path().join("memory/team/.env"),
        format!("TOKEN={TOKEN}\n"),
    )
    .unwrap();
    let out = memdir_in(tmp.path(), &[], ["secrets", "scan", "memory", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(j[0]["file"].as_str().unwrap().ends_with("memory/team/.env"));
}

/// A file whose name is not UTF-8 is scanned all the same (a secret does
/// not hide behind an odd name); a folder so named is reported, not entered;
/// `.git` is never entered.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_scan_reads_files_with_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir_all(dir.join(".git")).unwrap();
    fs::write(dir.join(".git/config"), format!("TOKEN={TOKEN}\n")).unwrap();
    let odd = dir.join(std::ffi::OsStr::from_bytes(b"odd-\xff.md"));
    fs::write(&odd, format!("TOKEN={TOKEN}\n")).unwrap();
    let odd_dir = dir.join(std::ffi::OsStr::from_bytes(b"sub-\xfe"));
    fs::create_dir(&odd_dir).unwrap();
    fs::write(odd_dir.join("x.md"), "x\n").unwrap();
    let out = memdir_in(tmp.path(), &[], ["secrets", "scan", "memory", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j.as_array().unwrap().len(), 1, "{j}");
    assert!(
        j[0]["file"].as_str().unwrap().ends_with("odd-\u{fffd}.md"),
        "{j}"
    );
    let line =
        "memdir: warning: memory/sub-\u{fffd}: name is not UTF-8, folder not entered; skipped";
    assert!(stderr(&out).lines().any(|l| l == line), "{}", stderr(&out));
    assert!(!both(&out).contains(TOKEN));
}

#[test]
fn stdin_redact_and_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let out = memdir_with_stdin(
        tmp.path(),
        &[],
        ["secrets", "scan"],
        Some(&format!("x = \"{TOKEN}\"\n")),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("stdin:1: github-pat"));
    let out = memdir_with_stdin(
        tmp.path(),
        &[],
        ["secrets", "redact", "-"],
        Some(&format!("x = \"{TOKEN}\"\nkeep me\n")),
    );
    assert!(out.status.success());
    assert_eq!(stdout(&out), "x = \"[REDACTED:github-pat]\"\nkeep me\n");
    let out = memdir_in(tmp.path(), &[], ["secrets", "rules", "--json"]);
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.len() >= 30);
    for id in [
        "aws-access-token",
        "gcp-api-key",
        "anthropic-api-key",
        "openai-api-key",
        "github-pat",
        "slack-bot-token",
        "private-key",
        "pypi-upload-token",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
}

#[test]
fn a_user_config_extends_or_replaces_the_rules() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(
        tmp.path().join("t.txt"),
        format!("internal=ACME-1234567890abcdef\ngh={TOKEN}\n"),
    )
    .unwrap();
    let rule = "[[rules]]\nid = \"acme-internal\"\ndescription = \"ACME internal key\"\nregex = '''ACME-[0-9a-f]{16}'''\nkeywords = [\"acme-\"]\n";
    fs::write(
        tmp.path().join("extend.toml"),
        format!("[extend]\nuseDefault = true\n{rule}"),
    )
    .unwrap();
    fs::write(tmp.path().join("only.toml"), rule).unwrap();
    let ids = |config: &str| {
        let out = memdir_in(
            tmp.path(),
            &[],
            ["secrets", "scan", "t.txt", "--json", "--config", config],
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut ids: Vec<String> = j
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["ruleId"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids("extend.toml"), ["acme-internal", "github-pat"]);
    assert_eq!(ids("only.toml"), ["acme-internal"]);
    // A broken config is a one-line error.
    fs::write(
        tmp.path().join("bad.toml"),
        "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n",
    )
    .unwrap();
    let out = memdir_in(
        tmp.path(),
        &[],
        ["secrets", "scan", "t.txt", "--config", "bad.toml"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("bad.toml") && stderr(&out).contains("rule x"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn add_to_the_team_refuses_a_secret_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    let out = memdir_in(
        tmp.path(),
        &[("MEMDIR_TEAM", "1")],
        [
            "--memory-dir",
            dir.to_str().unwrap(),
            "add",
            "--team",
            "--type",
            "reference",
            "--name",
            "ci-token",
            "--description",
            "The CI token",
            "--body",
            &format!("token: {TOKEN}"),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains("github-pat on line") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!both(&out).contains(TOKEN));
    assert!(!dir.join("team").exists(), "nothing written");
    // The same memory may stay private, when the user says so.
    let private = |extra: &[&str]| {
        let body = format!("token: {TOKEN}");
        let mut args = vec![
            "--memory-dir",
            dir.to_str().unwrap(),
            "add",
            "--type",
            "reference",
            "--name",
            "ci-token",
            "--description",
            "The CI token",
            "--body",
            &body,
        ];
        args.extend_from_slice(extra);
        memdir_in(tmp.path(), &[], args)
    };
    let out = private(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", both(&out));
    let out = private(&["--allow-secret"]);
    assert!(out.status.success(), "{}", both(&out));
    let _ = root();
}
