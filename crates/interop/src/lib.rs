//! Import and export of other tools' memory formats.
//!
//! [`import`] reads one tool's memory file or folder into neutral
//! [`Memory`] values (plus a [`Skipped`] entry for everything it could not
//! take); [`export`] turns memories into the files ([`ExportFile`]) that
//! tool reads. This crate never writes a memory itself: the caller writes
//! memories through its own write API and export files where it decides.
//! Every input file is read with a bounded read
//! ([`memdir_memtypes::read_regular_file`], at most [`MAX_FILE_BYTES`]), so
//! a FIFO, a device or a folder where a file belongs is an error, never a
//! hang; at most [`MAX_MEMORIES`] memories come from one import.
//!
//! # Formats
//!
//! | [`Format`] | CLI name | Input | Carries on a round trip |
//! |---|---|---|---|
//! | [`Format::McpMemoryJsonl`] | `mcp-memory` | the server's `memory.jsonl` | name, type, description, body |
//! | [`Format::ClineMemoryBank`] | `cline` | the `memory-bank/` folder | name, type, description, body |
//! | [`Format::CursorRules`] | `cursor` | the `.cursor/rules/` folder | name, type, description, body |
//! | [`Format::GeminiMd`] | `gemini` | a `GEMINI.md` file | the description only, as one bullet |
//! | [`Format::QwenMemory`] | `qwen` | a `QWEN.md` file, or the auto-memory folder | the description only, as one bullet (export writes `QWEN.md`) |
//! | [`Format::AgentsMd`] | `agents-md` | an `AGENTS.md` file | name and description, as one pointer |
//! | [`Format::ClaudeMd`] | `claude-md` | a `CLAUDE.md` file | name and description, as one pointer |
//!
//! - **MCP memory server** (`@modelcontextprotocol/server-memory`, whose
//!   README is mirrored at <https://labsco.ai/servers/modelcontextprotocol/memory>):
//!   one JSON object a line, `{"type":"entity","name","entityType","observations"}`
//!   or `{"type":"relation","from","to","relationType"}`. A foreign entity
//!   becomes a `user` memory (the server remembers facts about the user)
//!   unless its `entityType` is a memdir type; its description is
//!   `entityType: first observation`, its body the observations as bullets
//!   and then its relations as `from relationType to` lines. Export writes
//!   one entity a memory: `entityType` is the memory type, the first
//!   observation is `memdir-description: <description>`, and the others are
//!   the body's lines verbatim (blank ones too, so the body comes back byte
//!   for byte). An entity whose first observation has that prefix is read
//!   back the same way. A broken line is skipped with its line number.
//! - **Cline Memory Bank** (<https://docs.cline.bot/best-practices/memory-bank>):
//!   every `*.md` file of the folder is a `project` memory named after its
//!   stem; a leading `# ` heading is the description (else the first line).
//!   Export writes `memory-bank/<name>.md` as `# <description>`, a blank
//!   line, `<!-- memdir-type: <type> -->` and the body; an import that
//!   finds that comment line first takes the type from it and drops it,
//!   so a round trip keeps the type (an HTML comment, which the tool does
//!   not show; Cursor's files below get the same line).
//! - **Cursor rules** (format shown at
//!   <https://dev.to/ofir_saban_a14cc4bc21c433/how-to-write-cursor-rules-that-the-agent-actually-follows-with-mdc-examples-2j1o>):
//!   every `*.mdc` file is a `feedback` memory (a rule is a convention
//!   about how to work) unless its first body line is memdir's type
//!   comment, its `description:` the description. Export writes
//!   `.cursor/rules/<name>.mdc` with `description`, an empty `globs` and
//!   `alwaysApply: false`, and the type comment before the body.
//! - **Gemini CLI** (<https://geminicli.com/docs/tools/memory/>) and **Qwen
//!   Code** (<https://qwenlm.github.io/qwen-code-docs/zh/developers/tools/memory/>):
//!   each `- ` bullet of the `## Gemini Added Memories` (or `## Qwen Added
//!   Memories`) section is a `user` memory named after its first words.
//!   Export rewrites only that section of the existing file (or appends
//!   it), one bullet a description; all other text stays byte for byte.
//!   Every bullet the section already has is kept (they are the tool's
//!   own memories); a memory whose description is already a bullet there
//!   is not added twice. Qwen Code's auto-memory folder (`~/.qwen/projects/<project>/memory/`,
//!   per <https://qwenlm.github.io/qwen-code-docs/en/users/features/memory/>)
//!   has memdir's own layout: one markdown file a memory with `name`,
//!   `description` and `type` in its frontmatter, a `MEMORY.md` index and
//!   a `pinned/` folder; given that folder, `qwen` imports each memory
//!   with its type (one without a valid type as `project`).
//! - **AGENTS.md and CLAUDE.md**: export writes a block of pointers,
//!   `- name — description`, between `<!-- memdir:begin -->` and
//!   `<!-- memdir:end -->`, replacing only that block. Import reads those
//!   pointers (as `project` memories whose body is the description) when
//!   the markers are there, and otherwise each `## ` section as a `project`
//!   memory.
//!
//! Names are made safe by [`sanitize_name`]; one that cannot be is a
//! [`Skipped`] entry on import and [`InteropError::InvalidName`] on export.
//! Within one import the first memory of a name wins.
//!
//! ```
//! use memdir_interop::{Format, Memory, export};
//! use memdir_memtypes::MemoryType;
//!
//! let memories = [Memory {
//!     name: "pnpm".into(),
//!     memory_type: MemoryType::Feedback,
//!     description: "Use pnpm, not npm".into(),
//!     body: "The lockfile is pnpm-lock.yaml.\n".into(),
//! }];
//! let existing = "# Notes\n\nMy own text.\n";
//! let files = export("gemini".parse::<Format>()?, &memories, Some(existing))?;
//! assert_eq!(files[0].rel_path, "GEMINI.md");
//! assert_eq!(
//!     files[0].contents,
//!     "# Notes\n\nMy own text.\n\n## Gemini Added Memories\n- Use pnpm, not npm\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod collect;
mod files;
mod format;
mod mcp;
mod name;
mod pointers;
mod section;

