//! Unit tests of the shape-keeping update: each case is an original file,
//! the header to write, and the exact text expected; every result is also
//! read back.

use super::*;
use crate::frontmatter::ParsedMemory;
use crate::types::MemoryType;

const NESTED: &str = "---\n\
name: no-db-mocking\n\
description: \"Integration tests: hit a real database\"\n\
metadata:\n\
\x20 node_type: memory\n\
\x20 type: feedback\n\
\x20 originSessionId: 4b1e6a0c-93d2-4c0e-a7f1-2f5d0c9e8b11\n\
\x20 modified: 2026-03-05T09:30:00.000Z\n\
---\n\
Use a real database.\n";

fn ts(text: &str) -> jiff::Timestamp {
    text.parse().unwrap()
}

/// Updates `original`, compares with `expected`, and reads the result back:
/// the header, modified time, body and shape are the ones asked for.
fn check(
    original: &str,
    header: &Header,
    modified: Option<jiff::Timestamp>,
    body: &str,
    expected: &str,
) -> ParsedMemory {
    let before = parse_memory_str(original);
    // A broken line of a key memdir does not know stays as it is.
    let text = update_memory(original, header, modified, body);
    assert_eq!(text, expected, "update of {original:?}");
    let back = parse_memory_str(&text);
    assert_eq!(&back.header, header, "read back from {text:?}");
    assert_eq!(back.body, body);
    assert_eq!(back.modified, modified.or(before.modified));
    assert_eq!(back.shape, before.shape, "shape of {text:?}");
    back
}

fn header(name: &str, description: &str, t: Option<MemoryType>) -> Header {
    Header {
        name: Some(name.into()),
        description: Some(description.into()),
        memory_type: t,
    }
}

#[test]
fn nested_stays_nested_with_its_unknown_keys_in_order() {
    let back = check(
        NESTED,
        &header(
            "no-db-mocking",
            "Tests hit a real database",
            Some(MemoryType::Project),
        ),
        Some(ts("2026-04-01T12:00:00Z")),
        "Use the staging database.\n",
        "---\n\
         name: no-db-mocking\n\
         description: Tests hit a real database\n\
         metadata:\n\
         \x20 node_type: memory\n\
         \x20 type: project\n\
         \x20 originSessionId: 4b1e6a0c-93d2-4c0e-a7f1-2f5d0c9e8b11\n\
         \x20 modified: 2026-04-01T12:00:00Z\n\
         ---\n\
         Use the staging database.\n",
    );
    assert_eq!(
        back.unknown_keys,
        ["metadata.node_type", "metadata.originSessionId"]
    );
}

#[test]
fn modified_none_leaves_the_recorded_time_alone() {
    let h = parse_memory_str(NESTED).header;
    let text = update_memory(NESTED, &h, None, "Use a real database.\n");
    assert_eq!(text, NESTED);
}

#[test]
fn flat_stays_flat_and_keeps_unknown_keys_and_comments() {
    check(
        "---\n# written by hand\nname: pnpm\ntags: [build, js]\ndescription: old\ntype: feedback\nrelated:\n  - npm.md\n---\nold body\n",
        &header("pnpm", "Note: use pnpm", None),
        None,
        "new body\n",
        "---\n# written by hand\nname: pnpm\ntags: [build, js]\ndescription: \"Note: use pnpm\"\nrelated:\n  - npm.md\n---\nnew body\n",
    );
}

#[test]
fn missing_keys_are_added_where_the_shape_puts_them() {
    // Nested: name and description at the top, type and modified inside.
    check(
        "---\nmetadata:\n  node_type: memory\n---\n",
        &header("a", "b", Some(MemoryType::User)),
        Some(ts("2026-01-02T03:04:05Z")),
        "",
        "---\nname: a\ndescription: b\nmetadata:\n  node_type: memory\n  type: user\n  modified: 2026-01-02T03:04:05Z\n---\n",
    );
    // Flat: after the last known key, in R2.1 order.
    check(
        "---\nname: a\nextra: 1\n---\n",
        &header("a", "b", Some(MemoryType::Reference)),
        None,
        "x",
        "---\nname: a\ndescription: b\ntype: reference\nextra: 1\n---\nx",
    );
    // No frontmatter at all: the R2.1 shape of a new memory.
    check(
        "just text\n",
        &header("a", "b", Some(MemoryType::User)),
        None,
        "just text\n",
        "---\nname: a\ndescription: b\ntype: user\n---\njust text\n",
    );
}

