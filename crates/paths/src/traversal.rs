//! Keeping team-memory writes inside the team folder (SPEC R4.9–R4.11).
//!
//! Keys come from a sync server and paths from a cloned repository's
//! files: both are hostile until proven otherwise. A key is checked
//! textually first (`memdir_protocol::validate_team_mem_key_text`, the
//! rules the team server applies too: encodings, look-alikes, separators,
//! segments, portability), then joined with the team folder and checked
//! twice: lexically, without the disk, and physically, with every
//! existing symbolic link resolved. Any doubt rejects.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use memdir_protocol::{KeyError, KeyReason, validate_team_mem_key_text};

use crate::validate::normalize_lexically;

/// A key or path that would leave the team folder, or that cannot be proven
/// not to. A distinct type, so that callers can tell a refused write from an
/// ordinary I/O failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path traversal rejected for {input:?}: {reason}")]
pub struct PathTraversalError {
    /// The key or path as given.
    pub input: String,
    /// The rule it broke.
    pub reason: TraversalReason,
}

impl From<KeyError> for PathTraversalError {
    fn from(e: KeyError) -> Self {
        Self {
            input: e.input,
            reason: TraversalReason::Key(e.reason),
        }
    }
}

/// The rule a key or path broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TraversalReason {
    /// The key breaks a text rule of R4.10
    /// ([`memdir_protocol::validate_team_mem_key_text`]).
    Key(KeyReason),
    /// The path is not inside the team folder (checked lexically, with the
    /// folder's trailing separator, so `team2/` is not inside `team/`).
    OutsideTeamFolder,
    /// The path leaves the team folder once symbolic links are resolved.
    EscapesViaSymlink,
    /// A symbolic link on the path points to nothing: a write through it
    /// would create its target wherever it points.
    DanglingSymlink,
    /// Symbolic links on the path form a loop.
    SymlinkLoop,
    /// Containment could not be proven (permission denied, I/O error, a
    /// file where a folder belongs, …), so the write is refused.
    Unverifiable(io::ErrorKind),
}

impl fmt::Display for TraversalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraversalReason::Key(reason) => reason.fmt(f),
            TraversalReason::OutsideTeamFolder => {
                f.write_str("the path is outside the team folder")
            }
            TraversalReason::EscapesViaSymlink => {
                f.write_str("the path leaves the team folder through a symbolic link")
            }
            TraversalReason::DanglingSymlink => {
                f.write_str("a symbolic link on the path points to nothing")
            }
            TraversalReason::SymlinkLoop => f.write_str("symbolic links on the path form a loop"),
            TraversalReason::Unverifiable(kind) => {
                write!(f, "containment could not be verified ({kind}); refused")
            }
        }
    }
}

impl TraversalReason {
    /// A stable kebab-case identifier of the rule, for JSON output (a text
    /// rule's is its [`KeyReason::code`]).
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            TraversalReason::Key(reason) => reason.code(),
            TraversalReason::OutsideTeamFolder => "outside-team-folder",
            TraversalReason::EscapesViaSymlink => "escapes-via-symlink",
            TraversalReason::DanglingSymlink => "dangling-symlink",
            TraversalReason::SymlinkLoop => "symlink-loop",
            TraversalReason::Unverifiable(_) => "unverifiable",
        }
    }
}

/// Validates a team-memory key from a sync server and returns the path it
/// may be written to: the team folder joined with the key in NFC.
///
/// The key must first pass the text rules
/// ([`memdir_protocol::validate_team_mem_key_text`], whose failure is
/// [`TraversalReason::Key`]), then the joined path the two-pass
/// check of [`validate_team_mem_write_path`].
///
/// ```
/// use std::path::Path;
/// use memdir_paths::{validate_team_mem_key, TraversalReason};
/// use memdir_protocol::KeyReason;
/// let team = tempfile::tempdir()?;
/// let path = validate_team_mem_key("conventions/testing.md", team.path())?;
/// assert!(path.starts_with(team.path()));
/// let err = validate_team_mem_key("..%2f..%2fetc/passwd", team.path()).unwrap_err();
/// assert_eq!(err.reason, TraversalReason::Key(KeyReason::PercentEncoded));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validate_team_mem_key(key: &str, team_dir: &Path) -> Result<PathBuf, PathTraversalError> {
    let key_nfc = validate_team_mem_key_text(key)?;
    validate_team_mem_write_path(&team_dir.join(key_nfc), team_dir).map_err(|e| {
        PathTraversalError {
            input: key.to_owned(),
            reason: e.reason,
        }
    })
}

