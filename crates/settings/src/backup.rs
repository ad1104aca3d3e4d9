//! Backup copies of a settings file, the newest few kept.

use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::contained::{is_symlink, sync_dir};

/// Writes `bytes` to `<root>/<folder>/<prefix><stamp>` (created
/// exclusively, with `-1`, `-2`, … appended when that name is taken;
/// readable by the owner only, as settings may name accounts and projects;
/// synced), then keeps only the `keep` newest files of that folder whose
/// names start with `prefix`, newest by name: stamps must sort as they age
/// (a fixed-width time). Returns the copy's path.
///
/// `root` is a folder the caller trusts and is created when missing;
/// `folder` (relative, may be empty) is walked below it without following a
/// symbolic link, its missing parts created, so that a backup never lands
/// where a linked folder points.
///
/// ```
/// use std::path::Path;
///
/// let dir = tempfile::tempdir()?;
/// for ms in 100..108 {
///     memdir_settings::write_backup(dir.path(), Path::new("backups"), "settings.json.backup.", &ms.to_string(), b"{}", 5)?;
/// }
/// let mut left: Vec<_> = std::fs::read_dir(dir.path().join("backups"))?.map(|e| e.unwrap().file_name()).collect();
/// left.sort();
/// assert_eq!(left.len(), 5);
/// assert_eq!(left[0], "settings.json.backup.103");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_backup(
    root: &Path,
    folder: &Path,
    prefix: &str,
    stamp: &str,
    bytes: &[u8],
    keep: usize,
) -> io::Result<PathBuf> {
    std::fs::create_dir_all(root)?;
    let mut dir = Dir::open_ambient_dir(root, ambient_authority())?;
    let mut walked = root.to_owned();
    for component in folder.components() {
        let part = match component {
            Component::Normal(part) => part,
            Component::CurDir => continue,
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is not a folder below {}",
                        folder.display(),
                        root.display()
                    ),
                ));
            }
        };
        walked.push(part);
        if is_symlink(&dir, part) {
            return Err(io::Error::other(format!(
                "{} is a symbolic link (memdir does not write through a linked folder)",
                walked.display()
            )));
        }
        match dir.create_dir(part) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        dir = dir.open_dir_nofollow(part)?;
    }
    let mut attempt = 0u32;
    let (name, mut out) = loop {
        let name = if attempt == 0 {
            format!("{prefix}{stamp}")
        } else {
            format!("{prefix}{stamp}-{attempt}")
        };
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        options.follow(FollowSymlinks::No);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        match dir.open_with(&name, &options) {
            Ok(out) => break (name, out),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 1000 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    out.write_all(bytes)?;
    out.sync_all()?;
    drop(out);
    sync_dir(&dir)?;
    let mut copies: Vec<String> = dir
        .entries()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(prefix))
        .collect();
    copies.sort();
    let excess = copies.len().saturating_sub(keep);
    for old in &copies[..excess] {
        if let Err(e) = dir.remove_file(old) {
            log::warn!(
                "cannot remove the old backup {}: {e}",
                walked.join(old).display()
            );
        }
    }
    Ok(walked.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_backup_never_goes_through_a_linked_folder() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(".claude")).unwrap();
        let err = write_backup(&root, Path::new(".claude"), "s.", "1", b"{}", 5).unwrap_err();
        assert!(err.to_string().contains("is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        let err = write_backup(&root, Path::new("../x"), "s.", "1", b"{}", 5).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn the_folder_is_created_and_copies_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let made = write_backup(dir.path(), Path::new("a/b"), "s.", "1", b"{}", 5).unwrap();
        assert_eq!(made, dir.path().join("a/b/s.1"));
        let again = write_backup(dir.path(), Path::new("a/b"), "s.", "1", b"[]", 5).unwrap();
        assert_eq!(again, dir.path().join("a/b/s.1-1"));
        assert_eq!(std::fs::read(&again).unwrap(), b"[]");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&made).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
