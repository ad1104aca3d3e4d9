//! The GNU tables against the programs on this machine: every option the
//! policy lists is one the program knows, and it takes the next word as
//! its value exactly when the table says so.

use std::process::{Command, Stdio};

use super::*;
use crate::options::Takes;

const PROBE: &str = "--memdir-probe";

/// The programs read with GNU `getopt_long`, and their tables.
const GNU: &[(&str, &[Opt])] = &[
    ("ls", LS),
    ("cat", CAT),
    ("head", HEAD),
    ("tail", TAIL),
    ("wc", WC),
    ("stat", STAT),
    ("du", DU),
    ("df", DF),
    ("pwd", PWD),
    ("sort", SORT),
    ("uniq", UNIQ),
    ("cut", CUT),
    ("tr", TR),
    ("nl", NL),
    ("basename", BASENAME),
    ("dirname", DIRNAME),
    ("realpath", REALPATH),
    ("readlink", READLINK),
    ("grep", GREP),
    ("file", FILE),
];

fn stderr_of(dir: &std::path::Path, program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn unrecognized(stderr: &str, spelled: &str) -> bool {
    stderr.contains(&format!("unrecognized option '{spelled}")) || {
        let letter = spelled.trim_start_matches('-');
        spelled.len() == 2 && stderr.contains(&format!("invalid option -- '{letter}'"))
    }
}

#[test]
fn every_option_in_the_gnu_tables_takes_a_value_exactly_when_the_program_does() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (program, table) in GNU {
        for opt in *table {
            let spellings = opt
                .long
                .iter()
                .map(|l| format!("--{l}"))
                .chain(opt.short.chars().map(|c| format!("-{c}")));
            for spelled in spellings {
                // These print and exit before reading further.
                if matches!(spelled.as_str(), "--help" | "--version")
                    || (matches!(*program, "grep" | "file")
                        && matches!(spelled.as_str(), "-V" | "-v"))
                        && spelled == if *program == "grep" { "-V" } else { "-v" }
                {
                    continue;
                }
                let Some(stderr) = stderr_of(dir.path(), program, &[&spelled, PROBE]) else {
                    // Not installed here.
                    continue;
                };
                checked += 1;
                if unrecognized(&stderr, &spelled) {
                    wrong.push(format!("{program} {spelled}: {program} does not know it"));
                    continue;
                }
                let read_as_option = unrecognized(&stderr, PROBE);
                if read_as_option == (opt.takes == Takes::Value) {
                    wrong.push(format!(
                        "{program} {spelled}: the table says the next word is {}its value: {}",
                        if opt.takes == Takes::Value {
                            ""
                        } else {
                            "not "
                        },
                        stderr.lines().next().unwrap_or_default()
                    ));
                }
            }
        }
    }
    assert!(checked > 0 || wrong.is_empty());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
