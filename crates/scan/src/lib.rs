//! One pass over a memory folder: the headers of the newest memories, a
//! manifest for a model to choose from, and a diagnostic for every file
//! that could not be used (SPEC R5).
//!
//! - [`scan_memory_dir`] — every `*.md` below the folder except each
//!   folder's `MEMORY.md`, at most [`FRONTMATTER_MAX_LINES`] lines read per
//!   file, the modification time taken from the same open file, newest
//!   first, at most [`MAX_MEMORY_FILES`] readable ones. With more files
//!   than that, all are stat'ed and only the newest are read; a file that
//!   cannot be read gives its place to the next. Cancellable through a
//!   [`CancelToken`]; never fails because of one file.
//! - [`MemoryHeader`] — what a scan knows of a memory. Its time is the
//!   memory's effective time (SPEC R2.5): the `modified` its frontmatter
//!   records, in either frontmatter shape, else the file's mtime.
//! - [`read_memory_files`] — the same read of named files, each with its
//!   [`FileStamp`] (size, mtime, inode): what a recall index keeps. A name
//!   that leads out of the folder is never read.
//! - [`resolves_inside`] — the rule for links: one counts only when it
//!   resolves to a file inside the folder.
//! - [`format_manifest`] — one line per memory:
//!   `- [type] filename (ISO-8601 UTC time): description`.
//!
//! ```
//! use memdir_scan::{scan_memory_dir, format_manifest, CancelToken, ScanOptions};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("MEMORY.md"), "- [Use pnpm](use-pnpm.md)\n")?;
//! std::fs::write(
//!     dir.path().join("use-pnpm.md"),
//!     "---\nname: use-pnpm\ndescription: The repo uses pnpm, not npm\ntype: feedback\n---\nUse pnpm.\n",
//! )?;
//! let scan = scan_memory_dir(dir.path(), &ScanOptions::default(), &CancelToken::new())?;
//! assert_eq!(scan.memories.len(), 1);
//! assert!(format_manifest(&scan.memories).starts_with("- [feedback] use-pnpm.md ("));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

mod cancel;
mod manifest;
mod open;
mod walk;

use std::fmt;
use std::path::PathBuf;

use camino::Utf8PathBuf;

pub use cancel::CancelToken;
pub use manifest::{format_manifest, iso_utc};
pub use walk::{is_memory_name, read_memory_files, resolves_inside, scan_memory_dir};

use memdir_memtypes::MemoryType;

/// At most this many memories are read by one scan: the newest.
pub const MAX_MEMORY_FILES: usize = 200;
/// At most this many lines of a file are read to parse its frontmatter.
pub const FRONTMATTER_MAX_LINES: usize = 30;
/// At most this many bytes of a file are read, however long its lines.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// What a scan knows of one memory (SPEC R5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryHeader {
    /// The path relative to the memory folder, `/`-separated.
    pub filename: String,
    /// The full path: the scanned folder joined with [`filename`], UTF-8
    /// (a file whose name is not is a diagnostic, never a header).
    ///
    /// [`filename`]: MemoryHeader::filename
    pub file_path: Utf8PathBuf,
    /// The memory's time, milliseconds since the Unix epoch: the valid
    /// `modified` its frontmatter records (capped at the scan's "now"), else
    /// the file's modification time — see
    /// [`effective_time_ms`](memdir_memtypes::effective_time_ms). It is the
    /// one time of a memory: the scan's order, the manifest and every age
    /// shown are judged by it (SPEC R2.5, R6.5), because a synced or cloned
    /// folder's mtimes are checkout times. The field keeps R5.1's name.
    pub mtime_ms: i64,
    /// The frontmatter `name`, if any.
    pub name: Option<String>,
    /// The frontmatter `description`, if any.
    pub description: Option<String>,
    /// The memory type, if the frontmatter names a valid one (top-level, or
    /// under the reference agent's `metadata:` block).
    pub memory_type: Option<MemoryType>,
    /// The part of the body within the lines read: weaker evidence of what
    /// the memory is about than its name and description.
    pub body_head: String,
    /// The memory files this one replaces (frontmatter `supersedes:`,
    /// relative to the memory folder): recall and the manifest leave those
    /// out.
    pub supersedes: Vec<String>,
    /// The memory that replaced this one (frontmatter `supersededBy:`).
    pub superseded_by: Option<String>,
}

/// The identity of a memory file as read: what changes when it is
/// rewritten. A replaced file (the atomic writes of memdir and most
/// editors) has a new inode; one written in place a new size or mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileStamp {
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Its inode number (0 where the platform has none).
    pub ino: u64,
}

impl FileStamp {
    /// The stamp of a file from its metadata.
    #[must_use]
    pub fn of(meta: &std::fs::Metadata) -> Self {
        let mtime_ns = meta.modified().map_or(0, memdir_memtypes::unix_nanos);
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let ino = 0;
        FileStamp {
            size: meta.len(),
            mtime_ns,
            ino,
        }
    }
}

