//! The memory section of an AI coding agent's system prompt: what memory is
//! for, how to save and check it, and the `MEMORY.md` index it starts from.
//!
//! - [`load_memory_prompt`] — chooses the mode for a resolved project
//!   (SPEC R7.1) and reads the index files: [`PromptMode::DailyLog`] for
//!   assistant sessions, [`PromptMode::Combined`] when team memory is on,
//!   [`PromptMode::Single`] otherwise, or [`MemoryPrompt::Off`] with the rule
//!   that turned memory off.
//! - [`build_single_prompt`], [`build_combined_prompt`],
//!   [`build_daily_log_prompt`] — pure builders: folder paths and raw index
//!   text in, prompt text out, sections in the order of SPEC R7.2.
//! - [`PromptOptions`] — assistant mode and the optional search section.
//!
//! The wording lives in markdown files under `src/text/`, one per section;
//! the combined and single-folder modes have separate type texts (SPEC R1.4).
//!
//! ```
//! use camino::Utf8Path;
//! use memdir_prompt::{build_single_prompt, PromptOptions};
//!
//! let index = "- [Use pnpm](use-pnpm.md) — the package manager is pnpm, not npm\n";
//! let text = build_single_prompt(
//!     Utf8Path::new("/home/user/.claude/projects/-home-user-app/memory/"),
//!     index,
//!     &PromptOptions::default(),
//! );
//! assert!(text.starts_with("# Persistent memory\n"));
//! assert!(text.contains("## Four types of memory"));
//! assert!(!text.contains("<scope>"));
//! assert!(text.ends_with("- [Use pnpm](use-pnpm.md) — the package manager is pnpm, not npm\n"));
//! ```

use std::path::PathBuf;

mod build;
mod load;

pub use build::{
    PromptOptions, build_combined_prompt, build_daily_log_prompt, build_single_prompt,
    fill_template,
};
pub use load::{MemoryPrompt, PromptMode, load_memory_prompt};

/// Errors of loading the memory prompt.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// An index file exists but cannot be read (a folder named `MEMORY.md`,
    /// missing permissions, an I/O error).
    #[error("cannot read memory index {}", path.display())]
    ReadIndex {
        /// The index file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}
