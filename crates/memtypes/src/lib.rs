//! The vocabulary of memdir memory files: what a memory is, how its file
//! reads and writes, and how old it is.
//!
//! - [`MemoryType`] — the four kinds of memory (`user`, `feedback`,
//!   `project`, `reference`) and their tolerant parser; [`MemoryFileSource`]
//!   — the unrelated classification of where an instruction or memory file
//!   comes from.
//! - [`parse_memory`] / [`render_memory`] — YAML frontmatter read tolerantly
//!   into a [`Header`] plus [`Diagnostic`]s, in either [`FrontmatterShape`]
//!   (flat R2.1 keys, or the reference agent's nested `metadata:` block with
//!   its `modified` time), and a new memory written in the flat shape so
//!   that it reads the same. [`update_memory`] rewrites an existing file
//!   in the shape it has, keeping the keys memdir does not know.
//! - [`effective_time_ms`] — a memory's time: its valid `modified`, else its
//!   mtime. [`memory_age_days`], [`memory_age`], [`memory_freshness_text`],
//!   [`memory_freshness_note`] — pure functions of that time and "now".
//! - [`atomic_write`] — the one atomic file write that every memdir crate
//!   uses, and [`read_regular_file`], the bounded read of a regular file
//!   (never a FIFO or a device).
//! - [`walk`] — the one walk of a folder tree that every memdir crate
//!   uses: one rule for hidden entries ([`walk::is_hidden`]), symbolic
//!   links reported and never followed, special files reported by kind,
//!   names that are not UTF-8 reported and never converted lossily.
//!
//! This crate's only I/O is the atomic write, the bounded reads and the
//! folder walk; everything else is a pure function.
//!
//! ```
//! use memdir_memtypes::{memory_age, parse_memory, MemoryType};
//!
//! let file = b"---\nname: no-db-mocking\ndescription: Integration tests hit a real database\ntype: feedback\n---\nUse a real database.\n";
//! let memory = parse_memory(file);
//! assert_eq!(memory.header.memory_type, Some(MemoryType::Feedback));
//! assert!(memory.diagnostics.is_empty());
//!
//! let day = 86_400_000;
//! assert_eq!(memory_age(0, 3 * day), "3 days ago");
//! ```

/// The file name of the index in every memory folder.
pub const ENTRYPOINT_NAME: &str = "MEMORY.md";

mod atomic;
mod freshness;
mod frontmatter;
mod read;
mod types;
pub mod walk;

pub use atomic::{AtomicWriteError, TEMP_PREFIX, TEMP_SUFFIX, atomic_write, is_temp_file_name};
pub use freshness::{
    effective_time_ms, memory_age, memory_age_days, memory_freshness_note, memory_freshness_text,
    unix_millis, unix_nanos,
};
pub use frontmatter::{
    Diagnostic, FrontmatterShape, Header, MEMDIR_KEYS, MemdirValue, ParsedMemory, parse_iso_time,
    parse_memory, parse_memory_str, render_memory, set_memdir_key, superseded_map, update_memory,
};
pub use read::{
    ReadError, not_a_file, open_nonblocking, read_regular_file, read_regular_from,
    read_regular_prefix,
};
pub use types::{MemoryFileSource, MemoryType, Scope, UnknownMemoryType};
