//! What holds for any input: no panic, and every non-blank line accounted
//! for — in a message, a compaction, a summary, or skipped whole.

use std::collections::BTreeSet;

use memdir_transcript::{Transcript, parse, parse_jsonl};
use proptest::prelude::*;

/// The lines a transcript accounts for, and those it skipped in part.
fn accounted(t: &Transcript) -> BTreeSet<usize> {
    let mut lines: BTreeSet<usize> = t.messages.iter().flat_map(|m| m.lines.clone()).collect();
    lines.extend(t.compactions.iter().map(|c| c.line));
    lines.extend(t.summaries.iter().map(|s| s.line));
    lines.extend(
        t.skipped
            .iter()
            .filter(|s| s.reason.is_whole_line())
            .map(|s| s.line),
    );
    lines
}

fn non_blank_lines(bytes: &[u8]) -> BTreeSet<usize> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .map(|(i, _)| i + 1)
        .collect()
}

fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let t = parse_jsonl(bytes);
    let expected = non_blank_lines(bytes);
    let got = accounted(&t);
    prop_assert_eq!(&got, &expected, "{:?}", t);
    // A line is never both kept and skipped whole.
    let kept: BTreeSet<usize> = t.messages.iter().flat_map(|m| m.lines.clone()).collect();
    for s in t.skipped.iter().filter(|s| s.reason.is_whole_line()) {
        prop_assert!(!kept.contains(&s.line), "{:?}", s);
    }
    // A line kept with something left out is a kept line.
    let mut kept_any = kept.clone();
    kept_any.extend(t.compactions.iter().map(|c| c.line));
    kept_any.extend(t.summaries.iter().map(|s| s.line));
    for s in t.skipped.iter().filter(|s| !s.reason.is_whole_line()) {
        prop_assert!(kept_any.contains(&s.line), "{:?}", s);
    }
    // Every message's usage is counted once: the total is their sum.
    let sum = t
        .messages
        .iter()
        .filter_map(|m| m.usage)
        .fold((0, 0), |(i, o), u| {
            (i + u.input_tokens, o + u.output_tokens)
        });
    prop_assert_eq!(sum, (t.usage.input_tokens, t.usage.output_tokens));
    // The other entry point never panics on the same bytes.
    let _ = parse(bytes);
    Ok(())
}

/// Lines in the shapes the reader knows, slightly wrong in random ways, so
/// that the search reaches past the JSON parser.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let kind = prop_oneof![
        Just("user"),
        Just("assistant"),
        Just("system"),
        Just("summary"),
        Just("progress"),
        Just("weird"),
    ];
    let content = prop_oneof![
        Just(r#""hello""#.to_owned()),
        Just(r#"[{"type":"text","text":"hi"}]"#.to_owned()),
        Just(r#"[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]"#.to_owned()),
        Just(r#"[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}]"#.to_owned()),
        Just(r#"[{"type":"tool_use"},7,{"type":"thinking"}]"#.to_owned()),
        Just("42".to_owned()),
        Just("null".to_owned()),
    ];
    let uuid = prop_oneof![
        Just("null".to_owned()),
        Just("5".to_owned()),
        (0u8..6).prop_map(|n| format!("\"u{n}\"")),
    ];
    let id = prop_oneof![
        Just("null".to_owned()),
        (0u8..3).prop_map(|n| format!("\"m{n}\""))
    ];
    let usage = prop_oneof![
        Just("null".to_owned()),
        Just(r#""lots""#.to_owned()),
        (0u64..1000, 0u64..1000)
            .prop_map(|(i, o)| format!(r#"{{"input_tokens":{i},"output_tokens":{o}}}"#)),
    ];
    let structured = (kind, content, uuid, id, usage, any::<bool>(), any::<bool>()).prop_map(
        |(kind, content, uuid, id, usage, side, compact)| {
            let subtype = if compact { "compact_boundary" } else { "other" };
            format!(
                r#"{{"type":"{kind}","subtype":"{subtype}","uuid":{uuid},"isSidechain":{side},"summary":"s","message":{{"id":{id},"role":"x","content":{content},"usage":{usage}}}}}"#
            )
            .into_bytes()
        },
    );
    let cut = (structured.clone(), any::<prop::sample::Index>()).prop_map(|(l, at)| {
        let at = at.index(l.len());
        l[..at].to_vec()
    });
    prop_oneof![
        4 => structured,
        1 => cut,
        1 => prop::collection::vec(any::<u8>(), 0..40),
        1 => Just(b"  \r".to_vec()),
    ]
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_and_every_line_is_accounted_for(
        bytes in prop::collection::vec(any::<u8>(), 0..400)
    ) {
        check(&bytes)?;
    }

    #[test]
    fn near_valid_lines_are_each_accounted_for(
        lines in prop::collection::vec(line(), 0..12)
    ) {
        check(&lines.join(&b'\n'))?;
    }
}
