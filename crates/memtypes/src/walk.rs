//! The one walk of a folder tree that every memdir crate uses, with one
//! rule for hidden entries (SPEC R4.10, R5.3, R8).
//!
//! - Hidden: a name starting with `.` ([`is_hidden`]), at any depth:
//!   memdir's temporary files, `.conflicts/`, sync state, `.git/`. A hidden
//!   entry is not yielded and a hidden folder is not descended into, unless
//!   the caller asks for [`Hidden::Include`] (a secret scan looks in `.env`).
//! - Symbolic links are never followed below the root: they are yielded as
//!   [`EntryKind::Symlink`] for the caller to judge. A root that is a link
//!   to a folder is walked.
//! - FIFOs, sockets and devices are yielded by kind and never opened.
//! - A name that is not UTF-8 is yielded as [`WalkError::NonUtf8Name`] and
//!   a folder with such a name is not descended into: every relative path
//!   the walk yields is UTF-8, and none is converted lossily.
//! - Entries come sorted by name in each folder, folders before their
//!   contents, so that every caller's output is deterministic.
//! - Bounded on request: [`Walk::max_depth`], [`Walk::max_entries`].
//!
//! ```
//! use memdir_memtypes::walk::{EntryKind, Walk};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join(".conflicts"))?;
//! std::fs::write(dir.path().join(".conflicts/a.md.1"), "old")?;
//! std::fs::create_dir(dir.path().join("sub"))?;
//! std::fs::write(dir.path().join("sub/a.md"), "a")?;
//! let mut files = Vec::new();
//! for entry in Walk::new(dir.path()).into_iter() {
//!     let entry = entry?;
//!     if entry.kind() == EntryKind::File {
//!         files.push(entry.rel().to_owned());
//!     }
//! }
//! assert_eq!(files, ["sub/a.md"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::OsStr;
use std::fs::FileType;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Whether a file or folder name is hidden: it starts with `.`. The one
/// rule of every memdir walk and watcher. The name's bytes are judged, so
/// a name that is not UTF-8 is hidden by the same rule.
#[must_use]
pub fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// Whether any name of a relative path is hidden ([`is_hidden`]); `.` and
/// `..` components are not names and do not count.
#[must_use]
pub fn is_hidden_path(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(name) => is_hidden(name),
        _ => false,
    })
}

/// What a walk does with hidden entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hidden {
    /// Left out, and hidden folders not descended into (the default).
    #[default]
    Skip,
    /// Yielded and descended into like any other entry.
    Include,
}

/// What an entry is, as listed (a symbolic link is not resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder; the walk descends into it next.
    Folder,
    /// A symbolic link; never followed.
    Symlink,
    /// A FIFO (named pipe).
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block or character device.
    Device,
    /// Anything else the platform has.
    Other,
}

impl EntryKind {
    fn of(file_type: FileType) -> Self {
        if file_type.is_file() {
            return EntryKind::File;
        }
        if file_type.is_dir() {
            return EntryKind::Folder;
        }
        if file_type.is_symlink() {
            return EntryKind::Symlink;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if file_type.is_fifo() {
                return EntryKind::Fifo;
            }
            if file_type.is_socket() {
                return EntryKind::Socket;
            }
            if file_type.is_block_device() || file_type.is_char_device() {
                return EntryKind::Device;
            }
        }
        EntryKind::Other
    }

    /// The kind in words, as in "it is a FIFO": the same words as
    /// [`not_a_file`](crate::not_a_file).
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Folder => "a folder",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Fifo => "a FIFO",
            EntryKind::Socket => "a socket",
            EntryKind::Device => "a device",
            EntryKind::Other => "not a regular file",
        }
    }
}

/// One entry below the root of a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    path: PathBuf,
    rel: String,
    kind: EntryKind,
    depth: usize,
}

impl Entry {
    /// The full path: the root as given, joined with [`Entry::rel`].
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path relative to the root, `/`-separated, UTF-8.
    #[must_use]
    pub fn rel(&self) -> &str {
        &self.rel
    }

