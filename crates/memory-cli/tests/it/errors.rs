//! Bad input: one line on stderr, the exit status of SPEC R17.1, no panic.

use crate::{memdir, stderr};

/// Runs memdir and checks the exit status and that stderr is one line
/// containing `needle`.
fn check(args: &[&str], status: i32, needle: &str) {
    let out = memdir(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(status), "{args:?}: stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(err.starts_with("memdir: "), "{args:?}: {err:?}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(
        !err.contains("panicked") && !err.contains("internal error"),
        "{err}"
    );
}

#[test]
fn missing_file() {
    check(
        &["index", "check", "no/such/MEMORY.md"],
        1,
        "cannot read no/such/MEMORY.md",
    );
    check(
        &["index", "show", "no/such/MEMORY.md", "--json"],
        1,
        "No such file",
    );
}

#[test]
fn a_folder_instead_of_a_file() {
    check(&["index", "check", "fixtures"], 1, "fixtures is a folder");
    check(&["index", "show", "fixtures"], 1, "fixtures is a folder");
}

#[test]
fn usage_errors() {
    // After FILE: before it, `--no-such` would be a file name (a FILE may
    // start with '-').
    check(
        &["index", "check", "MEMORY.md", "--no-such"],
        2,
        "memdir index check --help",
    );
    check(&["index", "check", "a", "b"], 2, "unexpected argument 'b'");
    check(&["frobnicate"], 2, "unrecognized subcommand 'frobnicate'");
    check(&["--no-such-flag", "index"], 2, "--no-such-flag");
}

#[test]
fn binary_garbage_is_read_not_feared() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("MEMORY.md");
    let garbage: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    std::fs::write(&file, &garbage).unwrap();
    let out = memdir([
        "index".as_ref(),
        "check".as_ref(),
        file.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["wasByteTruncated"], true);
    assert_eq!(json["lint"][0]["kind"], "invalid-utf8");
    assert!(stderr(&out).is_empty());
    let out = memdir(["index".as_ref(), "show".as_ref(), file.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn help_teaches() {
    let out = memdir(["--help"]);
    assert!(out.status.success());
    let help = crate::stdout(&out);
    for needle in ["MEMORY.md", "index", "Examples:", "Exit status"] {
        assert!(help.contains(needle), "--help lacks {needle:?}");
    }
    let out = memdir(["index", "check", "--help"]);
    let help = crate::stdout(&out);
    assert!(
        help.contains("wasLineTruncated") && help.contains("Exits 0"),
        "{help}"
    );
}
