//! The README's quick start works as written.

use crate::{memdir, root, stderr, stdout};

/// The `memdir` arguments of each `cargo run -q -p memory-cli -- …` line of
/// the README's quick start.
fn quick_start_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split("## Quick start")
        .nth(1)
        .expect("a quick start section");
    let block = section
        .split("```sh")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block");
    block
        .lines()
        .filter_map(|l| l.trim().strip_prefix("cargo run -q -p memory-cli -- "))
        .map(|args| args.split_whitespace().map(str::to_owned).collect())
        .collect()
}

#[test]
fn quick_start_commands_succeed() {
    let commands = quick_start_commands();
    assert_eq!(commands.len(), 2, "the quick start has two commands");
    for args in commands {
        let out = memdir(&args);
        assert!(
            out.status.success(),
            "memdir {args:?} failed: {}",
            stderr(&out)
        );
        assert!(!stdout(&out).is_empty(), "memdir {args:?} printed nothing");
    }
}
