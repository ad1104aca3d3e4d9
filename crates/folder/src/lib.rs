//! The one write path into a memdir memory folder (SPEC R18): every change
//! to a memory folder — a memory file, an index line, a pull's entries, a
//! conflict copy, sync state — goes through this crate.
//!
//! - [`MemoryFolder`] — a folder opened once by path; every path inside it
//!   is then resolved relative to the open handle, one segment at a time,
//!   never through a symbolic link, so nothing that happens to the path
//!   between a check and a write can send the write outside.
//! - [`MemoryFolder::lock`] → [`FolderLock`] — the folder's advisory lock,
//!   with a bounded wait and the holder named when it gives up. Every write
//!   method is on the lock guard: nothing is written without the lock.
//! - [`FolderLock::write`] (atomic replace), [`FolderLock::create_new`]
//!   (exclusive creation: of two writers of one name exactly one wins),
//!   [`FolderLock::remove_file`].
//! - [`FolderLock::add_memory`] — a new memory and its index line;
//!   [`FolderLock::add_memories`] — many, with one index write;
//!   [`FolderLock::index_files`] — index lines for files written another
//!   way (an agent's Write); [`FolderLock::fix_index`] — the repair after
//!   killed writes.
//! - [`MemoryFolder::read`] — the bounded, contained read of a regular
//!   file (never a FIFO or a device).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use memdir_entrypoint::IndexEntry;
//! use memdir_folder::{DEFAULT_LOCK_TIMEOUT, FolderError, MemoryFolder, Repair};
//!
//! let dir = tempfile::tempdir()?;
//! let folder = MemoryFolder::create(&dir.path().join("memory"))?;
//! let lock = folder.lock(DEFAULT_LOCK_TIMEOUT)?;
//! let entry = IndexEntry { title: "use-pnpm".into(), file: "use-pnpm.md".into(), hook: "npm breaks the lockfile".into() };
//! lock.add_memory("use-pnpm.md", b"---\nname: use-pnpm\n---\nUse pnpm.\n", &entry, Repair::Orphans)?;
//! assert!(matches!(
//!     lock.add_memory("Use-Pnpm.md", b"again", &entry, Repair::Orphans),
//!     Err(FolderError::AlreadyExists { .. })
//! ));
//! assert!(lock.read_index()?.contains("(use-pnpm.md)"));
//! # Ok(()) }
//! ```

mod error;
mod folder;
mod lock;
mod memory;
mod write;

pub use error::FolderError;
pub use folder::MemoryFolder;
pub use lock::{DEFAULT_LOCK_TIMEOUT, FolderLock, LOCK_FILE, STALE_TEMP_AGE};
pub use memory::{Added, BatchAdded, FixReport, Repair};
