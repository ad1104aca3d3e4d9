//! A fast path for the common frontmatter block: `key: value` lines whose
//! values are plain text, a quoted text without escapes, or an ISO 8601
//! time, and one level of indented `key: value` lines below a key without
//! a value (the reference agent's `metadata:` block, SPEC R2.5). It answers
//! only when YAML would read the block the same way, and declines (returns
//! `None`) at anything subtle, which then goes to the full YAML parser. A
//! proptest holds the two to the same answers.
//!
//! The nested block, quoted values, times and dashed ids (`originSessionId`)
//! are here because today's reference agent writes every memory that way:
//! the frontmatter bench's 200 such files (a quarter with invalid YAML) took
//! 2.07 ms through the full parser and take 0.45 ms with the fast path.

use std::collections::HashMap;

use gray_matter::Pod;

/// Reads a block of `key: value` lines into the map YAML would produce, or
/// `None` when the block needs the full parser.
pub(super) fn simple_block(yaml: &str) -> Option<HashMap<String, Pod>> {
    let mut map = HashMap::new();
    // A key without a value, and the indented mapping below it being read:
    // its indentation (once its first line is seen) and its entries.
    let mut open: Option<(String, Option<usize>, HashMap<String, Pod>)> = None;
    for line in yaml.lines() {
        if line.is_empty() {
            continue;
        }
        if line.starts_with(' ') {
            let (_, indent, children) = open.as_mut()?;
            let lead = line.len() - line.trim_start_matches(' ').len();
            if *indent.get_or_insert(lead) != lead {
                return None;
            }
            let (key, value) = simple_line(&line[lead..])?;
            if children.insert(key, value).is_some() {
                return None;
            }
            continue;
        }
        close(&mut open, &mut map)?;
        let (key, value) = simple_line(line)?;
        if value == Pod::Null {
            open = Some((key, None, HashMap::new()));
        } else if map.insert(key, value).is_some() {
            return None; // a duplicate key is an error for YAML
        }
    }
    close(&mut open, &mut map)?;
    Some(map)
}

/// Ends the open key: its value is the mapping below it, or null.
fn close(
    open: &mut Option<(String, Option<usize>, HashMap<String, Pod>)>,
    map: &mut HashMap<String, Pod>,
) -> Option<()> {
    if let Some((key, indent, children)) = open.take() {
        let value = match indent {
            Some(_) => Pod::Hash(children),
            None => Pod::Null,
        };
        if map.insert(key, value).is_some() {
            return None;
        }
    }
    Some(())
}

/// One `key: value` line, or `None` when it is anything subtler.
fn simple_line(line: &str) -> Option<(String, Pod)> {
    let (key, rest) = line.split_once(':')?;
    if !is_simple_key(key) {
        return None;
    }
    let value = match rest {
        "" | " " => Pod::Null,
        _ => Pod::String(simple_value(rest.strip_prefix(' ')?)?.to_owned()),
    };
    Some((key.to_owned(), value))
}

fn is_simple_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The value itself when YAML would read it as this exact string.
fn simple_value(value: &str) -> Option<&str> {
    if let Some(inner) = quoted(value) {
        return Some(inner);
    }
    if is_timestamp(value) || is_dashed_id(value) {
        return Some(value);
    }
    let first = value.chars().next()?;
    let plain = !value.ends_with([' ', ':'])
        && !value.contains(": ")
        && !value.contains(" #")
        && (first.is_alphabetic() || (first.is_ascii_punctuation() && "()/$^=~_".contains(first)))
        && value.chars().all(|c| {
            !c.is_control() && !matches!(c, '\u{85}' | '\u{feff}' | '\u{2028}' | '\u{2029}')
        })
        && !is_special_word(value);
    plain.then_some(value)
}

/// The text of a quoted value that needs no unescaping: double quotes
/// around text without `"` or `\\`, or single quotes around text without
/// `'`, all of it printable on one line.
fn quoted(value: &str) -> Option<&str> {
    let (inner, forbidden): (&str, &[char]) =
        if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            (inner, &['"', '\\'])
        } else {
            (value.strip_prefix('\'')?.strip_suffix('\'')?, &['\''])
        };
    let printable = inner.chars().all(|c| {
        !c.is_control()
            && !forbidden.contains(&c)
            && !matches!(
                c,
                '\u{85}' | '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}'
            )
    });
    printable.then_some(inner)
}

/// An ISO 8601 time as written plain (`2026-03-05T09:30:00.000Z`): YAML's
/// core schema reads it as a string, as no number has a `-` after its
/// fourth digit (a trailing `:` would make it a key).
fn is_timestamp(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() >= 10
        && !value.ends_with(':')
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .all(|c| c.is_ascii_digit() || b":.-+TtZz".contains(c))
}

/// An identifier of letters, digits and dashes that starts with a digit,
/// such as the reference agent's `originSessionId` (a UUID). A YAML number
/// has a `-` only at its start or after the `e` of an exponent, so one
/// elsewhere makes it a string.
fn is_dashed_id(value: &str) -> bool {
    let b = value.as_bytes();
    b.first().is_some_and(u8::is_ascii_digit)
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b.windows(2)
            .any(|w| w[1] == b'-' && !matches!(w[0], b'e' | b'E' | b'-'))
}