use std::io;
use std::path::{Path, PathBuf};

pub use format::{Format, UnknownFormat};
pub use memdir_memtypes::MemoryType;
pub use name::sanitize_name;

/// The most bytes read from one input file.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The most memories one import returns; the rest are skipped.
pub const MAX_MEMORIES: usize = 1000;

/// The longest memory name, in characters.
pub const MAX_NAME_CHARS: usize = 80;

/// One memory in the neutral shape every format converts to and from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    /// The memory's name, safe as a memdir memory name.
    pub name: String,
    /// What kind of knowledge it holds.
    pub memory_type: MemoryType,
    /// One line saying what it holds; never empty after an import.
    pub description: String,
    /// The memory's text.
    pub body: String,
}

/// Something an import did not take, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Where it was: `file:line`, a file name or an entity name.
    pub at: String,
    /// Why it was skipped.
    pub reason: String,
}

/// What an import gives: the memories, and what was skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    /// The memories, in the order of the input.
    pub memories: Vec<Memory>,
    /// What was not taken, in the order of the input.
    pub skipped: Vec<Skipped>,
}

/// One file an export produces, for the caller to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportFile {
    /// Where it goes, relative to the project (or home) folder, with `/`.
    pub rel_path: String,
    /// The whole new contents of the file.
    pub contents: String,
}

