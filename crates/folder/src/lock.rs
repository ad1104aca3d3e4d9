//! The folder lock: one writer at a time, for the whole read-modify-write.

use std::fs::{File, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::time::{Duration, Instant, SystemTime};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt as _, OpenOptionsSyncExt as _};
use cap_std::fs::OpenOptions;

use crate::{FolderError, MemoryFolder};

/// The lock file's name in a memory folder. Hidden, so never scanned,
/// linted or synced.
pub const LOCK_FILE: &str = ".memdir.lock";

/// How long [`MemoryFolder::lock`] callers usually wait: long enough for
/// any ordinary write of another process to finish, short enough that a
/// stuck holder is reported rather than waited on forever.
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Temporary files older than this are taken to be left by a killed write
/// and removed when the lock is taken.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(60);

/// The folder's advisory lock, held until dropped. Every write method of
/// the crate is a method of this guard, so nothing is written without it.
#[derive(Debug)]
pub struct FolderLock<'a> {
    pub(crate) folder: &'a MemoryFolder,
    /// The open lock file; closing it releases the lock.
    _file: File,
    pub(crate) stale_temp_removed: usize,
}

impl MemoryFolder {
    /// Takes the folder's lock, waiting at most `timeout` for another
    /// holder; then removes temporary files that killed writes left more
    /// than [`STALE_TEMP_AGE`] ago.
    ///
    /// The lock is an advisory lock (`flock`-style) on the hidden file
    /// [`LOCK_FILE`] in the folder. Its holder writes its process id into
    /// the file, so that a waiter that gives up can say who holds it.
    pub fn lock(&self, timeout: Duration) -> Result<FolderLock<'_>, FolderError> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true);
        options.follow(FollowSymlinks::No);
        options.nonblock(true);
        let path = self.join(LOCK_FILE);
        let file = self
            .dir
            .open_with(LOCK_FILE, &options)
            .map_err(|source| {
                if crate::folder::is_symlink(&self.dir, LOCK_FILE) {
                    FolderError::Escape {
                        folder: self.path.clone(),
                        rel: LOCK_FILE.to_owned(),
                        why: format!("{LOCK_FILE} is a symbolic link"),
                    }
                } else {
                    FolderError::Io {
                        path: path.clone(),
                        step: "open the lock file",
                        source,
                    }
                }
            })?
            .into_std();
        if let Ok(meta) = file.metadata()
            && let Some(kind) = memdir_memtypes::not_a_file(&meta)
        {
            return Err(FolderError::Read(memdir_memtypes::ReadError::NotAFile {
                path,
                kind,
            }));
        }

        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let waited = start.elapsed();
                    if waited >= timeout {
                        return Err(FolderError::LockTimeout {
                            path: self.path.clone(),
                            holder: holder(&file),
                            waited,
                        });
                    }
                    std::thread::sleep(pause.min(timeout.saturating_sub(waited)));
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(TryLockError::Error(source)) => {
                    return Err(FolderError::Io {
                        path,
                        step: "lock",
                        source,
                    });
                }
            }
        }
        record_holder(&file);
        let mut lock = FolderLock {
            folder: self,
            _file: file,
            stale_temp_removed: 0,
        };
        lock.stale_temp_removed = lock.remove_temp_files(Some(STALE_TEMP_AGE));
        Ok(lock)
    }
}

impl FolderLock<'_> {
    /// The locked folder.
    #[must_use]
    pub fn folder(&self) -> &MemoryFolder {
        self.folder
    }

    /// How many stale temporary files taking the lock removed.
    #[must_use]
    pub fn stale_temp_files_removed(&self) -> usize {
        self.stale_temp_removed
    }
}

/// Writes who holds the lock into the lock file. Best effort: a holder
/// that cannot say who it is still holds the lock.
fn record_holder(mut file: &File) {
    let program = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "unknown program".to_owned());
    let since = jiff::Timestamp::try_from(SystemTime::now())
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let line = format!("pid {}, {program}, since {since}\n", std::process::id());
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = file.write_all(line.as_bytes());
}

/// What the holder wrote into the lock file, on one short line.
fn holder(mut file: &File) -> String {
    let mut text = String::new();
    let _ = file.rewind();
    let _ = file.take(200).read_to_string(&mut text);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        "unknown holder".to_owned()
    } else {
        text
    }
}