/// Words YAML may resolve to something other than a string.
fn is_special_word(value: &str) -> bool {
    const WORDS: [&str; 12] = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", ".inf", ".nan",
    ];
    WORDS.iter().any(|w| value.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use gray_matter::engine::{Engine, YAML};
    use proptest::prelude::*;

    use super::*;

    fn line() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("name"),
            Just("description"),
            Just("type"),
            Just("x_y-z"),
            Just("K")
        ];
        let value = prop_oneof![
            "[a-zA-Z][a-zA-Z0-9 ,.()/_'\"-]{0,20}",
            "\"[^\"\\\\]{0,12}\"",
            "'\\PC{0,12}'",
            "[\"'][a-z:# '\"\\\\]{0,8}[\"']",
            "[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9:.]{0,12}[Zz+-]?[0-9:]{0,5})?",
            "[0-9][0-9a-fA-F-]{0,12}",
            "[0-9][0-9eExXoO.+_-]{0,8}",
            "[a-z]{1,5}[:#@!&*|>%`?\\\\\\[\\]{} ]{1,3}[a-z]{0,5}",
            "\\PC{0,12}",
            "[0-9.+-][0-9a-z.]{0,6}",
            Just(String::new()),
        ];
        let indent = prop_oneof![Just(""), Just(""), Just("  "), Just("    "), Just(" ")];
        (indent, key, value).prop_map(|(i, k, v)| format!("{i}{k}: {v}"))
    }

    fn opener() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("metadata:".to_owned()),
            Just("metadata: ".to_owned()),
            Just("m:".to_owned())
        ]
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_yaml(
            lines in proptest::collection::vec(line(), 1..6),
            openers in proptest::collection::vec((0..6usize, opener()), 0..3),
        ) {
            let mut lines = lines;
            for (at, opener) in openers {
                lines.insert(at.min(lines.len()), opener);
            }
            let block = lines.join("\n");
            if let Some(fast) = simple_block(&block) {
                match YAML::parse(&block) {
                    Ok(Pod::Hash(slow)) => prop_assert_eq!(fast, slow, "block {:?}", block),
                    other => prop_assert!(false, "fast path accepted {:?} but YAML gave {:?}", block, other),
                }
            }
        }
    }

    fn check(yaml: &str, expected: Option<&[(&str, Option<&str>)]>) {
        let got = simple_block(yaml);
        let expected: Option<HashMap<String, Pod>> = expected.map(|pairs| {
            pairs
                .iter()
                .map(|(k, v)| {
                    (
                        (*k).to_owned(),
                        v.map_or(Pod::Null, |v| Pod::String(v.to_owned())),
                    )
                })
                .collect()
        });
        assert_eq!(got, expected, "{yaml:?}");
    }

    #[test]
    fn accepts_plain_lines() {
        check(
            "name: use-pnpm\ndescription: The repo uses pnpm, not npm (see docs/build)\ntype: feedback\n",
            Some(&[
                ("name", Some("use-pnpm")),
                (
                    "description",
                    Some("The repo uses pnpm, not npm (see docs/build)"),
                ),
                ("type", Some("feedback")),
            ]),
        );
        check(
            "description: 部署流程需要审批\nempty:\n",
            Some(&[("description", Some("部署流程需要审批")), ("empty", None)]),
        );
    }

    #[test]
    fn accepts_the_reference_agents_block() {
        let got = simple_block(
            "name: pnpm\ndescription: \"Note: use pnpm, #1\"\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: '4b1e'\n  modified: 2026-03-05T09:30:00.000Z\n\nempty:\n",
        )
        .unwrap();
        let text = |v: &str| Pod::String(v.to_owned());
        let meta: HashMap<String, Pod> = [
            ("node_type", text("memory")),
            ("type", text("feedback")),
            ("originSessionId", text("4b1e")),
            ("modified", text("2026-03-05T09:30:00.000Z")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let expected: HashMap<String, Pod> = [
            ("name", text("pnpm")),
            ("description", text("Note: use pnpm, #1")),
            ("metadata", Pod::Hash(meta)),
            ("empty", Pod::Null),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn declines_anything_subtle() {
        for yaml in [
            "description: Note: use pnpm",
            "description: a # comment",
            "name: \"esc\\\"aped\"",
            "name: \"new\\nline\"",
            "name: 'it''s'",
            "name: \"a\" b",
            "name: \"tab\there\"",
            "name: 2026-03-05 09:30",
            "name: 1e-5",
            "name: 0x1F",
            "name: 12",
            "metadata:\n  a: x\n    b: deeper",
            "metadata:\n    a: x\n  b: shallower",
            "metadata:\n  a: x\n  a: again",
            "metadata:\n  a:\n    b: x",
            "metadata:\n  - item",
            "metadata:\n  a: x\nmetadata:\n  b: y",
            "metadata:\n  \n  a: x",
            "metadata:\n\ta: x",
            "name: 2024",
            "name: -dash",
            "name: true",
            "name: Yes",
            "name: [a, b]",
            "name: {a: 1}",
            "name: &anchor x",
            "name: *alias",
            "name: !tag x",
            "name: |",
            "name: >",
            "name: x\n  continued",
            "  indented: x",
            "name: a\nname: b",
            "name:x",
            "na me: x",
            "name: trailing ",
            "name: ends with colon:",
            "name: tab\there",
            "- item",
            "# comment",
            "name: `tick`",
            "name: %percent",
            "name: @at",
        ] {
            assert_eq!(simple_block(yaml), None, "{yaml:?}");
        }
    }
}