/// Why an import or an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InteropError {
    /// An input file could not be read: missing, not a regular file (a
    /// folder, a FIFO, a device), or over [`MAX_FILE_BYTES`].
    #[error(transparent)]
    Read(#[from] memdir_memtypes::ReadError),
    /// The format reads a folder and the path names something else.
    #[error("cannot import from {}: it is not a folder", path.display())]
    NotAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// A folder was given for a one-file format, and it does not hold the
    /// format's file.
    #[error("cannot import from {}: it is a folder without {file}; give the file", folder.display())]
    NoFileInFolder {
        /// The folder given.
        folder: PathBuf,
        /// The format's file, which the folder does not hold.
        file: &'static str,
    },
    /// A folder to import could not be listed.
    #[error("cannot list the folder {}", path.display())]
    ListFolder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A memory to export has a name that cannot be made safe.
    #[error("cannot export the memory named {name:?}: the name has no letter or digit")]
    InvalidName {
        /// The name as given.
        name: String,
    },
    /// Two memories to export have the same safe name.
    #[error("cannot export two memories named {name:?}")]
    DuplicateName {
        /// The shared safe name.
        name: String,
    },
    /// The existing file opens memdir's marked block and never closes it,
    /// so there is no telling where the user's text starts again.
    #[error("the existing file has `{begin}` without `{end}` after it; fix it by hand")]
    UnclosedBlock {
        /// The opening marker.
        begin: &'static str,
        /// The missing closing marker.
        end: &'static str,
    },
}

/// Reads `path` in `format` into memories.
///
/// `path` is the file for the one-file formats (or the folder holding
/// it, such as the folder an export wrote: [`Format::file_name`] in it is
/// read) and the folder for [`Format::ClineMemoryBank`] (`memory-bank/`
/// or the folder holding it) and [`Format::CursorRules`] (`.cursor/rules/`
/// or the project holding it).
pub fn import(format: Format, path: &Path) -> Result<Imported, InteropError> {
    log::debug!("importing {} from {}", format, path.display());
    let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    // A folder given for a one-file format is the folder an export of it
    // wrote: its file is read (Qwen Code's folder is its auto memory,
    // unless it holds the QWEN.md an export wrote).
    let in_folder = format.file_name().map(|name| path.join(name));
    let path = match &in_folder {
        Some(file) if is_dir && (format != Format::QwenMemory || file.is_file()) => {
            if std::fs::symlink_metadata(file).is_err() {
                return Err(InteropError::NoFileInFolder {
                    folder: path.to_owned(),
                    file: format.file_name().unwrap_or_default(),
                });
            }
            file.as_path()
        }
        _ => path,
    };
    match format {
        Format::McpMemoryJsonl => mcp::import(path),
        Format::ClineMemoryBank => files::import_cline(path),
        Format::CursorRules => files::import_cursor(path),
        // Qwen Code keeps its own memories in a folder of memdir's layout,
        // and what `save_memory` saved in a section of QWEN.md.
        Format::QwenMemory if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) => {
            files::import_memory_folder(path)
        }
        Format::GeminiMd | Format::QwenMemory => section::import(format, path),
        Format::AgentsMd | Format::ClaudeMd => pointers::import(path),
    }
}

/// Turns `memories` into the files `format` reads.
///
/// `existing` is the current text of the one file the section formats
/// rewrite (Gemini, Qwen, AGENTS.md, CLAUDE.md); only memdir's section of
/// it changes. The other formats ignore it.
pub fn export(
    format: Format,
    memories: &[Memory],
    existing: Option<&str>,
) -> Result<Vec<ExportFile>, InteropError> {
    let memories = name::safe_for_export(memories)?;
    Ok(match format {
        Format::McpMemoryJsonl => vec![mcp::export(&memories)],
        Format::ClineMemoryBank => files::export_cline(&memories),
        Format::CursorRules => files::export_cursor(&memories),
        Format::GeminiMd | Format::QwenMemory => {
            vec![section::export(format, &memories, existing.unwrap_or(""))]
        }
        Format::AgentsMd | Format::ClaudeMd => {
            vec![pointers::export(format, &memories, existing.unwrap_or(""))?]
        }
    })
}
