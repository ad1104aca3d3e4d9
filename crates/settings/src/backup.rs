//! Backup copies of a settings file, the newest few kept.

use std::fs::OpenOptions;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `<dir>/<prefix><stamp>` (created exclusively, with
/// `-1`, `-2`, … appended when that name is taken; readable by the owner
/// only, as settings may name accounts and projects; synced), then keeps
/// only the `keep` newest files of `dir` whose names start with `prefix`,
/// newest by name: stamps must sort as they age (a fixed-width time).
/// Returns the copy's path. `dir` is created when missing.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// for ms in 100..108 {
///     memdir_settings::write_backup(dir.path(), "settings.json.backup.", &ms.to_string(), b"{}", 5)?;
/// }
/// let mut left: Vec<_> = std::fs::read_dir(dir.path())?.map(|e| e.unwrap().file_name()).collect();
/// left.sort();
/// assert_eq!(left.len(), 5);
/// assert_eq!(left[0], "settings.json.backup.103");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_backup(
    dir: &Path,
    prefix: &str,
    stamp: &str,
    bytes: &[u8],
    keep: usize,
) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let mut attempt = 0u32;
    let (path, mut out) = loop {
        let name = if attempt == 0 {
            format!("{prefix}{stamp}")
        } else {
            format!("{prefix}{stamp}-{attempt}")
        };
        let path = dir.join(name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
            Ok(out) => break (path, out),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 1000 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    out.write_all(bytes)?;
    out.sync_all()?;
    let mut copies: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| e.path())
        .collect();
    copies.sort();
    let excess = copies.len().saturating_sub(keep);
    for old in &copies[..excess] {
        if let Err(e) = std::fs::remove_file(old) {
            log::warn!("cannot remove the old backup {}: {e}", old.display());
        }
    }
    Ok(path)
}