/// Options of a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOptions {
    /// At most this many memories are read (the newest).
    pub max_files: usize,
    /// At most this many lines are read per file.
    pub max_lines: usize,
    /// Subfolders (relative, `/`-separated) that are not scanned, such as
    /// `team` when scanning the private scope in combined mode.
    pub exclude: Vec<String>,
    /// "Now" in milliseconds since the Unix epoch: a `modified` time later
    /// than this counts as this. `None` reads the clock when the scan
    /// starts; tests and golden files pass a fixed time.
    pub now_ms: Option<i64>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            max_files: MAX_MEMORY_FILES,
            max_lines: FRONTMATTER_MAX_LINES,
            exclude: Vec::new(),
            now_ms: None,
        }
    }
}

impl ScanOptions {
    /// The private scope of combined mode: everything but `team/`, which is
    /// scanned as its own scope.
    #[must_use]
    pub fn private_scope() -> Self {
        ScanOptions {
            exclude: vec!["team".to_owned()],
            ..ScanOptions::default()
        }
    }
}

/// The result of a scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// The memories read, newest first.
    pub memories: Vec<MemoryHeader>,
    /// Files that were skipped or read with trouble, in the order found.
    pub diagnostics: Vec<ScanDiagnostic>,
    /// How many memory files were found, including those beyond the cap.
    pub total_files: usize,
    /// Whether the scan stopped early because it was cancelled.
    pub cancelled: bool,
}

impl Scan {
    /// Takes the superseded memories out of [`Scan::memories`] (see
    /// [`superseded_files`]) and returns which they were, each with the
    /// memory that replaced it: what recall and every manifest do, so that
    /// a memory someone replaced is never offered again.
    pub fn remove_superseded(&mut self) -> BTreeMap<String, String> {
        let superseded = superseded_files(&self.memories);
        self.memories
            .retain(|m| !superseded.contains_key(&m.filename));
        superseded
    }
}

/// The memories of `memories` that another replaced, each with the file
/// that replaced it: those a memory names in its `supersedes:` (relative to
/// the memory folder; `./` and a leading `/` ignored), and those whose own
/// `supersededBy:` names a replacement. A memory never supersedes itself.
///
/// ```
/// use memdir_scan::{MemoryHeader, superseded_files};
/// let memory = |file: &str, supersedes: &[&str]| MemoryHeader {
///     filename: file.into(),
///     file_path: format!("/m/{file}").into(),
///     mtime_ms: 0,
///     name: None,
///     description: None,
///     memory_type: None,
///     body_head: String::new(),
///     supersedes: supersedes.iter().map(|s| (*s).to_owned()).collect(),
///     superseded_by: None,
/// };
/// let found = superseded_files(&[memory("deploy-v2.md", &["./deploy.md"]), memory("deploy.md", &[])]);
/// assert_eq!(found["deploy.md"], "deploy-v2.md");
/// ```
#[must_use]
pub fn superseded_files(memories: &[MemoryHeader]) -> BTreeMap<String, String> {
    memdir_memtypes::superseded_map(memories.iter().map(|m| {
        (
            m.filename.as_str(),
            m.supersedes.clone(),
            m.superseded_by.clone(),
        )
    }))
}

/// A file that was skipped, or read with trouble.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanDiagnostic {
    /// The file or folder concerned.
    pub path: PathBuf,
    /// What happened.
    pub kind: DiagnosticKind,
}

/// What happened to a file during a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The file or folder could not be read; skipped.
    Unreadable {
        /// The error, as text.
        error: String,
    },
    /// The file holds NUL bytes: not a text memory; skipped.
    Binary,
    /// The name is not valid UTF-8; skipped (a folder so named is not
    /// entered). The message names it lossily; the path keeps its bytes.
    NonUtf8Name,
    /// A symbolic link that points outside the memory folder, or nowhere;
    /// skipped.
    SymlinkOutside,
    /// A symbolic link to a folder; not followed (a link could make the
    /// scan see files twice, or loop).
    SymlinkedFolder,
    /// The file disappeared between listing and reading; skipped.
    Vanished,
    /// The file was read, but its frontmatter is odd (see the diagnostic).
    Frontmatter(memdir_memtypes::Diagnostic),
}

impl fmt::Display for ScanDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            DiagnosticKind::Unreadable { error } => {
                write!(f, "{path}: cannot read ({error}); skipped")
            }
            DiagnosticKind::Binary => write!(f, "{path}: binary content; skipped"),
            DiagnosticKind::NonUtf8Name => write!(f, "{path}: name is not UTF-8; skipped"),
            DiagnosticKind::SymlinkOutside => {
                write!(
                    f,
                    "{path}: symbolic link leaving the memory folder (or dangling); skipped"
                )
            }
            DiagnosticKind::SymlinkedFolder => {
                write!(f, "{path}: symbolic link to a folder; not followed")
            }
            DiagnosticKind::Vanished => write!(f, "{path}: vanished during the scan; skipped"),
            DiagnosticKind::Frontmatter(d) => write!(f, "{path}: {d}"),
        }
    }
}

/// The memory folder itself cannot be scanned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    /// The folder does not exist or cannot be opened.
    #[error("cannot scan memory folder {}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The folder's path is not UTF-8, so its memories' paths could not
    /// be shown to a model or in JSON without naming other files.
    #[error("cannot scan memory folder {}: its path is not UTF-8", path.display())]
    FolderNotUtf8 {
        /// The folder.
        path: PathBuf,
    },
}

impl ScanError {
    /// Whether the folder simply does not exist yet (no memories saved).
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        match self {
            ScanError::Folder { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            ScanError::FolderNotUtf8 { .. } => false,
        }
    }
}