/// Validates a path that is about to be written in the team folder, in two
/// passes (R4.9):
///
/// 1. lexical — `.` and `..` are applied without touching the disk, and the
///    result must lie strictly inside the team folder. Containment is
///    judged component by component, which is the same as comparing with
///    the folder's trailing separator: `team2/x` is not inside `team/`.
/// 2. physical — the deepest existing ancestor is resolved with `realpath`
///    ([`realpath_deepest_existing`]), the missing rest re-appended, and the
///    result must lie inside the real team folder.
///
/// Relative paths are taken relative to the working directory. Returns the
/// lexically normalised path.
pub fn validate_team_mem_write_path(
    path: &Path,
    team_dir: &Path,
) -> Result<PathBuf, PathTraversalError> {
    validate_write_path_with(&RealFs, path, team_dir)
}

pub(crate) fn validate_write_path_with(
    fs: &impl FsProbe,
    path: &Path,
    team_dir: &Path,
) -> Result<PathBuf, PathTraversalError> {
    let error = |reason| PathTraversalError {
        input: path.display().to_string(),
        reason,
    };
    let absolute = |p: &Path| {
        std::path::absolute(p).map_err(|e| error(TraversalReason::Unverifiable(e.kind())))
    };
    let lexical = normalize_lexically(&absolute(path)?);
    let team = normalize_lexically(&absolute(team_dir)?);
    if lexical == team || !lexical.starts_with(&team) {
        return Err(error(TraversalReason::OutsideTeamFolder));
    }
    let real = realpath_with(fs, &lexical).map_err(|e| error(e.reason))?;
    let real_team = realpath_with(fs, &team).map_err(|e| error(e.reason))?;
    if real == real_team || !real.starts_with(&real_team) {
        return Err(error(TraversalReason::EscapesViaSymlink));
    }
    Ok(lexical)
}

/// Resolves `path` physically as far as it exists: walks up until
/// `realpath` succeeds, then re-appends the missing components (R4.11).
///
/// When `realpath` says an entry does not exist, `lstat` tells a truly
/// missing entry (keep walking up) from a dangling symbolic link, which is
/// rejected: writing through it would create its target wherever it
/// points. A loop of links is rejected, and so is any other error
/// (permission denied, I/O error, a file where a folder belongs): when
/// containment cannot be proven, the answer is no.
pub fn realpath_deepest_existing(path: &Path) -> Result<PathBuf, PathTraversalError> {
    realpath_with(&RealFs, path)
}

/// The two filesystem calls of [`realpath_deepest_existing`], behind a
/// seam so that errors a test cannot provoke (running as root, EACCES never
/// happens) are still tested.
pub(crate) trait FsProbe {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    fn symlink_metadata(&self, path: &Path) -> io::Result<()>;
}

struct RealFs;

impl FsProbe for RealFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        // Kept verbatim on Windows (`\\?\C:\…`): containment compares two
        // answers of this same call, and simplifying one but not the other
        // (a long path stays verbatim) would make a file inside the team
        // folder look outside it.
        std::fs::canonicalize(path)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<()> {
        std::fs::symlink_metadata(path).map(|_| ())
    }
}

/// `ELOOP`, which `std` does not name as a stable error kind.
fn is_loop(e: &io::Error) -> bool {
    let eloop = if cfg!(any(
        target_os = "macos",
        target_os = "ios",
        target_os = "freebsd"
    )) {
        62
    } else {
        40
    };
    cfg!(unix) && e.raw_os_error() == Some(eloop)
}

pub(crate) fn realpath_with(fs: &impl FsProbe, path: &Path) -> Result<PathBuf, PathTraversalError> {
    let error = |reason| PathTraversalError {
        input: path.display().to_string(),
        reason,
    };
    let mut current = path.to_owned();
    let mut missing: Vec<OsString> = Vec::new();
    loop {
        match fs.canonicalize(&current) {
            Ok(mut real) => {
                for name in missing.iter().rev() {
                    real.push(name);
                }
                return Ok(real);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs.symlink_metadata(&current) {
                Ok(()) => return Err(error(TraversalReason::DanglingSymlink)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) if is_loop(&e) => return Err(error(TraversalReason::SymlinkLoop)),
                Err(e) => return Err(error(TraversalReason::Unverifiable(e.kind()))),
            },
            Err(e) if is_loop(&e) => return Err(error(TraversalReason::SymlinkLoop)),
            Err(e) => return Err(error(TraversalReason::Unverifiable(e.kind()))),
        }
        // A missing `..` cannot be re-appended faithfully; refuse rather
        // than guess.
        match (current.file_name(), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name.to_owned());
                current = parent.to_owned();
            }
            _ => {
                return Err(error(TraversalReason::Unverifiable(
                    io::ErrorKind::NotFound,
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests;
