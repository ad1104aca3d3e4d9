//! Imports of each fixture, as reviewed snapshots.

use memdir_interop::{Format, import};

use crate::{fixture, render};

fn golden(format: Format) -> String {
    let root = fixture(format);
    let path = match format {
        Format::McpMemoryJsonl => root.join("memory.jsonl"),
        Format::GeminiMd => root.join("GEMINI.md"),
        Format::QwenMemory => root.join("QWEN.md"),
        Format::AgentsMd => root.join("AGENTS.md"),
        Format::ClaudeMd => root.join("CLAUDE.md"),
        _ => root.clone(),
    };
    render(&import(format, &path).unwrap(), &root)
}

#[test]
fn mcp_memory() {
    insta::assert_snapshot!(golden(Format::McpMemoryJsonl));
}

#[test]
fn cline() {
    insta::assert_snapshot!(golden(Format::ClineMemoryBank));
}

#[test]
fn cursor() {
    insta::assert_snapshot!(golden(Format::CursorRules));
}

#[test]
fn gemini() {
    insta::assert_snapshot!(golden(Format::GeminiMd));
}

#[test]
fn qwen() {
    insta::assert_snapshot!(golden(Format::QwenMemory));
}

/// Qwen Code's auto-memory folder, memdir's own layout.
#[test]
fn qwen_memory_folder() {
    let root = fixture(Format::QwenMemory).join("memory");
    let imported = import(Format::QwenMemory, &root).unwrap();
    insta::assert_snapshot!(render(&imported, &root));
}

#[test]
fn agents_md() {
    insta::assert_snapshot!(golden(Format::AgentsMd));
}

#[test]
fn claude_md() {
    insta::assert_snapshot!(golden(Format::ClaudeMd));
}

#[test]
fn format_names_parse_and_print() {
    for format in Format::ALL {
        assert_eq!(format.to_string().parse::<Format>().unwrap(), format);
    }
    let err = "windsurf".parse::<Format>().unwrap_err().to_string();
    assert_eq!(
        err,
        "unknown format \"windsurf\" (expected one of: mcp-memory, cline, cursor, gemini, qwen, agents-md, claude-md)"
    );
}
