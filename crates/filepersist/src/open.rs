//! Reading a file to upload: relative to the outputs folder, never through
//! a symbolic link, only a regular file, at most a cap of bytes.
//!
//! On Unix every folder on the way is opened relative to the one above
//! with `O_NOFOLLOW | O_DIRECTORY`, and the file with `O_NOFOLLOW |
//! O_NONBLOCK`: a link swapped in anywhere after the listing makes the
//! open fail instead of leading outside, and a FIFO does not block. The
//! type is checked again on the open descriptor before a byte is read.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::upload::FileError;

/// Reads `rel` below `root`, at most `limit` bytes.
pub(crate) fn read_contained(root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, FileError> {
    let components: Vec<&str> = rel.split('/').collect();
    if components
        .iter()
        .any(|c| c.is_empty() || *c == "." || *c == "..")
    {
        return Err(FileError::Read {
            error: "the path is not a plain relative path".to_owned(),
        });
    }
    let file = open_no_follow(root, &components).map_err(|e| open_error(&e))?;
    let meta = file.metadata().map_err(|e| read_error(&e))?;
    if let Some(kind) = memdir_memtypes::not_a_file(&meta) {
        return Err(FileError::NotAFile { kind });
    }
    if meta.len() > limit {
        return Err(FileError::TooLarge {
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| read_error(&e))?;
    // It grew while it was read.
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge {
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_no_follow(root: &Path, components: &[&str]) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, open, openat};

    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir = open(root, dir_flags, Mode::empty())?;
    let (name, folders) = components
        .split_last()
        .expect("a relative path has a last component");
    for folder in folders {
        dir = openat(&dir, *folder, dir_flags, Mode::empty())?;
    }
    let file_flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = openat(&dir, *name, file_flags, Mode::empty())?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_no_follow(root: &Path, components: &[&str]) -> io::Result<File> {
    // Without openat: check every step for a link, then open.
    let mut path = root.to_path_buf();
    for c in components {
        path.push(c);
        if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
            return Err(io::Error::other("a symbolic link is on the way"));
        }
    }
    File::open(&path)
}

fn open_error(e: &io::Error) -> FileError {
    // ELOOP: the file is a link; ENOTDIR: a folder on the way became one.
    #[cfg(unix)]
    if matches!(
        e.raw_os_error().map(rustix::io::Errno::from_raw_os_error),
        Some(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR)
    ) {
        return FileError::Symlink;
    }
    if e.kind() == io::ErrorKind::NotFound {
        return FileError::Vanished;
    }
    #[cfg(unix)]
    if e.raw_os_error().map(rustix::io::Errno::from_raw_os_error) == Some(rustix::io::Errno::NXIO) {
        // A socket cannot be opened at all.
        return FileError::NotAFile { kind: "a socket" };
    }
    read_error(e)
}

fn read_error(e: &io::Error) -> FileError {
    FileError::Read {
        error: e.to_string(),
    }
}
