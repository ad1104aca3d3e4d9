//! Where a settings file is written, and how: relative to an open handle of
//! its folder, reached from a folder the caller trusts one segment at a
//! time without following a symbolic link, and under a lock kept in
//! memdir's own folder.
//!
//! A project's `.claude` folder (or any folder between a trusted root and
//! the file) may be a link to somewhere else: another project's `.claude`,
//! a folder a repository planted. Reading through it is what the agent
//! does too, so [`crate::Settings::load`] follows it; writing through it
//! would change a file the user never named, so every write refuses it.
//! The handle-relative open leaves no window between the check and the
//! write in which the folder could be swapped for a link.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _, OpenOptionsSyncExt as _};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use memdir_memtypes::{AtomicWriteError, not_a_file};

use crate::SettingsWriteError;

/// A settings file as memdir writes it: a folder the caller trusts (a
/// project's root, the agent's base folder, the home folder), opened by its
/// path and so through any link the user set up there, and the file's path
/// below it, walked without following links.
///
/// ```
/// use std::path::Path;
/// use memdir_settings::SettingsPath;
///
/// let local = SettingsPath::new("/src/app", ".claude/settings.local.json");
/// assert_eq!(local.path(), Path::new("/src/app/.claude/settings.local.json"));
/// assert_eq!(local.relative(), Path::new(".claude/settings.local.json"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SettingsPath {
    root: PathBuf,
    relative: PathBuf,
}

impl SettingsPath {
    /// The file `relative` below `root`. `relative` must be a plain
    /// relative path (no `..`, not absolute); a write or read of one that
    /// is not fails with [`SettingsWriteError::Write`] (`NotAFilePath`).
    pub fn new(root: impl Into<PathBuf>, relative: impl Into<PathBuf>) -> Self {
        SettingsPath {
            root: root.into(),
            relative: relative.into(),
        }
    }

    /// A file directly inside the folder that holds it, which the caller
    /// trusts: `~/.claude.json` in the home folder, `settings.json` in the
    /// base folder. `None` for a path without a folder or a file name.
    #[must_use]
    pub fn in_folder(path: &Path) -> Option<Self> {
        let (parent, name) = (path.parent()?, path.file_name()?);
        Some(SettingsPath::new(parent, name))
    }

    /// The trusted folder.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file's path below the root.
    #[must_use]
    pub fn relative(&self) -> &Path {
        &self.relative
    }

    /// The file's whole path, for messages.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.root.join(&self.relative)
    }

    /// The folders below the root and the file name, or an error when
    /// `relative` is not plainly below the root.
    fn split(&self) -> Result<(Vec<&OsStr>, &OsStr), SettingsWriteError> {
        let mut parts = Vec::new();
        for component in self.relative.components() {
            match component {
                Component::Normal(part) => parts.push(part),
                Component::CurDir => {}
                _ => return Err(self.not_a_file_path()),
            }
        }
        let name = parts.pop().ok_or_else(|| self.not_a_file_path())?;
        Ok((parts, name))
    }

    fn not_a_file_path(&self) -> SettingsWriteError {
        SettingsWriteError::Write(AtomicWriteError::NotAFilePath { path: self.path() })
    }
}

/// memdir's folder of settings locks, `<base>/memdir/locks/`: a lock is
/// never left beside a file that belongs to the agent or the user.
///
/// ```
/// use std::path::Path;
/// use memdir_settings::LockDir;
///
/// assert_eq!(LockDir::under_base(Path::new("/h/.claude")).path(), Path::new("/h/.claude/memdir/locks"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockDir(PathBuf);

impl LockDir {
    /// The lock folder of the base folder `base` (`CLAUDE_CONFIG_DIR` or
    /// `~/.claude`).
    #[must_use]
    pub fn under_base(base: &Path) -> Self {
        LockDir(base.join("memdir").join("locks"))
    }

    /// The folder.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The lock file of `file`: its name, then a hash of its path with the
    /// root spelled canonically (two spellings of one folder share a lock),
    /// e.g. `settings.local.json.5f0c1e2d3a4b5c6d.lock`.
    pub(crate) fn lock_path(&self, file: &SettingsPath) -> PathBuf {
        let root = std::fs::canonicalize(&file.root).unwrap_or_else(|_| file.root.clone());
        let whole = root.join(&file.relative);
        let name = file
            .relative
            .file_name()
            .map_or_else(|| "settings".into(), |n| n.to_string_lossy());
        self.0.join(format!(
            "{name}.{:016x}.lock",
            fnv1a(whole.as_os_str().as_encoded_bytes())
        ))
    }
}

