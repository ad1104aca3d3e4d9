//! The one error type of the crate.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// Why a folder operation failed. Nothing on disk is half-written in any
/// case: a write either happened whole or not at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FolderError {
    /// The memory folder does not exist or is not a folder.
    #[error("{} is not a folder", path.display())]
    NotAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// The memory folder could not be opened or created.
    #[error("cannot open the memory folder {}", path.display())]
    Open {
        /// The path given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Another process held the folder's lock for the whole wait.
    #[error(
        "the memory folder {} is locked by another writer ({holder}); gave up after {:.1} s",
        path.display(),
        waited.as_secs_f64()
    )]
    LockTimeout {
        /// The folder.
        path: PathBuf,
        /// Who holds the lock, as it recorded itself (`pid 42, memdir`), or
        /// `unknown holder`.
        holder: String,
        /// How long this process waited.
        waited: Duration,
    },
    /// A relative path inside the folder is not acceptable (empty, `.`/`..`
    /// segments, a NUL byte, a backslash).
    #[error("{rel:?} is not a path inside the memory folder: {reason}")]
    InvalidPath {
        /// The path given.
        rel: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A new file was to be created, and one of that name (in any letter
    /// case, for memories) exists already.
    #[error("{existing} already exists in {}", folder.display())]
    AlreadyExists {
        /// The folder.
        folder: PathBuf,
        /// The name that exists.
        existing: String,
    },
    /// The path leads through a symbolic link, or something other than a
    /// folder sits where a folder belongs: the write is refused so that it
    /// cannot land outside the folder.
    #[error("refused to write {rel:?} in {}: {why}", folder.display())]
    Escape {
        /// The folder.
        folder: PathBuf,
        /// The path inside it.
        rel: String,
        /// What was found on the way.
        why: String,
    },
    /// A file to read is not a regular file or is too large.
    #[error(transparent)]
    Read(#[from] memdir_memtypes::ReadError),
    /// The index could not be updated.
    #[error(transparent)]
    Index(#[from] memdir_entrypoint::EntrypointError),
    /// An I/O step failed.
    #[error("cannot {step} {}", path.display())]
    Io {
        /// The file or folder concerned.
        path: PathBuf,
        /// What was being done: `create`, `write`, `rename`, `fsync`, …
        step: &'static str,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl FolderError {
    /// Whether the error is a refusal for safety (a path that would leave
    /// the folder) rather than an ordinary failure.
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            FolderError::Escape { .. } | FolderError::InvalidPath { .. }
        )
    }
}