    /// The entry's own name (the last part of [`Entry::rel`]).
    #[must_use]
    pub fn name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }

    /// What the entry is, as listed.
    #[must_use]
    pub fn kind(&self) -> EntryKind {
        self.kind
    }

    /// How deep it is: 1 for an entry of the root itself.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Consumes the entry, giving its full path.
    #[must_use]
    pub fn into_path(self) -> PathBuf {
        self.path
    }
}

/// What went wrong in a walk. Only [`WalkError::Root`] ends it; after any
/// other error the walk goes on with the next entry.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WalkError {
    /// The root does not exist, is not a folder, or cannot be listed.
    #[error("cannot list {}", path.display())]
    Root {
        /// The root, as given.
        path: PathBuf,
        /// What the system reported.
        #[source]
        source: io::Error,
    },
    /// A folder below the root cannot be listed, or one of its entries
    /// cannot be inspected; it is not descended into.
    #[error("cannot list {}", path.display())]
    List {
        /// The folder or entry.
        path: PathBuf,
        /// What the system reported.
        #[source]
        source: io::Error,
    },
    /// An entry's name is not UTF-8. It is not descended into if it is a
    /// folder; the message names it lossily, the path keeps its bytes.
    #[error("{}: name is not UTF-8", path.display())]
    NonUtf8Name {
        /// The full path, bytes intact.
        path: PathBuf,
        /// What the entry is.
        kind: EntryKind,
    },
    /// The walk met more entries than [`Walk::max_entries`] allows and
    /// stopped.
    #[error("{} holds more than {limit} entries; stopped", root.display())]
    TooManyEntries {
        /// The root, as given.
        root: PathBuf,
        /// The limit.
        limit: usize,
    },
}

impl WalkError {
    /// The path the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            WalkError::Root { path, .. }
            | WalkError::List { path, .. }
            | WalkError::NonUtf8Name { path, .. } => path,
            WalkError::TooManyEntries { root, .. } => root,
        }
    }

    /// Whether the root or a folder vanished (does not exist).
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            WalkError::Root { source, .. } | WalkError::List { source, .. }
                if source.kind() == io::ErrorKind::NotFound
        )
    }

    /// The error as an [`io::Error`], for callers whose errors keep one:
    /// the system's own error where there is one, else this error inside
    /// one.
    #[must_use]
    pub fn into_io_error(self) -> io::Error {
        match self {
            WalkError::Root { source, .. } | WalkError::List { source, .. } => source,
            other @ WalkError::NonUtf8Name { .. } => {
                io::Error::new(io::ErrorKind::InvalidData, other)
            }
            other @ WalkError::TooManyEntries { .. } => io::Error::other(other),
        }
    }
}

/// A walk of the folder tree below a root, configured before it starts.
#[derive(Debug, Clone)]
pub struct Walk {
    root: PathBuf,
    hidden: Hidden,
    max_depth: usize,
    max_entries: Option<usize>,
}

impl Walk {
    /// A walk of everything below `root`: hidden entries left out, no depth
    /// or entry limit.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Walk {
            root: root.into(),
            hidden: Hidden::Skip,
            max_depth: usize::MAX,
            max_entries: None,
        }
    }

    /// What to do with hidden entries.
    #[must_use]
    pub fn hidden(mut self, hidden: Hidden) -> Self {
        self.hidden = hidden;
        self
    }

    /// Yields entries at most `depth` levels down (1: the root's own
    /// entries only); deeper folders are not listed.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Stops after `limit` entries with [`WalkError::TooManyEntries`].
    /// Every entry listed counts, hidden ones included.
    #[must_use]
    pub fn max_entries(mut self, limit: usize) -> Self {
        self.max_entries = Some(limit);
        self
    }
}

impl IntoIterator for Walk {
    type Item = Result<Entry, WalkError>;
    type IntoIter = WalkIter;

