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
    /// descriptor. With `no_link`, a link in the file's place is refused
    /// (`ELOOP`), not followed. What was opened may be anything: check its
    /// type on the descriptor before reading.
    pub(crate) fn open(
        &self,
        folder: usize,
        name: &str,
        path: &Path,
        no_link: bool,
    ) -> io::Result<File> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let mut flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK;
            if no_link {
                flags |= OFlags::NOFOLLOW;
            }
            let opened = match self.fds.get(folder) {
                Some(Some(fd)) => rustix::fs::openat(fd, name, flags, Mode::empty()),
                _ => rustix::fs::open(path, flags, Mode::empty()),
            };
            opened.map(File::from).map_err(io::Error::from)
        }
        #[cfg(not(unix))]
        {
            let _ = (folder, name, no_link);
            memdir_memtypes::open_nonblocking(path)
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::Folders;

    #[test]
    fn no_link_refuses_a_link_in_the_file_s_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.md"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.md"), dir.path().join("link.md")).unwrap();
        let mut folders = Folders::default();
        let folder = folders.add(dir.path());
        for folder in [folder, usize::MAX] {
            let link = dir.path().join("link.md");
            assert!(folders.open(folder, "link.md", &link, false).is_ok());
            assert!(folders.open(folder, "link.md", &link, true).is_err());
            let real = dir.path().join("real.md");
            assert!(folders.open(folder, "real.md", &real, true).is_ok());
        }
    }
}
