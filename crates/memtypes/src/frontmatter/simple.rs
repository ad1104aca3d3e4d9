//! A fast path for the common frontmatter block: flat `key: value` lines
//! whose values are plain text. It answers only when YAML would read the
//! block the same way, and declines (returns `None`) at anything subtle,
//! which then goes to the full YAML parser. A proptest holds the two to
//! the same answers.

use std::collections::HashMap;

use gray_matter::Pod;

/// Reads a block of `key: value` lines into the map YAML would produce, or
/// `None` when the block needs the full parser.
pub(super) fn simple_block(yaml: &str) -> Option<HashMap<String, Pod>> {
    let mut map = HashMap::new();
    for line in yaml.lines() {
        if line.is_empty() {
            continue;
        }
        let (key, rest) = line.split_once(':')?;
        if !is_simple_key(key) {
            return None;
        }
        let value = match rest {
            "" | " " => Pod::Null,
            _ => Pod::String(simple_value(rest.strip_prefix(' ')?)?.to_owned()),
        };
        if map.insert(key.to_owned(), value).is_some() {
            return None; // a duplicate key is an error for YAML
        }
    }
    Some(map)
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
            "[a-z]{1,5}[:#@!&*|>%`?\\\\\\[\\]{} ]{1,3}[a-z]{0,5}",
            "\\PC{0,12}",
            "[0-9.+-][0-9a-z.]{0,6}",
            Just(String::new()),
        ];
        (key, value).prop_map(|(k, v)| format!("{k}: {v}"))
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_yaml(lines in proptest::collection::vec(line(), 1..6)) {
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
    fn declines_anything_subtle() {
        for yaml in [
            "description: Note: use pnpm",
            "description: a # comment",
            "name: 'quoted'",
            "name: \"quoted\"",
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