/// 64-bit FNV-1a: a stable hash (the same in every build, unlike the
/// standard library's), enough to give each settings file its own lock
/// name; two files that collided would only share a lock.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The open folder that holds a settings file, and the file's name in it.
pub(crate) struct Folder<'a> {
    pub(crate) dir: Dir,
    pub(crate) name: &'a OsStr,
}

/// Opens the folder that holds `file`: the root by its path, then each
/// folder below it without following a link. `Ok(None)` when the root or
/// one of the folders does not exist.
pub(crate) fn open_folder(file: &SettingsPath) -> Result<Option<Folder<'_>>, SettingsWriteError> {
    let (parents, name) = file.split()?;
    let mut dir = match Dir::open_ambient_dir(&file.root, ambient_authority()) {
        Ok(dir) => dir,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(source) => {
            return Err(SettingsWriteError::Folder {
                path: file.path(),
                folder: file.root.clone(),
                source,
            });
        }
    };
    let mut walked = file.root.clone();
    for part in parents {
        walked.push(part);
        dir = match dir.open_dir_nofollow(part) {
            Ok(next) => next,
            Err(_) if is_symlink(&dir, part) => {
                return Err(SettingsWriteError::LinkedFolder {
                    path: file.path(),
                    folder: walked,
                });
            }
            Err(e) if is_missing(&e) => return Ok(None),
            Err(source) => {
                return Err(SettingsWriteError::Folder {
                    path: file.path(),
                    folder: walked,
                    source,
                });
            }
        };
    }
    Ok(Some(Folder { dir, name }))
}

