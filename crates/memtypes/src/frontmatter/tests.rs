//! Unit tests of the tolerant frontmatter reader and the renderer.

use super::*;
use crate::types::MemoryType;

/// Parses `input` and compares the header fields, body and diagnostics.
fn check(
    input: &[u8],
    name: Option<&str>,
    description: Option<&str>,
    t: Option<MemoryType>,
    body: &str,
    diags: &[&str],
) {
    let parsed = parse_memory(input);
    assert_eq!(parsed.header.name.as_deref(), name, "name of {input:?}");
    assert_eq!(
        parsed.header.description.as_deref(),
        description,
        "description of {input:?}"
    );
    assert_eq!(parsed.header.memory_type, t, "type of {input:?}");
    assert_eq!(parsed.body, body, "body of {input:?}");
    let got: Vec<String> = parsed.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(got, diags, "diagnostics of {input:?}");
}

#[test]
fn clean_file() {
    check(
        b"---\nname: a\ndescription: b c\ntype: project\n---\nbody\n",
        Some("a"),
        Some("b c"),
        Some(MemoryType::Project),
        "body\n",
        &[],
    );
}

#[test]
fn no_frontmatter() {
    let parsed = parse_memory(b"# Just notes\n---\nname: x\n");
    assert!(!parsed.has_frontmatter);
    assert_eq!(parsed.header, Header::default());
    assert_eq!(parsed.body, "# Just notes\n---\nname: x\n");
    assert!(parsed.diagnostics.is_empty());
    check(b"", None, None, None, "", &[]);
}

#[test]
fn bom_and_crlf() {
    check(
        b"\xef\xbb\xbf---\r\nname: a\r\ndescription: b\r\ntype: user\r\n---\r\nline 1\r\nline 2\r\n",
        Some("a"),
        Some("b"),
        Some(MemoryType::User),
        "line 1\r\nline 2\r\n",
        &[],
    );
}

#[test]
fn unclosed_block_is_recovered() {
    check(
        b"---\nname: a\ndescription: b\n\nThe body.\n",
        Some("a"),
        Some("b"),
        None,
        "The body.\n",
        &["frontmatter opened with `---` is never closed"],
    );
    // A prose line ends the block too.
    check(
        b"---\nname: a\nThe body.\n",
        Some("a"),
        None,
        None,
        "The body.\n",
        &["frontmatter opened with `---` is never closed"],
    );
    // A head cut after its first lines: everything is the block.
    check(
        b"---\ntype: reference\n",
        None,
        None,
        Some(MemoryType::Reference),
        "",
        &["frontmatter opened with `---` is never closed"],
    );
}

#[test]
fn malformed_yaml_recovers_known_keys() {
    let parsed = parse_memory(
        b"---\nname: pnpm\ndescription: Note: use pnpm\ntype: 'feedback'\nextra: [1\n---\nB",
    );
    assert_eq!(parsed.header.name.as_deref(), Some("pnpm"));
    assert_eq!(parsed.header.description.as_deref(), Some("Note: use pnpm"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::Feedback));
    assert_eq!(parsed.body, "B");
    assert_eq!(parsed.unknown_keys, ["extra"]);
    assert!(matches!(
        parsed.diagnostics.as_slice(),
        [Diagnostic::MalformedYaml { .. }]
    ));
}

#[test]
fn non_string_values() {
    check(
        b"---\nname: 2024\ndescription: true\ntype: 3\n---\n",
        Some("2024"),
        Some("true"),
        None,
        "",
        &[
            "`name` holds a number, not a string",
            "`description` holds a boolean, not a string",
            "`type` holds a number, not a string",
        ],
    );
    check(
        b"---\nname: [a, b]\ndescription: {x: 1}\n---\n",
        None,
        None,
        None,
        "",
        &[
            "`name` holds a list, not a string",
            "`description` holds a mapping, not a string",
        ],
    );
}

#[test]
fn unknown_type_and_keys() {
    let parsed = parse_memory(b"---\ntype: Feedback\nzeta: 1\nalpha: x\n---\n");
    assert_eq!(parsed.header.memory_type, None);
    assert_eq!(parsed.unknown_keys, ["alpha", "zeta"]);
    assert_eq!(
        parsed.diagnostics,
        [Diagnostic::UnknownType {
            value: "Feedback".into()
        }]
    );
}

#[test]
fn not_a_mapping() {
    check(
        b"---\n- a\n- b\n---\nx",
        None,
        None,
        None,
        "x",
        &["frontmatter is not a mapping of keys to values"],
    );
}

