//! The tools memdir's background agents use, and what keeps them in their
//! lane (SPEC R12.4).
//!
//! - [`read_file`] (Read), [`grep`] (Grep) and [`glob`] (Glob) look at the
//!   project's files, unrestricted but bounded: regular files only (a FIFO
//!   or a device is refused without waiting), a byte and line cap on what
//!   comes back, ripgrep's own crates (`ignore`, `grep-searcher`,
//!   `globset`) for which files a search visits (hidden files and
//!   `.gitignore`d ones are skipped) and how it matches, a time limit.
//! - [`MemoryScope`] (Edit and Write) changes memory files, and only inside
//!   the memory folder and its team folder: the path judged with links
//!   resolved, then written through `memdir-folder`'s lock and open handle;
//!   contents secret-scanned first (a new secret is refused in either
//!   folder). It records what it changed.
//!
//! Every error's message is written for the model, which gets it as the
//! tool's answer.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use memdir_tools::{MemoryScope, WriteInput};
//! let dir = tempfile::tempdir()?;
//! let memory = dir.path().join("memory");
//! let scope = MemoryScope::open(&memory, None)?;
//! let file = scope.private_path().join("use-pnpm.md");
//! scope.write(&WriteInput { file_path: file.display().to_string(), content: "Use pnpm.\n".into() })?;
//! assert_eq!(scope.written(), vec![file]);
//! // Outside the folder: refused, with the reason the model sees.
//! let outside = dir.path().join("elsewhere.md").display().to_string();
//! let refusal = scope.write(&WriteInput { file_path: outside, content: String::new() }).unwrap_err();
//! assert!(refusal.to_string().contains("outside the memory folder"));
//! # Ok(()) }
//! ```

mod agent;
mod error;
mod memory;
mod read;
mod search;

use std::path::{Path, PathBuf};

pub use agent::{
    AutoMemPolicy, BashTool, EditTool, GlobTool, GrepTool, ReadTool, WriteTool, extraction_tools,
};
pub use error::ToolError;
pub use memory::{EditInput, MAX_MEMORY_BYTES, MemoryScope, Place, Target, WriteInput};
pub use read::{DEFAULT_READ_LINES, MAX_LINE_CHARS, MAX_READ_BYTES, ReadInput, read_file};
pub use search::{
    DEFAULT_GREP_RESULTS, GlobInput, GrepInput, MAX_GLOB_RESULTS, OutputMode, SEARCH_TIME, Stop,
    glob, grep,
};

/// `path` as given when absolute, else relative to `root`.
fn resolve(root: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_owned()
    } else {
        root.join(path)
    }
}

/// The README's example is compiled as a doctest, so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
