//! Extracting citations from memory bodies, odd and hostile ones included.

use std::fmt::Write as _;

use memdir_citations::{Citation, CitationKind, MAX_CITATIONS, extract_citations};
use proptest::prelude::*;

fn found(body: &str) -> Vec<(CitationKind, String)> {
    extract_citations(body)
        .into_iter()
        .map(|c| (c.kind, c.text))
        .collect()
}

fn texts(body: &str) -> Vec<String> {
    found(body).into_iter().map(|(_, t)| t).collect()
}

#[test]
fn backticked_paths_identifiers_and_flags() {
    let body = "Retry logic: `src/billing/retry.rs`, `RetryPolicy`, `parse_retry_after()`,\n\
                `MAX_RETRIES`, `Client::send_with_retry`, `sha256`, `--legacy-auth`, `-x`,\n\
                `--level=debug`, `Makefile`, `docs/deploy.md`, `Cargo.toml`.";
    assert_eq!(
        found(body),
        [
            (CitationKind::Path, "src/billing/retry.rs".to_owned()),
            (CitationKind::Identifier, "RetryPolicy".to_owned()),
            (CitationKind::Identifier, "parse_retry_after".to_owned()),
            (CitationKind::Identifier, "MAX_RETRIES".to_owned()),
            (
                CitationKind::Identifier,
                "Client::send_with_retry".to_owned()
            ),
            (CitationKind::Identifier, "sha256".to_owned()),
            (CitationKind::Flag, "--legacy-auth".to_owned()),
            (CitationKind::Flag, "-x".to_owned()),
            (CitationKind::Flag, "--level=debug".to_owned()),
            (CitationKind::Path, "docs/deploy.md".to_owned()),
        ]
    );
    // A bare file name says nothing of where the file is, and is as often
    // a file to avoid: `Makefile` and `Cargo.toml` above are not citations.
}

#[test]
fn plain_words_and_commands_in_backticks_are_not_citations() {
    let body = "Use `pnpm`, not `npm`; `true`, `JSON`, `README`, `Vec<String>`, \
                `cargo test --workspace`, `-1`, `--`, `-`, `a..b`, `::`, `_`.";
    assert_eq!(texts(body), Vec::<String>::new());
}

#[test]
fn prose_paths_need_a_slash_and_an_extension() {
    let body =
        "Edit src/billing/retry.rs and .github/workflows/ci.yml, and/or TCP/IP, Node.js, e.g. 1/2.";
    assert_eq!(
        texts(body),
        ["src/billing/retry.rs", ".github/workflows/ci.yml"]
    );
}

#[test]
fn urls_home_paths_globs_and_parent_segments_are_not_paths() {
    let body = "See https://example.com/docs/page.html and www.example.com/a.html,\n\
                `~/notes/todo.md`, ~/x/y.rs, $HOME/a/b.rs, `src/*.rs`, src/**/mod.rs,\n\
                `../other/lib.rs`, ./local/file.rs, `http://localhost:8080/a.js`, C:\\dir\\f.rs";
    assert_eq!(texts(body), Vec::<String>::new());
}

#[test]
fn fenced_blocks_are_skipped_and_lines_are_counted() {
    let body = "first `alpha_one`\n```rust\nlet x = `not_this`; src/gone/file.rs\n``` not a close\nstill `in_fence`\n````\n~~~\n`tilde_fenced`\n~~~\nlast `beta_two`\n";
    let all = extract_citations(body);
    let lines: Vec<(&str, usize)> = all.iter().map(|c| (c.text.as_str(), c.line)).collect();
    assert_eq!(lines, [("alpha_one", 1), ("beta_two", 10)]);
}

#[test]
fn duplicates_keep_the_first_line() {
    let body = "`foo_bar`\n`foo_bar` src/a/b.rs\n`src/a/b.rs`";
    let all = extract_citations(body);
    assert_eq!(
        all,
        [
            Citation {
                kind: CitationKind::Identifier,
                text: "foo_bar".into(),
                line: 1
            },
            Citation {
                kind: CitationKind::Path,
                text: "src/a/b.rs".into(),
                line: 2
            },
        ]
    );
}

#[test]
fn cjk_prose_around_paths_and_code() {
    let body = "重试逻辑在src/billing/retry.rs里，使用`RetryPolicy`和`--legacy-auth`。参见`文档`。";
    assert_eq!(
        texts(body),
        ["src/billing/retry.rs", "RetryPolicy", "--legacy-auth"]
    );
}

#[test]
fn names_starting_with_a_dash_are_flags_only_in_backticks() {
    let body = "Pass --legacy-auth or -v in prose; `-rf` and `--dry-run` in code; `-file.rs`.";
    assert_eq!(texts(body), ["-rf", "--dry-run"]);
}

#[test]
fn unclosed_and_double_backticks() {
    let body = "an `unclosed span_here and ``double_tick`` here\n``with ` inside`` ``a_b`c``";
    assert_eq!(texts(body), ["double_tick"]);
}

#[test]
fn huge_body_is_bounded_in_citations() {
    let mut body = String::new();
    for i in 0..10_000 {
        let _ = writeln!(body, "`name_{i}` src/dir{i}/file.rs");
    }
    let all = extract_citations(&body);
    assert_eq!(all.len(), MAX_CITATIONS);
    assert_eq!(all[0].text, "name_0");
}

#[test]
fn needles_are_the_literal_searched() {
    let all =
        extract_citations("`Client::send_with_retry` `RetryPolicy::new` `--level=debug` `a::b`");
    let needles: Vec<&str> = all.iter().map(Citation::needle).collect();
    assert_eq!(
        needles,
        ["send_with_retry", "RetryPolicy", "--level", "a::b"]
    );
}

proptest! {
    #[test]
    fn any_text_extracts_without_panicking(body in "\\PC{0,400}") {
        let all = extract_citations(&body);
        prop_assert!(all.len() <= MAX_CITATIONS);
        for c in &all {
            prop_assert!(!c.text.is_empty());
            prop_assert!(!c.text.contains("://"));
            prop_assert!(c.line >= 1);
        }
    }

    #[test]
    fn backtick_soup_extracts_without_panicking(body in "[`a-z_/.:\\- \n~]{0,200}") {
        let _ = extract_citations(&body);
    }
}
