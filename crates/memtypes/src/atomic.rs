//! The one atomic-write implementation every memdir crate uses (SPEC R2.4).
//!
//! A write goes to a temporary file in the target's own folder, which is
//! flushed and fsynced, renamed over the target, and then the folder itself
//! is fsynced so that the rename survives a power cut. At any instant the
//! target holds either its old or its new content, never a mix.
//!
//! Temporary files are named `.memdir-tmp-<random>.tmp`: hidden, and never
//! ending in `.md`, so a scan can never read a half-written temporary file
//! as a memory. If the process dies between creating and renaming it, the
//! stray file stays hidden and is harmless.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The prefix of memdir's temporary files.
pub const TEMP_PREFIX: &str = ".memdir-tmp-";
/// The suffix of memdir's temporary files.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Why an atomic write failed. The target is unchanged in every case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AtomicWriteError {
    /// The target path has no parent folder or no file name.
    #[error("cannot write {}: not a file path", path.display())]
    NotAFilePath {
        /// The path given.
        path: PathBuf,
    },
    /// The target is a folder.
    #[error("cannot write {}: it is a folder", path.display())]
    IsAFolder {
        /// The path given.
        path: PathBuf,
    },
    /// An I/O step failed.
    #[error("cannot write {}: {step}", path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// What was being done: `create temporary file`, `fsync`, `rename`, …
        step: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Replaces the content of `path` with `contents` atomically.
///
/// The parent folder must exist. An existing target keeps its permissions;
/// a new one is created with mode 0644 (less the umask) on Unix. A symbolic
/// link at `path` is replaced by a regular file, not followed: memory
/// folders are a security boundary and a link must not redirect a write.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("note.md");
/// memdir_memtypes::atomic_write(&path, b"first")?;
/// memdir_memtypes::atomic_write(&path, b"second")?;
/// assert_eq!(std::fs::read(&path)?, b"second");
/// # Ok(()) }
/// ```
pub fn atomic_write(path: &Path, contents: &[u8]) -> Result<(), AtomicWriteError> {
    let err = |step: &'static str| {
        move |source| AtomicWriteError::Io {
            path: path.to_owned(),
            step,
            source,
        }
    };
    let (Some(parent), Some(_)) = (path.parent(), path.file_name()) else {
        return Err(AtomicWriteError::NotAFilePath {
            path: path.to_owned(),
        });
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let existing = fs::symlink_metadata(path).ok();
    if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
        return Err(AtomicWriteError::IsAFolder {
            path: path.to_owned(),
        });
    }

    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    match existing.filter(fs::Metadata::is_file) {
        Some(meta) => {
            builder.permissions(meta.permissions());
        }
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                builder.permissions(fs::Permissions::from_mode(0o644));
            }
        }
    }
    let mut temp = builder
        .tempfile_in(parent)
        .map_err(err("create temporary file"))?;
    temp.write_all(contents)
        .map_err(err("write temporary file"))?;
    temp.as_file()
        .sync_all()
        .map_err(err("fsync temporary file"))?;
    // On failure the temporary file is removed when `persist`'s error drops.
    temp.persist(path)
        .map_err(|e| err("rename temporary file")(e.error))?;
    sync_folder(parent).map_err(err("fsync folder"))?;
    Ok(())
}

/// Fsyncs a folder so that a rename inside it is durable. Folders cannot be
/// opened for syncing on Windows; there the rename is as durable as NTFS
/// makes it.
fn sync_folder(folder: &Path) -> std::io::Result<()> {
    if cfg!(unix) {
        File::open(folder)?.sync_all()
    } else {
        Ok(())
    }
}

/// Whether a file name is one of memdir's temporary files.
#[must_use]
pub fn is_temp_file_name(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_new_and_replaces_existing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        atomic_write(&path, b"one").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        atomic_write(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.md"], "no temporary file is left behind");
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_of_existing_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, b"{}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write(&path, b"{\"a\":1}").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[cfg(unix)]
    #[test]
    fn replaces_a_symlink_instead_of_following_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, b"precious").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        atomic_write(&link, b"new").unwrap();
        assert_eq!(fs::read(&outside).unwrap(), b"precious");
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
    }

    #[test]
    fn refuses_a_folder_and_a_missing_parent() {
        let dir = tempfile::tempdir().unwrap();
        let err = atomic_write(dir.path(), b"x").unwrap_err();
        assert!(matches!(err, AtomicWriteError::IsAFolder { .. }), "{err}");
        let err = atomic_write(&dir.path().join("no/such/dir/a.md"), b"x").unwrap_err();
        assert!(
            matches!(
                err,
                AtomicWriteError::Io {
                    step: "create temporary file",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().starts_with("cannot write "), "{err}");
    }

    #[test]
    fn temp_names_are_never_memories() {
        assert!(is_temp_file_name(".memdir-tmp-abc123.tmp"));
        assert!(!is_temp_file_name("note.md"));
    }
}
