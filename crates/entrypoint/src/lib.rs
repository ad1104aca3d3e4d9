//! MEMORY.md, the index of a memory folder that goes into every system
//! prompt: cutting it to the prompt budget, keeping its lines, linting it.
//!
//! - [`truncate_entrypoint_content`] — trims and cuts the index to
//!   [`MAX_ENTRYPOINT_LINES`] lines and [`MAX_ENTRYPOINT_BYTES`] bytes at a
//!   line boundary, adds the warning, and names the entries that were cut
//!   ([`Truncation`]).
//! - [`upsert_entry`] / [`remove_entry`] — add, replace or remove one
//!   memory's line ([`IndexEntry`]) and leave every other line as it was;
//!   [`upsert_entries`] does a batch in one pass.
//! - [`lint_index`] — over-long lines, links to missing files, memory files
//!   no line links to, duplicate links, links leaving the folder,
//!   frontmatter in the index; [`FolderListing`] lists the folder for it.
//!
//! The crate reads folders (for the lint) but never writes: callers write
//! the new index with [`memdir_memtypes::atomic_write`].
//!
//! ```
//! use memdir_entrypoint::{truncate_entrypoint_content, upsert_entry, IndexEntry};
//!
//! let index = upsert_entry("# Memory\n", &IndexEntry {
//!     title: "Use pnpm".into(),
//!     file: "use-pnpm.md".into(),
//!     hook: "the repo's package manager is pnpm, not npm".into(),
//! })?;
//! let injected = truncate_entrypoint_content(&index);
//! assert!(!injected.was_truncated());
//! assert_eq!(injected.content, "# Memory\n- [Use pnpm](use-pnpm.md) — the repo's package manager is pnpm, not npm");
//! # Ok::<(), memdir_entrypoint::EntrypointError>(())
//! ```

use std::path::PathBuf;

mod link;
mod lint;
mod maintain;
mod truncate;

pub use lint::{FolderListing, Lint, LintKind, decode_index, lint_index, unlinked_files};
pub use maintain::{IndexEntry, find_entry, remove_entry, upsert_entries, upsert_entry};
pub use truncate::{DroppedEntry, Truncation, truncate_entrypoint_content};

pub use memdir_memtypes::ENTRYPOINT_NAME;
/// At most this many lines of the index reach the prompt.
pub const MAX_ENTRYPOINT_LINES: usize = 200;
/// At most this many bytes of the index reach the prompt (about 125
/// characters a line at 200 lines).
pub const MAX_ENTRYPOINT_BYTES: usize = 25_000;
/// Index lines longer than this many characters are linted.
pub const MAX_INDEX_LINE_CHARS: usize = 200;
/// At most this many bytes of a MEMORY.md are read (SPEC R18.4): far above
/// the prompt's cut, so that the lint can still count the lines and name
/// the entries the cut drops, yet bounded against `/dev/zero`-like files.
pub const MAX_INDEX_READ_BYTES: u64 = 4 * 1024 * 1024;

/// Errors of index maintenance and lint.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EntrypointError {
    /// A folder could not be listed for the lint.
    #[error("cannot list {}", path.display())]
    ReadFolder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An entry cannot be written as an index line.
    #[error("cannot index {file:?}: {reason}")]
    InvalidEntry {
        /// The entry's file, as given.
        file: String,
        /// Why it cannot be indexed.
        reason: String,
    },
}