#[test]
fn invalid_utf8_is_replaced_and_reported() {
    let parsed = parse_memory(b"---\nname: caf\xe9\ntype: user\n---\nbody \xff\n");
    assert_eq!(parsed.header.name.as_deref(), Some("caf\u{fffd}"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
    assert_eq!(parsed.body, "body \u{fffd}\n");
    assert_eq!(parsed.diagnostics, [Diagnostic::InvalidUtf8 { offset: 13 }]);
}

#[test]
fn empty_block_and_blank_lines_inside() {
    check(b"---\n---\nbody", None, None, None, "body", &[]);
    check(
        b"---\nname: a\n\ndescription: b\n---\n",
        Some("a"),
        Some("b"),
        None,
        "",
        &[],
    );
}

#[test]
fn deeply_nested_yaml_does_not_crash() {
    let mut input = b"---\nname: ".to_vec();
    input.extend(std::iter::repeat_n(b'[', 100_000));
    input.extend(b"\n---\n");
    let parsed = parse_memory(&input);
    assert!(matches!(
        parsed.diagnostics.as_slice(),
        [Diagnostic::MalformedYaml { .. }]
    ));
}

#[test]
fn render_quotes_only_when_needed() {
    let render = |v: &str| {
        let header = Header {
            name: Some(v.to_owned()),
            ..Header::default()
        };
        render_memory(&header, "")
    };
    assert_eq!(
        render("plain words, here"),
        "---\nname: plain words, here\n---\n"
    );
    assert_eq!(render("中文 描述"), "---\nname: 中文 描述\n---\n");
    assert_eq!(render("true"), "---\nname: \"true\"\n---\n");
    assert_eq!(render("42"), "---\nname: \"42\"\n---\n");
    assert_eq!(render(""), "---\nname: \"\"\n---\n");
    assert_eq!(render("a: b # c"), "---\nname: \"a: b # c\"\n---\n");
    assert_eq!(
        render("line\nbreak\t\"q\" \\"),
        "---\nname: \"line\\nbreak\\t\\\"q\\\" \\\\\"\n---\n"
    );
    assert_eq!(
        render("\u{1}\u{2028}"),
        "---\nname: \"\\u0001\\u2028\"\n---\n"
    );
}

#[test]
fn render_then_parse_round_trips_awkward_values() {
    for value in [
        "- x",
        "? y",
        "'q'",
        "\"",
        "  lead",
        "trail  ",
        "#c",
        "&a",
        "*b",
        "!t",
        "%p",
        "@x",
        "`x`",
        "|",
        ">",
        "null",
        "~",
        "0x1F",
        "1e3",
        ".5",
        "\u{feff}x",
        "\u{85}",
        "a\r\nb",
    ] {
        let header = Header {
            name: Some(value.to_owned()),
            description: Some(value.to_owned()),
            memory_type: Some(MemoryType::Reference),
        };
        let text = render_memory(&header, "---\nnot frontmatter\n");
        let back = parse_memory_str(&text);
        assert_eq!(back.header, header, "value {value:?} rendered as {text:?}");
        assert_eq!(back.body, "---\nnot frontmatter\n");
        assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
    }
}

/// The reference agent's nested shape (R2.5): `type` and `modified` under
/// `metadata:`, beside keys memdir does not use.
#[test]
fn nested_metadata_shape() {
    let parsed = parse_memory(
        b"---\nname: no-db-mocking\ndescription: \"Integration tests: real database\"\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 4b1e6a0c\n  modified: 2026-03-05T09:30:00.000Z\n---\nBody\n",
    );
    assert_eq!(parsed.shape, FrontmatterShape::Nested);
    assert_eq!(parsed.header.name.as_deref(), Some("no-db-mocking"));
    assert_eq!(
        parsed.header.description.as_deref(),
        Some("Integration tests: real database")
    );
    assert_eq!(parsed.header.memory_type, Some(MemoryType::Feedback));
    assert_eq!(
        parsed.modified.map(|t| t.to_string()).as_deref(),
        Some("2026-03-05T09:30:00Z")
    );
    assert_eq!(
        parsed.unknown_keys,
        ["metadata.node_type", "metadata.originSessionId"]
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    // Everything nested, even name and description.
    check(
        b"---\nmetadata:\n  name: n\n  description: d\n  type: user\n---\n",
        Some("n"),
        Some("d"),
        Some(MemoryType::User),
        "",
        &[],
    );
}

#[test]
fn a_top_level_key_wins_over_its_nested_twin() {
    let parsed = parse_memory(
        b"---\nname: top\ntype: project\nmetadata:\n  name: inner\n  type: feedback\n  description: inner d\n---\n",
    );
    assert_eq!(parsed.header.name.as_deref(), Some("top"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::Project));
    assert_eq!(parsed.header.description.as_deref(), Some("inner d"));
    // A top-level value that gives nothing leaves the nested one to count.
    check(
        b"---\ntype: Feedback\nmetadata:\n  type: feedback\n---\n",
        None,
        None,
        Some(MemoryType::Feedback),
        "",
        &[
            "unknown memory type \"Feedback\" (expected user, feedback, project or reference); treated as untyped",
        ],
    );
    check(
        b"---\nmetadata:\n  type: [a]\n  name: 7\n---\n",
        Some("7"),
        None,
        None,
        "",
        &[
            "`metadata.name` holds a number, not a string",
            "`metadata.type` holds a list, not a string",
        ],
    );
}

#[test]
fn modified_values() {
    let modified = |yaml: &str| {
        let parsed = parse_memory_str(&format!("---\n{yaml}\n---\n"));
        let diags: Vec<String> = parsed.diagnostics.iter().map(ToString::to_string).collect();
        (parsed.modified.map(|t| t.to_string()), diags)
    };
    let ok = |t: &str| (Some(t.to_owned()), Vec::<String>::new());
    assert_eq!(
        modified("metadata:\n  modified: 2026-03-05T09:30:00+01:00"),
        ok("2026-03-05T08:30:00Z")
    );
    assert_eq!(
        modified("metadata:\n  modified: '2026-03-05 09:30:00.5Z'"),
        ok("2026-03-05T09:30:00.5Z")
    );
    // Without an offset, as a person writes it: UTC.
    assert_eq!(
        modified("modified: 2026-03-05T09:30:00"),
        ok("2026-03-05T09:30:00Z")
    );
    assert_eq!(modified("modified: 2026-03-05"), ok("2026-03-05T00:00:00Z"));
    // A top-level time wins.
    assert_eq!(
        modified("modified: 2026-01-01\nmetadata:\n  modified: 2026-02-02"),
        ok("2026-01-01T00:00:00Z")
    );
    assert_eq!(
        modified("metadata:\n  modified: last Tuesday"),
        (
            None,
            vec!["`metadata.modified` holds \"last Tuesday\", not an ISO 8601 time; the file's mtime is used".to_owned()]
        )
    );
    assert_eq!(
        modified("metadata:\n  modified: 1741176000000"),
        (
            None,
            vec!["`metadata.modified` holds \"1741176000000\", not an ISO 8601 time; the file's mtime is used".to_owned()]
        )
    );
    assert_eq!(
        modified("modified: [2026]"),
        (
            None,
            vec!["`modified` holds a list, not a string".to_owned()]
        )
    );
    assert_eq!(modified("modified:"), (None, Vec::new()));
}

#[test]
fn a_metadata_key_that_is_no_mapping_leaves_the_file_flat() {
    let parsed = parse_memory(b"---\nmetadata: none\ntype: user\n---\n");
    assert_eq!(parsed.shape, FrontmatterShape::Flat);
    assert_eq!(parsed.unknown_keys, ["metadata"]);
    assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
}

/// Broken YAML in the nested shape: the keys under `metadata:` (and in a
/// one-line `metadata: {…}`) are recovered line by line too.
#[test]
fn broken_nested_yaml_is_recovered() {
    let parsed = parse_memory(
        "---\nname: \"통과\" 한마디 = 합격\ndescription: Note: 'quoted'\nmetadata:\n  node_type: memory\n  type: reference\n  modified: \"2026-03-05T09:30:00Z\"\n  # a comment\nafter: x\n  type: user\n---\n".as_bytes(),
    );
    assert_eq!(parsed.shape, FrontmatterShape::Nested);
    assert_eq!(
        parsed.header.name.as_deref(),
        Some("\"통과\" 한마디 = 합격")
    );
    assert_eq!(parsed.header.description.as_deref(), Some("Note: 'quoted'"));
    assert_eq!(parsed.header.memory_type, Some(MemoryType::Reference));
    assert_eq!(
        parsed.modified.map(|t| t.to_string()).as_deref(),
        Some("2026-03-05T09:30:00Z")
    );
    assert_eq!(parsed.unknown_keys, ["after", "metadata.node_type"]);
    assert!(matches!(
        parsed.diagnostics.as_slice(),
        [Diagnostic::MalformedYaml { .. }]
    ));

    let parsed =
        parse_memory(b"---\ndescription: a: b\nmetadata: {node_type: memory, type: user}\n---\n");
    assert_eq!(parsed.shape, FrontmatterShape::Nested);
    assert_eq!(parsed.header.memory_type, Some(MemoryType::User));
    assert_eq!(parsed.unknown_keys, ["metadata.node_type"]);
}

#[test]
fn recovery_reads_escapes_the_renderer_writes() {
    let parsed = parse_memory_str(
        "---\nname: \"a \\\"q\\\" \\\\ \\n \\u2028\"\ndescription: 'it''s'\nbroken: x: y\n---\n",
    );
    assert_eq!(
        parsed.header.name.as_deref(),
        Some("a \"q\" \\ \n \u{2028}")
    );
    assert_eq!(parsed.header.description.as_deref(), Some("it's"));
    // An escape memdir never writes leaves the text as it was.
    let parsed = parse_memory_str("---\nname: \"a\\x41\"\nbroken: x: y\n---\n");
    assert_eq!(parsed.header.name.as_deref(), Some("a\\x41"));
}

#[test]
fn memdir_keys_are_read_in_both_shapes_and_never_counted_unknown() {
    let text = "---\nname: n\nmetadata:\n  type: project\nverified: 2026-11-30T10:00:00Z\nsupersedes: [old.md, \"older.md\"]\nsupersededBy: newer.md\n---\nb\n";
    let m = parse_memory_str(text);
    assert_eq!(m.verified, Some("2026-11-30T10:00:00Z".parse().unwrap()));
    assert_eq!(m.supersedes, ["old.md", "older.md"]);
    assert_eq!(m.superseded_by.as_deref(), Some("newer.md"));
    assert!(m.unknown_keys.is_empty(), "{:?}", m.unknown_keys);
    // A block list, and a single name.
    let m = parse_memory_str("---\nsupersedes:\n  - a.md\n  - b.md\n---\n");
    assert_eq!(m.supersedes, ["a.md", "b.md"]);
    let m = parse_memory_str("---\nsupersedes: a.md\n---\n");
    assert_eq!(m.supersedes, ["a.md"]);
    // Recovered from a block that is not valid YAML.
    let m = parse_memory_str(
        "---\ndescription: a: b: c\nsupersedes: [x.md, y.md]\nverified: 2026-01-02\n---\n",
    );
    assert_eq!(m.supersedes, ["x.md", "y.md"]);
    assert_eq!(m.verified, Some("2026-01-02T00:00:00Z".parse().unwrap()));
}

#[test]
fn setting_a_memdir_key_edits_only_its_lines() {
    use crate::{MemdirValue, set_memdir_key};
    let text = "---\r\nname: n\r\n# a comment\r\nverified: 2020-01-01T00:00:00Z\r\nnode_type: memory\r\n---\r\nbody\r\n";
    let new = set_memdir_key(
        text,
        "verified",
        Some(&MemdirValue::Time("2026-12-01T12:00:00Z".parse().unwrap())),
    );
    assert_eq!(
        new,
        text.replace("2020-01-01T00:00:00Z", "2026-12-01T12:00:00Z")
    );
    let removed = set_memdir_key(&new, "verified", None);
    assert_eq!(
        removed,
        "---\r\nname: n\r\n# a comment\r\nnode_type: memory\r\n---\r\nbody\r\n"
    );
    // No frontmatter: a block of the key alone.
    let bare = set_memdir_key(
        "just text\n",
        "supersededBy",
        Some(&MemdirValue::Text("new.md".into())),
    );
    assert_eq!(bare, "---\nsupersededBy: new.md\n---\njust text\n");
    assert_eq!(parse_memory_str(&bare).body, "just text\n");
    // A list replaced by a shorter one; the body's own `---` is untouched.
    let listed = "---\nsupersedes:\n  - a.md\n  - b.md\nname: n\n---\nx\n---\nsupersedes: body\n";
    let new = set_memdir_key(
        listed,
        "supersedes",
        Some(&MemdirValue::Names(vec!["c.md".into()])),
    );
    assert_eq!(
        new,
        "---\nsupersedes:\n  - c.md\nname: n\n---\nx\n---\nsupersedes: body\n"
    );
    // Removing a key that is absent changes nothing.
    assert_eq!(
        set_memdir_key("---\nname: n\n---\n", "supersedes", None),
        "---\nname: n\n---\n"
    );
}
