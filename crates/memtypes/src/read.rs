//! Bounded reads of regular files (SPEC R18.4).
//!
//! Every file memdir reads (a memory, an index, settings, a transcript, a
//! file to scan) may turn out to be something else: a FIFO that blocks
//! `open` and `read` forever, `/dev/zero` that never ends, a socket, a
//! folder. A read here opens without blocking, refuses anything that is
//! not a regular file, and stops at the caller's limit instead of growing
//! without bound.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a bounded read failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The path names something other than a regular file.
    #[error("cannot read {}: it is {kind}, not a regular file", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is: `a folder`, `a FIFO`, `a socket`, `a device`, ….
        kind: &'static str,
    },
    /// The file is longer than the limit for its format.
    #[error("cannot read {}: it is over the {limit}-byte limit for this kind of file", path.display())]
    TooLarge {
        /// The path given.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Opening or reading failed.
    #[error("cannot read {}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl ReadError {
    /// Whether the file does not exist.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

/// Reads the whole of a regular file of at most `limit` bytes.
///
/// The file is opened without blocking (a FIFO does not wait for a
/// writer), its type is checked on the open descriptor (no window between
/// check and read), and reading stops one byte past `limit`.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use memdir_memtypes::{read_regular_file, ReadError};
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("MEMORY.md");
/// std::fs::write(&path, "- [a](a.md) — hook\n")?;
/// assert_eq!(read_regular_file(&path, 1_000)?.len(), 21);
/// assert!(matches!(read_regular_file(&path, 4), Err(ReadError::TooLarge { .. })));
/// assert!(matches!(read_regular_file(dir.path(), 4), Err(ReadError::NotAFile { .. })));
/// # Ok(()) }
/// ```
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_regular_from(open_regular(path)?, path, limit)
}

/// `path` opened without blocking; an error that says what it is when it
/// cannot be opened because it is no file.
fn open_regular(path: &Path) -> Result<File, ReadError> {
    open_nonblocking(path).map_err(|source| {
        // A socket cannot be opened at all (ENXIO); say what it is.
        match std::fs::metadata(path).ok().as_ref().and_then(not_a_file) {
            Some(kind) => ReadError::NotAFile {
                path: path.to_owned(),
                kind,
            },
            None => ReadError::Io {
                path: path.to_owned(),
                source,
            },
        }
    })
}

/// Reads a file the caller opened (for example relative to a folder
/// handle, without blocking): checks that it is a regular file and reads
/// at most `limit` bytes. `path` is only used in errors.
pub fn read_regular_from(file: File, path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let bytes = read_at_most(file, path, limit.saturating_add(1))?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_owned(),
            limit,
        });
    }
    Ok(bytes)
}

/// The first `limit` bytes of a regular file (all of it when shorter): for
/// a header, which does not need the rest. Opened and checked as
/// [`read_regular_file`] does.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("long.md");
/// std::fs::write(&path, "---\nname: a\n---\n".to_owned() + &"body\n".repeat(1000))?;
/// let head = memdir_memtypes::read_regular_prefix(&path, 16)?;
/// assert_eq!(head, b"---\nname: a\n---\n");
/// # Ok(()) }
/// ```
pub fn read_regular_prefix(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_at_most(open_regular(path)?, path, limit)
}

/// At most `n` bytes of `file`, once its type shows it is a regular file.
fn read_at_most(file: File, path: &Path, n: u64) -> Result<Vec<u8>, ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = not_a_file(&meta) {
        return Err(ReadError::NotAFile {
            path: path.to_owned(),
            kind,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(n)).unwrap_or(0));
    file.take(n).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// Opens a file for reading without waiting for a FIFO's writer. Check the
/// type of what was opened before reading from it.
pub fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(NONBLOCK);
    }
    options.open(path)
}

/// `O_NONBLOCK` for `open` flags.
#[cfg(unix)]
#[allow(
    clippy::cast_possible_wrap,
    reason = "open flags are a C int; the bit fits"
)]
pub(crate) const NONBLOCK: i32 = rustix::fs::OFlags::NONBLOCK.bits() as i32;

/// `None` for a regular file, else what the metadata describes.
#[must_use]
pub fn not_a_file(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a folder");
    }
    if kind.is_symlink() {
        return Some("a symbolic link");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_block_device() || kind.is_char_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("MEMORY.md");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let err = read_regular_file(&fifo, 100).unwrap_err();
        assert!(
            matches!(err, ReadError::NotAFile { kind: "a FIFO", .. }),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let err = read_regular_file(&path, 100).unwrap_err();
        assert!(
            matches!(
                err,
                ReadError::NotAFile {
                    kind: "a socket",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_and_never_read() {
        let err = read_regular_file(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(
            matches!(
                err,
                ReadError::NotAFile {
                    kind: "a device",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn the_limit_is_inclusive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_regular_file(&path, 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular_file(&path, 4),
            Err(ReadError::TooLarge { limit: 4, .. })
        ));
        let missing = read_regular_file(&dir.path().join("none.md"), 4).unwrap_err();
        assert!(missing.is_not_found(), "{missing}");
    }
}