fn is_missing(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

/// Whether `name` in `dir` is a symbolic link (without following it).
pub(crate) fn is_symlink(dir: &Dir, name: &OsStr) -> bool {
    dir.symlink_metadata(name)
        .is_ok_and(|m| m.file_type().is_symlink())
}

impl Folder<'_> {
    /// The file opened for reading, without following a link and without
    /// waiting on a FIFO; `None` when there is no file.
    pub(crate) fn open_file(&self) -> io::Result<Option<File>> {
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true);
        options.follow(FollowSymlinks::No);
        options.nonblock(true);
        match self.dir.open_with(self.name, &options) {
            Ok(file) => Ok(Some(file.into_std())),
            Err(e) if is_missing(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// What is at the file's name, when it is not a regular file (a link
    /// included); `None` for a regular file or nothing.
    pub(crate) fn not_a_file(&self) -> Option<&'static str> {
        let meta = self.dir.symlink_metadata(self.name).ok()?;
        let kind = meta.file_type();
        if kind.is_file() {
            return None;
        }
        if kind.is_symlink() {
            return Some("a symbolic link");
        }
        if kind.is_dir() {
            return Some("a folder");
        }
        #[cfg(unix)]
        {
            use cap_std::fs::FileTypeExt as _;
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

    /// Replaces the file with `contents` atomically, relative to the
    /// folder's handle: a temporary file beside it (hidden, never `*.md`),
    /// fsynced, renamed over the file, then the folder fsynced. An existing
    /// file keeps its permissions; a new one gets 0644 less the umask. The
    /// same steps as `memdir_memtypes::atomic_write`, without its path.
    pub(crate) fn atomic_write(
        &self,
        path: &Path,
        contents: &[u8],
    ) -> Result<(), AtomicWriteError> {
        let err = |step: &'static str| {
            move |source| AtomicWriteError::Io {
                path: path.to_owned(),
                step,
                source,
            }
        };
        let mode = match self.dir.symlink_metadata(self.name) {
            Ok(meta) if meta.is_dir() => {
                return Err(AtomicWriteError::IsAFolder {
                    path: path.to_owned(),
                });
            }
            Ok(meta) if meta.is_file() => permissions_mode(&meta),
            _ => 0o644,
        };
        let temp = temp_name().map_err(err("create temporary file"))?;
        let mut options = cap_std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        options.follow(FollowSymlinks::No);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt as _;
            options.mode(mode);
        }
        #[cfg(not(unix))]
        let _ = mode;
        let mut file = self
            .dir
            .open_with(&temp, &options)
            .map_err(err("create temporary file"))?;
        let written = file.write_all(contents).and_then(|()| file.sync_all());
        drop(file);
        if let Err(source) = written {
            let _ = self.dir.remove_file(&temp);
            return Err(err("write temporary file")(source));
        }
        if let Err(source) = self.dir.rename(&temp, &self.dir, self.name) {
            let _ = self.dir.remove_file(&temp);
            return Err(err("rename temporary file")(source));
        }
        sync_dir(&self.dir).map_err(err("fsync folder"))
    }
}

/// A fresh temporary name: `.memdir-tmp-<random>.tmp`.
fn temp_name() -> io::Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(format!(
        "{}{:016x}{}",
        memdir_memtypes::TEMP_PREFIX,
        u64::from_le_bytes(bytes),
        memdir_memtypes::TEMP_SUFFIX
    ))
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
pub(crate) fn sync_dir(dir: &Dir) -> io::Result<()> {
    #[cfg(unix)]
    {
        dir.open(".")?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// Takes the exclusive lock of `file` in `locks` (creating the folder),
/// waiting for another holder. The lock is released when the returned file
/// is dropped, or when its process dies; the lock file stays.
pub(crate) fn lock(file: &SettingsPath, locks: &LockDir) -> Result<File, SettingsWriteError> {
    let lock_path = locks.lock_path(file);
    let failed = |source| SettingsWriteError::Lock {
        lock: lock_path.clone(),
        source,
    };
    std::fs::create_dir_all(locks.path()).map_err(failed)?;
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link planted at the lock's name must not make us create or
        // lock a file elsewhere, and a FIFO must not make us wait.
        options.custom_flags(NOFOLLOW_NONBLOCK);
    }
    let lock = options.open(&lock_path).map_err(failed)?;
    let meta = lock.metadata().map_err(failed)?;
    if let Some(kind) = not_a_file(&meta) {
        return Err(SettingsWriteError::LockNotAFile {
            lock: lock_path,
            kind,
        });
    }
    lock.lock().map_err(failed)?;
    Ok(lock)
}

/// `O_NOFOLLOW | O_NONBLOCK` for `open` flags.
#[cfg(unix)]
#[allow(
    clippy::cast_possible_wrap,
    reason = "open flags are a C int; the bits fit"
)]
const NOFOLLOW_NONBLOCK: i32 =
    (rustix::fs::OFlags::NOFOLLOW.bits() | rustix::fs::OFlags::NONBLOCK.bits()) as i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_names_are_stable_and_differ_by_file() {
        let locks = LockDir::under_base(Path::new("/h/.claude"));
        let a = SettingsPath::new("/no/such/a", ".claude/settings.json");
        let b = SettingsPath::new("/no/such/b", ".claude/settings.json");
        assert_eq!(locks.lock_path(&a), locks.lock_path(&a.clone()));
        assert_ne!(locks.lock_path(&a), locks.lock_path(&b));
        let name = locks.lock_path(&a);
        assert!(name.starts_with("/h/.claude/memdir/locks"), "{name:?}");
        assert_eq!(name.extension().unwrap(), "lock");
        let name = name.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("settings.json."), "{name}");
        // The hash is FNV-1a, the same in every build.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn two_spellings_of_one_root_share_a_lock() {
        let dir = tempfile::tempdir().unwrap();
        let locks = LockDir::under_base(dir.path());
        let plain = SettingsPath::new(dir.path(), "settings.json");
        let dotted = SettingsPath::new(dir.path().join("."), "settings.json");
        assert_eq!(locks.lock_path(&plain), locks.lock_path(&dotted));
    }

    #[test]
    fn paths_that_leave_the_root_are_refused() {
        for relative in ["../x.json", "/etc/x.json", "", "a/../../x.json"] {
            let file = SettingsPath::new("/r", relative);
            assert!(
                matches!(
                    file.split(),
                    Err(SettingsWriteError::Write(
                        AtomicWriteError::NotAFilePath { .. }
                    ))
                ),
                "{relative}"
            );
        }
        let file = SettingsPath::new("/r", "./.claude/settings.json");
        let (parents, name) = file.split().unwrap();
        assert_eq!(
            (parents, name),
            (vec![OsStr::new(".claude")], OsStr::new("settings.json"))
        );
    }
}
