//! Opening memory files relative to their folder.
//!
//! Opening a file by its full path makes the kernel walk every component
//! of the path again, for each of the 200 files; opening it by name
//! relative to an open descriptor of its folder (`openat`) walks one
//! component. On platforms without `openat` the full path is used.
//!
//! Every open is non-blocking: a file listed as a memory may have been
//! replaced by a FIFO since, and opening a FIFO for reading otherwise waits
//! for a writer forever. The caller checks the type of what was opened
//! before reading from it (SPEC R18.4).

use std::fs::File;
use std::io;
use std::path::Path;

/// The folders a walk listed, each with an open descriptor where the
/// platform allows.
#[derive(Debug, Default)]
pub(crate) struct Folders {
    #[cfg(unix)]
    fds: Vec<Option<std::os::fd::OwnedFd>>,
    #[cfg(not(unix))]
    count: usize,
}

impl Folders {
    /// Records a folder; its index is what [`Folders::open`] takes. A
    /// folder that cannot be opened is recorded without a descriptor, and
    /// its files are then opened by full path.
    pub(crate) fn add(&mut self, dir: &Path) -> usize {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok();
            self.fds.push(fd);
            self.fds.len() - 1
        }
        #[cfg(not(unix))]
        {
            let _ = dir;
            self.count += 1;
            self.count - 1
        }
    }

    /// Opens the file `name` of folder `folder` for reading, without
    /// blocking; `path` is its full path, used when the folder has no
    /// descriptor. What was opened may be anything: check its type on the
    /// descriptor before reading.
    pub(crate) fn open(&self, folder: usize, name: &str, path: &Path) -> io::Result<File> {
        #[cfg(unix)]
        if let Some(Some(fd)) = self.fds.get(folder) {
            use rustix::fs::{Mode, OFlags};
            return rustix::fs::openat(
                fd,
                name,
                OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK,
                Mode::empty(),
            )
            .map(File::from)
            .map_err(io::Error::from);
        }
        let _ = (folder, name);
        memdir_memtypes::open_nonblocking(path)
    }
}
