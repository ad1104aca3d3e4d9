//! The git tables against the git on this machine: every option the
//! policy lists is one git knows, and it takes the next word as its value
//! exactly when the table says so. A table that thought an option took a
//! value git does not take would let the next word pass unread.

use std::path::Path;
use std::process::Command;

use super::*;
use crate::options::Takes;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["--no-pager", "-c", "core.pager=cat"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_PAGER", "cat")
        .env("HOME", dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("git runs");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A repository of two commits, for subcommands that need one.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let run = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    run(&["init", "-q", "-b", "main"]);
    for (i, text) in ["one\n", "two\n"].iter().enumerate() {
        std::fs::write(dir.path().join("a.txt"), text).expect("write");
        run(&["add", "a.txt"]);
        run(&[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            &format!("c{i}"),
        ]);
    }
    dir
}

/// The subcommands whose unknown options git may report without naming
/// them; there, the word after the option is `--output=FILE`, which git
/// opens as soon as it reads it as an option.
const OUTPUT_PROBED: &[&str] = &[
    "diff",
    "diff-tree",
    "log",
    "show",
    "reflog",
    "rev-list",
    "shortlog",
];

/// Words after the probe some subcommands need to get as far as reading
/// it.
fn context(sub: &str) -> &'static [&'static str] {
    match sub {
        "diff" => &["HEAD~1"],
        "diff-tree" => &["HEAD~1", "HEAD"],
        "log" => &["--", "a.txt"],
        "rev-list" | "shortlog" => &["HEAD"],
        "blame" => &["a.txt"],
        _ => &[],
    }
}

/// Whether git's complaint names `spelled` as an option it does not know.
fn unknown(stderr: &str, spelled: &str) -> bool {
    let bare = spelled.trim_start_matches('-');
    stderr.contains(&format!("unknown option `{bare}'"))
        || stderr.contains(&format!("unknown switch `{bare}'"))
        || stderr.contains(&format!("unknown option `{spelled}'"))
        || stderr.contains(&format!("unrecognized argument: {spelled}"))
        || stderr.contains(&format!("invalid option: {spelled}"))
}

#[test]
fn every_option_in_the_git_tables_takes_a_value_exactly_when_git_does() {
    let repo = repository();
    let mut wrong = Vec::new();
    let mut n = 0;
    for sub in SUBCOMMANDS {
        let mut seen: Vec<String> = Vec::new();
        for opt in sub.tables.iter().copied().flatten() {
            let mut spellings: Vec<String> = opt.long.iter().map(|l| format!("--{l}")).collect();
            spellings.extend(
                opt.short
                    .chars()
                    .filter(|c| !c.is_ascii_digit())
                    .map(|c| format!("-{c}")),
            );
            for spelled in spellings {
                // An earlier table holding the same name wins.
                if seen.contains(&spelled) {
                    continue;
                }
                seen.push(spelled.clone());
                let given = if opt.takes == Takes::Joined {
                    let sample = if spelled == "--format" { "%h" } else { "1" };
                    format!("{spelled}={sample}")
                } else {
                    spelled.clone()
                };
                n += 1;
                let probe_file = repo.path().join(format!("probe-{n}"));
                let probe = if OUTPUT_PROBED.contains(&sub.name) {
                    format!("--output={}", probe_file.display())
                } else {
                    "--memdir-probe".to_owned()
                };
                let mut args = vec![sub.name, given.as_str(), probe.as_str()];
                args.extend(context(sub.name));
                let stderr = git(repo.path(), &args);
                if unknown(&stderr, &spelled) {
                    wrong.push(format!("git {} {spelled}: git does not know it", sub.name));
                    continue;
                }
                let read_as_option = if OUTPUT_PROBED.contains(&sub.name) {
                    probe_file.exists()
                } else {
                    unknown(&stderr, "--memdir-probe")
                };
                let takes_next = opt.takes == Takes::Value;
                if read_as_option == takes_next {
                    wrong.push(format!(
                        "git {} {given}: the table says the next word is {}, git read it {}: {}",
                        sub.name,
                        if takes_next {
                            "its value"
                        } else {
                            "not its value"
                        },
                        if read_as_option {
                            "as an option"
                        } else {
                            "as a value"
                        },
                        stderr.lines().next().unwrap_or_default()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
