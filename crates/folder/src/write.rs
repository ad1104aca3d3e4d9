//! Writes under the lock: atomic replacement, exclusive creation, removal,
//! and the sweep of temporary files left by killed writes.

use std::io::{self, Write as _};
use std::time::{Duration, SystemTime};

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _};
use cap_std::fs::{Dir, OpenOptions};

use crate::folder::split;
use crate::{FolderError, FolderLock};

/// How deep the temporary-file sweep walks: memory folders are shallow, and
/// a bound keeps a pathological tree from costing every write.
const SWEEP_DEPTH: usize = 16;

impl FolderLock<'_> {
    /// Replaces (or creates) the file `rel` with `contents` atomically
    /// (SPEC R2.4): a temporary file in the same folder, fsynced, renamed
    /// over the target, then the folder fsynced. Missing parent folders are
    /// created, inside the folder only.
    ///
    /// An existing file keeps its permissions; a new one gets 0644 less the
    /// umask. A symbolic link at `rel` is replaced, not followed.
    pub fn write(&self, rel: &str, contents: &[u8]) -> Result<(), FolderError> {
        let (parents, name) = split(rel)?;
        let dir = self.parent_dir(rel, &parents)?;
        let mode = match dir.symlink_metadata(name) {
            Ok(meta) if meta.is_dir() => {
                return Err(self.io(
                    rel,
                    "replace",
                    io::Error::new(io::ErrorKind::IsADirectory, "a folder is in the way"),
                ));
            }
            Ok(meta) if meta.is_file() => permissions_mode(&meta),
            _ => 0o644,
        };
        let temp = self.write_temp(&dir, rel, contents, mode)?;
        if let Err(source) = dir.rename(&temp, &dir, name) {
            let _ = dir.remove_file(&temp);
            return Err(self.io(rel, "rename into place", source));
        }
        sync_dir(&dir).map_err(|source| self.io(rel, "fsync the folder of", source))
    }

    /// Creates the file `rel` with `contents` only if no file of that name
    /// exists, atomically: of two writers of one new name exactly one
    /// succeeds, and the other gets [`FolderError::AlreadyExists`]. The
    /// content appears whole or not at all.
    pub fn create_new(&self, rel: &str, contents: &[u8]) -> Result<(), FolderError> {
        self.create_new_synced(rel, contents, true)
    }

    /// [`create_new`](Self::create_new); without `sync_folder`, the folder
    /// holding the new name is not fsynced: the caller of a batch does it
    /// once for all of them ([`sync_folder_of`](Self::sync_folder_of)).
    pub(crate) fn create_new_synced(
        &self,
        rel: &str,
        contents: &[u8],
        sync_folder: bool,
    ) -> Result<(), FolderError> {
        let (parents, name) = split(rel)?;
        let dir = self.parent_dir(rel, &parents)?;
        let temp = self.write_temp(&dir, rel, contents, 0o644)?;
        // A hard link fails if the name exists, whatever raced to create
        // it; the temporary name is then removed.
        let linked = dir.hard_link(&temp, &dir, name);
        let result = match linked {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(FolderError::AlreadyExists {
                folder: self.folder.path.clone(),
                existing: rel.to_owned(),
            }),
            // Some file systems have no hard links. Every memdir writer
            // holds the lock, so checking and renaming under it is exclusive
            // among them.
            Err(_) => match dir.symlink_metadata(name) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return match dir.rename(&temp, &dir, name) {
                        Ok(()) if !sync_folder => Ok(()),
                        Ok(()) => {
                            sync_dir(&dir).map_err(|s| self.io(rel, "fsync the folder of", s))
                        }
                        Err(source) => {
                            let _ = dir.remove_file(&temp);
                            Err(self.io(rel, "rename into place", source))
                        }
                    };
                }
                _ => Err(FolderError::AlreadyExists {
                    folder: self.folder.path.clone(),
                    existing: rel.to_owned(),
                }),
            },
        };
        let _ = dir.remove_file(&temp);
        result?;
        if !sync_folder {
            return Ok(());
        }
        sync_dir(&dir).map_err(|source| self.io(rel, "fsync the folder of", source))
    }

    /// Fsyncs the folder that holds `rel`, so that names created in it
    /// without a sync of their own are durable.
    pub(crate) fn sync_folder_of(&self, rel: &str) -> Result<(), FolderError> {
        let (parents, _) = split(rel)?;
        let dir = self.parent_dir(rel, &parents)?;
        sync_dir(&dir).map_err(|source| self.io(rel, "fsync the folder of", source))
    }

    /// Removes the file `rel`; `false` when there was none.
    pub fn remove_file(&self, rel: &str) -> Result<bool, FolderError> {
        let (parents, name) = split(rel)?;
        let Some(dir) = self.folder.descend(rel, &parents, false)? else {
            return Ok(false);
        };
        match dir.remove_file_or_symlink(name) {
            Ok(()) => {
                sync_dir(&dir).map_err(|source| self.io(rel, "fsync the folder of", source))?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(self.io(rel, "remove", source)),
        }
    }

    /// Removes memdir's temporary files anywhere in the folder (`None`), or
    /// those older than `age`. Returns how many were removed. Symbolic
    /// links are not followed; errors are skipped: the sweep is tidying,
    /// and a file it cannot remove is no danger (it is never read as a
    /// memory).
    pub(crate) fn remove_temp_files(&self, age: Option<Duration>) -> usize {
        let Ok(root) = self.folder.dir.try_clone() else {
            return 0;
        };
        sweep(&root, age, SWEEP_DEPTH)
    }

    fn parent_dir(&self, rel: &str, parents: &[&str]) -> Result<Dir, FolderError> {
        Ok(self
            .folder
            .descend(rel, parents, true)?
            .expect("descend with create always yields a folder"))
    }

    /// Writes `contents` to a new temporary file in `dir` and fsyncs it;
    /// returns its name.
    fn write_temp(
        &self,
        dir: &Dir,
        rel: &str,
        contents: &[u8],
        mode: u32,
    ) -> Result<String, FolderError> {
        let name =
            temp_name().map_err(|source| self.io(rel, "name a temporary file for", source))?;
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        options.follow(FollowSymlinks::No);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt as _;
            options.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        let mut file = dir
            .open_with(&name, &options)
            .map_err(|source| self.io(rel, "create a temporary file for", source))?;
        let written = file.write_all(contents).and_then(|()| file.sync_all());
        if let Err(source) = written {
            drop(file);
            let _ = dir.remove_file(&name);
            return Err(self.io(rel, "write a temporary file for", source));
        }
        Ok(name)
    }

    fn io(&self, rel: &str, step: &'static str, source: io::Error) -> FolderError {
        FolderError::Io {
            path: self.folder.join(rel),
            step,
            source,
        }
    }
}