#[test]
fn a_key_in_both_places_is_set_in_both() {
    check(
        "---\ntype: project\nmetadata:\n  type: feedback\n---\n",
        &Header {
            memory_type: Some(MemoryType::User),
            ..Header::default()
        },
        None,
        "",
        "---\ntype: user\nmetadata:\n  type: user\n---\n",
    );
    // Removing a key removes every occurrence, with its continuation lines.
    check(
        "---\ndescription: >\n  folded\n\n  text\nmetadata:\n    description: inner\n    node_type: memory\n---\n",
        &Header::default(),
        None,
        "",
        "---\nmetadata:\n    node_type: memory\n---\n",
    );
}

#[test]
fn bom_and_crlf_are_kept() {
    check(
        "\u{feff}---\r\nname: a\r\nmetadata:\r\n  type: user\r\n---\r\nbody\r\n",
        &header("b", "c", Some(MemoryType::User)),
        None,
        "body\r\n",
        "\u{feff}---\r\nname: b\r\ndescription: c\r\nmetadata:\r\n  type: user\r\n---\r\nbody\r\n",
    );
}

#[test]
fn broken_yaml_keeps_its_other_lines() {
    // The reference agent's shape with a model-written `name` YAML rejects:
    // the update writes it cleanly, and the block parses again.
    check(
        "---\nname: \"통과\" 한마디 = 합격\nmetadata:\n  node_type: memory\n  type: feedback\n---\n",
        &header("통과", "A \"quoted\" word\\", Some(MemoryType::Feedback)),
        None,
        "",
        "---\nname: 통과\ndescription: \"A \\\"quoted\\\" word\\\\\"\nmetadata:\n  node_type: memory\n  type: feedback\n---\n",
    );
    let text = update_memory(
        "---\nname: a\nnote: x: y\n---\n",
        &header("a", "multi\nline", None),
        None,
        "",
    );
    assert_eq!(
        text,
        "---\nname: a\ndescription: \"multi\\nline\"\nnote: x: y\n---\n"
    );
    let back = parse_memory_str(&text);
    assert_eq!(back.header.description.as_deref(), Some("multi\nline"));
    assert!(matches!(
        back.diagnostics.as_slice(),
        [crate::Diagnostic::MalformedYaml { .. }]
    ));
}

#[test]
fn an_unclosed_block_is_closed() {
    check(
        "---\nname: a\ntype: user\n\nThe body.\n",
        &header("a", "b", Some(MemoryType::User)),
        None,
        "The body.\n",
        "---\nname: a\ndescription: b\ntype: user\n---\nThe body.\n",
    );
}

#[test]
fn a_block_too_odd_to_edit_is_rendered_afresh_in_its_shape() {
    // A one-line nested mapping cannot lose its `type` by a line edit.
    check(
        "---\nname: a\nmetadata: {node_type: memory, type: feedback}\n---\n",
        &Header {
            name: Some("a".into()),
            ..Header::default()
        },
        Some(ts("2026-05-06T07:08:09Z")),
        "",
        "---\nname: a\nmetadata:\n  modified: 2026-05-06T07:08:09Z\n---\n",
    );
    // But it can take a top-level type, which wins when read.
    check(
        "---\nname: a\nmetadata: {node_type: memory, type: feedback}\n---\n",
        &Header {
            name: Some("a".into()),
            memory_type: Some(MemoryType::Project),
            ..Header::default()
        },
        None,
        "",
        "---\nname: a\ntype: project\nmetadata: {node_type: memory, type: feedback}\n---\n",
    );
    // Nothing left to nest: an empty mapping keeps the shape.
    check(
        "---\nmetadata: {type: user}\n---\n",
        &Header::default(),
        None,
        "",
        "---\nmetadata: {}\n---\n",
    );
}
