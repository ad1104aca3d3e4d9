//! An open memory folder: every path inside it is resolved relative to one
//! folder handle, one segment at a time, never through a symbolic link.

use std::io;
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _, OpenOptionsSyncExt as _};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::FolderError;

/// A memory folder opened for reading and (through [`MemoryFolder::lock`])
/// writing.
///
/// The folder itself is found by its path once, when it is opened (a
/// symbolic link there is the user's own set-up and is followed); every
/// path inside it is then resolved relative to the open handle, segment by
/// segment, refusing any segment that is a symbolic link. Renaming or
/// swapping folders on the path while memdir runs cannot redirect a read or
/// a write outside.
#[derive(Debug)]
pub struct MemoryFolder {
    pub(crate) path: PathBuf,
    pub(crate) dir: Dir,
}

impl MemoryFolder {
    /// Opens an existing folder.
    pub fn open(path: &Path) -> Result<Self, FolderError> {
        if !is_folder_or_unknown(path) {
            return Err(FolderError::NotAFolder {
                path: path.to_owned(),
            });
        }
        let dir = Dir::open_ambient_dir(path, ambient_authority()).map_err(|source| {
            FolderError::Open {
                path: path.to_owned(),
                source,
            }
        })?;
        Ok(MemoryFolder {
            path: path.to_owned(),
            dir,
        })
    }

    /// Opens a folder, creating it and its parents first when missing.
    pub fn create(path: &Path) -> Result<Self, FolderError> {
        if let Err(source) = std::fs::create_dir_all(path) {
            // A file where the folder belongs is the clearer error.
            if !is_folder_or_unknown(path) {
                return Err(FolderError::NotAFolder {
                    path: path.to_owned(),
                });
            }
            return Err(FolderError::Open {
                path: path.to_owned(),
                source,
            });
        }
        Self::open(path)
    }

    /// The folder's path, as given when it was opened.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of `rel` inside the folder, for messages and reports.
    #[must_use]
    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }

    /// Reads the regular file `rel` (a `/`-separated path inside the
    /// folder), at most `limit` bytes; `None` when it does not exist.
    ///
    /// A symbolic link, a FIFO, a device or a folder at `rel` (or a link on
    /// the way to it) is an error, never followed and never waited on; a
    /// longer file is [`ReadError::TooLarge`](memdir_memtypes::ReadError).
    pub fn read(&self, rel: &str, limit: u64) -> Result<Option<Vec<u8>>, FolderError> {
        let Some((file, path)) = self.open_file(rel)? else {
            return Ok(None);
        };
        Ok(Some(memdir_memtypes::read_regular_from(
            file, &path, limit,
        )?))
    }

    /// Reads the first `limit` bytes of the regular file `rel` (a memory's
    /// frontmatter, say), under the same rules as [`MemoryFolder::read`]
    /// except that a longer file is not an error.
    pub fn read_prefix(&self, rel: &str, limit: u64) -> Result<Option<Vec<u8>>, FolderError> {
        use std::io::Read as _;
        let Some((file, path)) = self.open_file(rel)? else {
            return Ok(None);
        };
        let meta = file.metadata().map_err(|source| FolderError::Io {
            path: path.clone(),
            step: "inspect",
            source,
        })?;
        if let Some(kind) = memdir_memtypes::not_a_file(&meta) {
            return Err(memdir_memtypes::ReadError::NotAFile { path, kind }.into());
        }
        let mut bytes = Vec::new();
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|source| FolderError::Io {
                path,
                step: "read",
                source,
            })?;
        Ok(Some(bytes))
    }

    /// Opens `rel` for reading, contained and without blocking; `None` when
    /// it does not exist.
    fn open_file(&self, rel: &str) -> Result<Option<(std::fs::File, PathBuf)>, FolderError> {
        let (parents, name) = split(rel)?;
        let Some(dir) = self.descend(rel, &parents, false)? else {
            return Ok(None);
        };
        let mut options = OpenOptions::new();
        options.read(true);
        options.follow(FollowSymlinks::No);
        options.nonblock(true);
        let path = self.join(rel);
        match dir.open_with(name, &options) {
            Ok(f) => Ok(Some((f.into_std(), path))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(_) if is_symlink(&dir, name) => Err(memdir_memtypes::ReadError::NotAFile {
                path,
                kind: "a symbolic link",
            }
            .into()),
            Err(source) => Err(FolderError::Io {
                path,
                step: "open",
                source,
            }),
        }
    }

    /// Opens (and with `create`, creates) the folders `parents` below the
    /// root, one at a time, refusing symbolic links and non-folders. `None`
    /// when one is missing and `create` is off.
    pub(crate) fn descend(
        &self,
        rel: &str,
        parents: &[&str],
        create: bool,
    ) -> Result<Option<Dir>, FolderError> {
        let mut current = self.dir.try_clone().map_err(|source| FolderError::Io {
            path: self.path.clone(),
            step: "open",
            source,
        })?;
        for (depth, segment) in parents.iter().enumerate() {
            let next = match current.open_dir_nofollow(segment) {
                Ok(d) => d,
                Err(e) if e.kind() == io::ErrorKind::NotFound && !is_symlink(&current, segment) => {
                    if !create {
                        return Ok(None);
                    }
                    match current.create_dir(segment) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(source) => {
                            return Err(FolderError::Io {
                                path: self.join(&parents[..=depth].join("/")),
                                step: "create folder",
                                source,
                            });
                        }
                    }
                    current
                        .open_dir_nofollow(segment)
                        .map_err(|e| self.refusal(rel, parents, depth, &current, &e))?
                }
                Err(e) => return Err(self.refusal(rel, parents, depth, &current, &e)),
            };
            current = next;
        }
        Ok(Some(current))
    }

    /// The error for a segment that could not be entered: a symbolic link
    /// or a non-folder is a refusal; anything else an I/O error.
    fn refusal(
        &self,
        rel: &str,
        parents: &[&str],
        depth: usize,
        parent: &Dir,
        error: &io::Error,
    ) -> FolderError {
        let prefix = parents[..=depth].join("/");
        let segment = parents[depth];
        match parent.symlink_metadata(segment) {
            Ok(meta) if meta.file_type().is_symlink() => FolderError::Escape {
                folder: self.path.clone(),
                rel: rel.to_owned(),
                why: format!("{prefix} is a symbolic link"),
            },
            Ok(meta) if !meta.is_dir() => FolderError::Escape {
                folder: self.path.clone(),
                rel: rel.to_owned(),
                why: format!("{prefix} is not a folder"),
            },
            _ => FolderError::Io {
                path: self.join(&prefix),
                step: "open folder",
                source: io::Error::new(error.kind(), error.to_string()),
            },
        }
    }
}

