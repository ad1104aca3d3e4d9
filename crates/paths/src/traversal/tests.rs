//! Unit tests of the physical check through the filesystem seam: the
//! errors that a test running as root cannot provoke for real.

use std::collections::HashMap;

use super::*;

/// An error to return: a kind, or a raw OS error number.
#[derive(Clone, Copy)]
enum Fault {
    Kind(io::ErrorKind),
    Os(i32),
}

impl Fault {
    fn error(self) -> io::Error {
        match self {
            Fault::Kind(kind) => kind.into(),
            Fault::Os(code) => io::Error::from_raw_os_error(code),
        }
    }
}

/// A filesystem where `canonicalize` and `lstat` answer from a table;
/// paths in neither table do not exist.
#[derive(Default)]
struct FakeFs {
    canonical: HashMap<PathBuf, Result<PathBuf, Fault>>,
    lstat: HashMap<PathBuf, Fault>,
}

impl FakeFs {
    fn real(mut self, path: &str) -> Self {
        self.canonical.insert(path.into(), Ok(path.into()));
        self
    }

    fn fails(mut self, path: &str, kind: io::ErrorKind) -> Self {
        self.canonical.insert(path.into(), Err(Fault::Kind(kind)));
        self
    }

    fn lstat_fails(mut self, path: &str, fault: Fault) -> Self {
        self.lstat.insert(path.into(), fault);
        self
    }
}

impl FsProbe for FakeFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        match self.canonical.get(path) {
            Some(Ok(real)) => Ok(real.clone()),
            Some(Err(fault)) => Err(fault.error()),
            None => Err(io::ErrorKind::NotFound.into()),
        }
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<()> {
        match self.lstat.get(path) {
            Some(fault) => Err(fault.error()),
            None if self.canonical.contains_key(path) => Ok(()),
            None => Err(io::ErrorKind::NotFound.into()),
        }
    }
}

fn reason(fs: &FakeFs, path: &str) -> Result<PathBuf, TraversalReason> {
    realpath_with(fs, Path::new(path)).map_err(|e| e.reason)
}

#[test]
fn missing_tail_is_re_appended() {
    let fs = FakeFs::default().real("/").real("/team");
    assert_eq!(
        reason(&fs, "/team/a/b.md"),
        Ok(PathBuf::from("/team/a/b.md"))
    );
}

#[test]
fn permission_denied_fails_closed() {
    let fs = FakeFs::default()
        .real("/")
        .fails("/team/private", io::ErrorKind::PermissionDenied);
    assert_eq!(
        reason(&fs, "/team/private/x.md"),
        Err(TraversalReason::Unverifiable(
            io::ErrorKind::PermissionDenied
        ))
    );
}

#[test]
fn io_errors_fail_closed() {
    let fs = FakeFs::default()
        .real("/")
        .fails("/team/x.md", io::ErrorKind::Other);
    assert_eq!(
        reason(&fs, "/team/x.md"),
        Err(TraversalReason::Unverifiable(io::ErrorKind::Other))
    );
    // An lstat that fails for another reason than "not found" also refuses.
    let fs = FakeFs::default()
        .real("/")
        .lstat_fails("/team/x.md", Fault::Kind(io::ErrorKind::PermissionDenied));
    assert_eq!(
        reason(&fs, "/team/x.md"),
        Err(TraversalReason::Unverifiable(
            io::ErrorKind::PermissionDenied
        ))
    );
}

#[cfg(target_os = "linux")]
#[test]
fn eloop_from_lstat_is_a_loop() {
    let fs = FakeFs::default()
        .real("/")
        .lstat_fails("/team/x.md", Fault::Os(40));
    assert_eq!(reason(&fs, "/team/x.md"), Err(TraversalReason::SymlinkLoop));
}

#[test]
fn write_path_check_refuses_when_the_team_folder_cannot_be_resolved() {
    let fs = FakeFs::default()
        .real("/")
        .fails("/team", io::ErrorKind::PermissionDenied);
    let err =
        validate_write_path_with(&fs, Path::new("/team/a.md"), Path::new("/team")).unwrap_err();
    assert_eq!(
        err.reason,
        TraversalReason::Unverifiable(io::ErrorKind::PermissionDenied)
    );
}
