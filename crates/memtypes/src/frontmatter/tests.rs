//! Unit tests of the tolerant frontmatter reader and the renderer.

use super::*;

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