    fn into_iter(self) -> WalkIter {
        let inner = walkdir::WalkDir::new(&self.root)
            .follow_links(false)
            .follow_root_links(true)
            .max_depth(self.max_depth)
            .sort_by_file_name()
            .into_iter();
        WalkIter {
            inner,
            walk: self,
            started: false,
            seen: 0,
            done: false,
        }
    }
}

/// The entries of a [`Walk`], in order. See the [module](self) for the
/// rules.
#[derive(Debug)]
pub struct WalkIter {
    inner: walkdir::IntoIter,
    walk: Walk,
    started: bool,
    seen: usize,
    done: bool,
}

impl WalkIter {
    /// Does not descend into the folder just yielded (a folder the caller
    /// excludes, such as `team/` or `.git/`). After any other entry it
    /// skips the rest of that entry's folder.
    pub fn skip_current_dir(&mut self) {
        self.inner.skip_current_dir();
    }

    fn root_error(&self, source: io::Error) -> WalkError {
        WalkError::Root {
            path: self.walk.root.clone(),
            source,
        }
    }

    /// Checks the root, the first entry walkdir yields.
    fn start(&mut self) -> Result<(), WalkError> {
        self.started = true;
        match self.inner.next() {
            Some(Ok(root)) => {
                // A root that is a link is followed: judge its target.
                let is_dir = root.file_type().is_dir()
                    || (root.path_is_symlink()
                        && std::fs::metadata(root.path()).is_ok_and(|m| m.is_dir()));
                if is_dir {
                    Ok(())
                } else {
                    Err(self.root_error(io::Error::from(io::ErrorKind::NotADirectory)))
                }
            }
            Some(Err(e)) => Err(self.root_error(into_io(e))),
            None => Err(self.root_error(io::Error::from(io::ErrorKind::NotFound))),
        }
    }
}

fn into_io(e: walkdir::Error) -> io::Error {
    let text = e.to_string();
    e.into_io_error().unwrap_or_else(|| io::Error::other(text))
}

impl Iterator for WalkIter {
    type Item = Result<Entry, WalkError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.started
            && let Err(e) = self.start()
        {
            self.done = true;
            return Some(Err(e));
        }
        loop {
            let dent = match self.inner.next()? {
                Ok(dent) => dent,
                Err(e) => {
                    // Listing the root itself failed.
                    if e.depth() == 0 {
                        self.done = true;
                        return Some(Err(self.root_error(into_io(e))));
                    }
                    let path = e
                        .path()
                        .map_or_else(|| self.walk.root.clone(), Path::to_owned);
                    return Some(Err(WalkError::List {
                        path,
                        source: into_io(e),
                    }));
                }
            };
            self.seen += 1;
            if let Some(limit) = self.walk.max_entries
                && self.seen > limit
            {
                self.done = true;
                return Some(Err(WalkError::TooManyEntries {
                    root: self.walk.root.clone(),
                    limit,
                }));
            }
            let kind = EntryKind::of(dent.file_type());
            let hidden = is_hidden(dent.file_name());
            if hidden && self.walk.hidden == Hidden::Skip {
                if kind == EntryKind::Folder {
                    self.inner.skip_current_dir();
                }
                continue;
            }
            let depth = dent.depth();
            let path = dent.into_path();
            // Every folder above was UTF-8 (others are not descended into),
            // so the relative path is UTF-8 exactly when the name is.
            let rel = path
                .strip_prefix(&self.walk.root)
                .ok()
                .and_then(Path::to_str)
                .map(|rel| rel.replace(std::path::MAIN_SEPARATOR, "/"));
            let Some(rel) = rel else {
                if kind == EntryKind::Folder {
                    self.inner.skip_current_dir();
                }
                return Some(Err(WalkError::NonUtf8Name { path, kind }));
            };
            return Some(Ok(Entry {
                path,
                rel,
                kind,
                depth,
            }));
        }
    }
}

#[cfg(test)]
mod tests;
