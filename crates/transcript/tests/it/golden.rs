//! Every fixture under `tests/fixtures/`, read and rendered as text, compared
//! with its snapshot: the messages with their lines, roles, blocks and
//! flags, the usage, the compactions, the summaries and what was skipped.

use std::fmt::Write;

use memdir_transcript::{Block, Transcript, read_transcript};

use crate::fixtures;

/// A reviewable rendering of everything a transcript holds.
fn render(t: &Transcript) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "session: {:?}", t.session_id);
    for (i, m) in t.messages.iter().enumerate() {
        let mut flags = Vec::new();
        if m.is_sidechain {
            flags.push("sidechain");
        }
        if m.is_compact_summary {
            flags.push("compact-summary");
        }
        let _ = writeln!(
            out,
            "[{i}] lines {:?} {} uuids {:?} parent {:?} id {:?} at {:?}{}",
            m.lines,
            m.role.as_str(),
            m.uuids,
            m.parent_uuid,
            m.message_id,
            m.timestamp,
            if flags.is_empty() {
                String::new()
            } else {
                format!(" ({})", flags.join(", "))
            }
        );
        if let Some(u) = m.usage {
            let _ = writeln!(out, "    usage {u:?}");
        }
        for b in &m.blocks {
            let _ = match b {
                Block::Text(text) => writeln!(out, "    text {text:?}"),
                Block::ToolUse(t) => writeln!(out, "    tool_use {} {} {}", t.id, t.name, t.input),
                Block::ToolResult(r) => writeln!(
                    out,
                    "    tool_result {}{} {:?}",
                    r.tool_use_id,
                    if r.is_error { " (error)" } else { "" },
                    r.content
                ),
                Block::Other { kind } => writeln!(out, "    other {kind}"),
                _ => writeln!(out, "    {b:?}"),
            };
        }
    }
    let _ = writeln!(out, "usage: {:?}", t.usage);
    for c in &t.compactions {
        let _ = writeln!(out, "compaction: {c:?}");
    }
    for s in &t.summaries {
        let _ = writeln!(out, "summary: {s:?}");
    }
    let _ = writeln!(
        out,
        "since last compaction: {}, model-visible: {}",
        t.since_last_compaction().len(),
        t.model_visible_count()
    );
    for s in &t.skipped {
        let _ = writeln!(out, "skipped: {} [{}] {s}", s.line, s.reason.code());
    }
    out
}

#[test]
fn fixtures_match_snapshots() {
    insta::glob!("../fixtures", "*.json*", |path| {
        let transcript = read_transcript(path).unwrap();
        insta::assert_snapshot!(render(&transcript));
    });
}

#[test]
fn there_is_a_fixture_for_each_shape() {
    let names: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in [
        "session.jsonl",
        "compaction.jsonl",
        "sidechain.jsonl",
        "summaries.jsonl",
        "broken.jsonl",
        "messages-api.json",
        "messages-object.json",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
}
