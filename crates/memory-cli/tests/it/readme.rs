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
        .map(split_words)
        .collect()
}

/// Splits a shell command line into words, honouring single and double
/// quotes (all the README's commands need).
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[test]
fn quick_start_commands_succeed() {
    let commands = quick_start_commands();
    assert!(commands.len() >= 2, "the quick start has its commands");
    assert!(commands.iter().any(|c| c.contains(&"prompt".to_owned())));
    assert!(commands.iter().any(|c| c.contains(&"recall".to_owned())));
    for args in commands {
        let out = memdir(&args);
        assert!(
            out.status.success(),
            "memdir {args:?} failed: {}",
            stderr(&out)
        );
        assert!(!stdout(&out).is_empty(), "memdir {args:?} printed nothing");
        if args.contains(&"recall".to_owned()) {
            assert!(stdout(&out).contains("merge-freeze.md"), "{}", stdout(&out));
        }
    }
}
