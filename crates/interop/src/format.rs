//! The formats and their command-line names.

use std::fmt;
use std::str::FromStr;

/// A memory format of another tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// The MCP reference memory server's JSONL knowledge graph (`mcp-memory`).
    McpMemoryJsonl,
    /// Cline's Memory Bank folder of Markdown files (`cline`).
    ClineMemoryBank,
    /// Cursor's `.cursor/rules/*.mdc` project rules (`cursor`).
    CursorRules,
    /// Gemini CLI's `GEMINI.md` and its added-memories section (`gemini`).
    GeminiMd,
    /// Qwen Code's `QWEN.md` and its added-memories section (`qwen`).
    QwenMemory,
    /// A pointer block in `AGENTS.md` (`agents-md`).
    AgentsMd,
    /// A pointer block in `CLAUDE.md` (`claude-md`).
    ClaudeMd,
}

impl Format {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Format; 7] = [
        Format::McpMemoryJsonl,
        Format::ClineMemoryBank,
        Format::CursorRules,
        Format::GeminiMd,
        Format::QwenMemory,
        Format::AgentsMd,
        Format::ClaudeMd,
    ];

    /// The format's command-line name.
    #[must_use]
    pub fn cli_name(self) -> &'static str {
        match self {
            Format::McpMemoryJsonl => "mcp-memory",
            Format::ClineMemoryBank => "cline",
            Format::CursorRules => "cursor",
            Format::GeminiMd => "gemini",
            Format::QwenMemory => "qwen",
            Format::AgentsMd => "agents-md",
            Format::ClaudeMd => "claude-md",
        }
    }
}

impl Format {
    /// The one file the format is written to, for the formats that are one
    /// file (`memory.jsonl`, `GEMINI.md`, `QWEN.md`, `AGENTS.md`,
    /// `CLAUDE.md`); `None` for those that are a folder of files.
    #[must_use]
    pub fn file_name(self) -> Option<&'static str> {
        match self {
            Format::McpMemoryJsonl => Some("memory.jsonl"),
            Format::GeminiMd => Some("GEMINI.md"),
            Format::QwenMemory => Some("QWEN.md"),
            Format::AgentsMd => Some("AGENTS.md"),
            Format::ClaudeMd => Some("CLAUDE.md"),
            Format::ClineMemoryBank | Format::CursorRules => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// The error of parsing a [`Format`] from a name that is none of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown format {0:?} (expected one of: mcp-memory, cline, cursor, gemini, qwen, agents-md, claude-md)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.cli_name() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}