/// False when `path` is known not to be a folder: missing, a file, or
/// below a file. Other errors (permissions) are left to the open to report.
fn is_folder_or_unknown(path: &Path) -> bool {
    // `a/` of a file `a` fails with "not a folder"; judge `a` itself.
    let plain: PathBuf = path.components().collect();
    match std::fs::metadata(&plain) {
        Ok(meta) => meta.is_dir(),
        Err(e) => !matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        ),
    }
}

/// Whether `name` in `dir` is a symbolic link (without following it).
pub(crate) fn is_symlink(dir: &Dir, name: &str) -> bool {
    dir.symlink_metadata(name)
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// Splits a relative path into its parent folders and file name, refusing
/// anything that is not plainly inside the folder.
pub(crate) fn split(rel: &str) -> Result<(Vec<&str>, &str), FolderError> {
    let invalid = |reason| FolderError::InvalidPath {
        rel: rel.to_owned(),
        reason,
    };
    if rel.is_empty() {
        return Err(invalid("the path is empty"));
    }
    if rel.contains('\0') {
        return Err(invalid("the path holds a NUL byte"));
    }
    if rel.contains('\\') {
        return Err(invalid("the path holds a backslash"));
    }
    if rel.starts_with('/') {
        return Err(invalid("the path is absolute"));
    }
    let mut segments: Vec<&str> = rel.split('/').collect();
    for s in &segments {
        match *s {
            "" => return Err(invalid("the path has an empty segment")),
            "." | ".." => return Err(invalid("the path has a '.' or '..' segment")),
            _ => {}
        }
    }
    let name = segments.pop().expect("split yields at least one segment");
    Ok((segments, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_plain() {
        assert_eq!(split("a.md").unwrap(), (vec![], "a.md"));
        assert_eq!(split("x/y/a.md").unwrap(), (vec!["x", "y"], "a.md"));
        for bad in [
            "",
            "/etc/passwd",
            "../a.md",
            "a/./b.md",
            "a//b.md",
            "a/",
            "a\\b",
            "a\0b",
        ] {
            assert!(
                matches!(split(bad), Err(FolderError::InvalidPath { .. })),
                "{bad:?}"
            );
        }
    }
}