/// A fresh temporary name: hidden, never `*.md`.
fn temp_name() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    let hex = u64::from_le_bytes(bytes);
    Ok(format!(
        "{}{hex:016x}{}",
        memdir_memtypes::TEMP_PREFIX,
        memdir_memtypes::TEMP_SUFFIX
    ))
}

fn sweep(dir: &Dir, age: Option<Duration>, depth: usize) -> usize {
    let Ok(entries) = dir.entries() else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth > 0
                && name != ".git"
                && let Ok(sub) = dir.open_dir_nofollow(&name)
            {
                // A folder with a lock of its own (`team/`) has writers
                // this lock does not stop: only its stale files go.
                let own_lock = name == "team" || sub.exists(crate::LOCK_FILE);
                let age = if own_lock {
                    Some(age.map_or(crate::STALE_TEMP_AGE, |a| a.max(crate::STALE_TEMP_AGE)))
                } else {
                    age
                };
                removed += sweep(&sub, age, depth - 1);
            }
        } else if kind.is_file() && memdir_memtypes::is_temp_file_name(&name) {
            let old_enough = age.is_none_or(|age| {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .map(cap_std::time::SystemTime::into_std)
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .is_some_and(|elapsed| elapsed >= age)
            });
            if old_enough && dir.remove_file(&name).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(unix)]
fn permissions_mode(meta: &cap_std::fs::Metadata) -> u32 {
    use cap_std::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn permissions_mode(_meta: &cap_std::fs::Metadata) -> u32 {
    0o644
}

/// Fsyncs a folder so that a rename in it survives a power cut. Folders
/// cannot be synced on Windows; there the rename is as durable as the file
/// system makes it.
fn sync_dir(dir: &Dir) -> io::Result<()> {
    #[cfg(unix)]
    {
        // The handle may be a path-only descriptor, which cannot be
        // synced; the folder opened for reading can.
        dir.open(".")?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
