//! Which files a turn wrote (SPEC R15.3): one recursive listing of the
//! outputs folder with file types, then a parallel stat of the regular
//! files it found.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use memdir_memtypes::walk::{EntryKind, Hidden, Walk, WalkError};

use crate::error::PersistError;

/// The most threads that stat files at once.
const STAT_WORKERS: usize = 4;
/// Files per stat thread before another thread is worth starting.
const FILES_PER_WORKER: usize = 32;

/// Why an entry of the outputs folder is not a candidate for upload.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// A symbolic link, to a file or a folder: never followed.
    Symlink,
    /// A FIFO, a socket, a device: never opened.
    NotRegular {
        /// What it is (`a FIFO`, `a socket`, `a device`, …).
        kind: &'static str,
    },
    /// It was listed, then gone before it could be inspected.
    Vanished,
    /// Its real location is outside the outputs folder.
    OutsideFolder,
    /// Its name is not UTF-8, so it cannot be named in an upload.
    NonUtf8Name,
    /// It could not be inspected.
    Unreadable {
        /// What the system reported, on one line.
        error: String,
    },
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Symlink => f.write_str("a symbolic link, never followed"),
            SkipReason::NotRegular { kind } => write!(f, "{kind}, not a regular file"),
            SkipReason::Vanished => f.write_str("removed while the folder was read"),
            SkipReason::OutsideFolder => f.write_str("it resolves outside the outputs folder"),
            SkipReason::NonUtf8Name => f.write_str("its name is not UTF-8"),
            SkipReason::Unreadable { error } => write!(f, "cannot inspect it: {error}"),
        }
    }
}

/// An entry left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The path relative to the outputs folder (lossy for a name that is
    /// not UTF-8).
    pub path: String,
    /// Why.
    pub reason: SkipReason,
}

/// A regular file modified at or after the turn's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFile {
    /// The path relative to the outputs folder, `/`-separated.
    pub rel: String,
    /// Its size when it was inspected.
    pub len: u64,
    /// Its modification time.
    pub modified: SystemTime,
}

/// What [`find_modified_files`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Found {
    /// The outputs folder as resolved (its canonical path), when it exists.
    pub root: Option<PathBuf>,
    /// The files modified since the turn started, sorted by path.
    pub files: Vec<FoundFile>,
    /// How many regular files were older than the turn.
    pub unchanged: usize,
    /// What was left out, and why, in listing order.
    pub skipped: Vec<Skipped>,
}

impl Found {
    /// How many entries vanished between listing and stat.
    #[must_use]
    pub fn vanished(&self) -> usize {
        self.skipped
            .iter()
            .filter(|s| s.reason == SkipReason::Vanished)
            .count()
    }
}

/// One listing of an outputs folder: its regular files by path, and what
/// was left out at once. [`Listing::modified_since`] then inspects the
/// files; the two steps are apart so that the race between them can be
/// shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Listing {
    root: Option<PathBuf>,
    files: Vec<String>,
    skipped: Vec<Skipped>,
}

impl Listing {
    /// Lists `outputs_dir` recursively, hidden entries included, links
    /// never followed. A missing folder lists as empty; a folder that is a
    /// symbolic link, or not a folder, is an error.
    pub fn read(outputs_dir: &Path) -> Result<Listing, PersistError> {
        let list_error = |source| PersistError::ListOutputs {
            path: outputs_dir.to_owned(),
            source,
        };
        let meta = match std::fs::symlink_metadata(outputs_dir) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(list_error(e)),
        };
        if !meta.is_dir() {
            return Err(PersistError::OutputsNotAFolder {
                path: outputs_dir.to_owned(),
                kind: memdir_memtypes::not_a_file(&meta).unwrap_or("a regular file"),
            });
        }
        let root = match std::fs::canonicalize(outputs_dir) {
            Ok(root) => root,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(list_error(e)),
        };
        let mut listing = Listing {
            root: Some(root.clone()),
            files: Vec::new(),
            skipped: Vec::new(),
        };
        for entry in Walk::new(&root).hidden(Hidden::Include) {
            match entry {
                Ok(entry) => listing.add(entry.rel(), entry.kind()),
                Err(WalkError::Root { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                    return Ok(Listing::default());
                }
                Err(WalkError::Root { source, .. }) => return Err(list_error(source)),
                Err(e) => listing.skip_error(&root, &e),
            }
        }
        Ok(listing)
    }

    /// How many regular files were listed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no regular file was listed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn add(&mut self, rel: &str, kind: EntryKind) {
        let reason = match kind {
            EntryKind::File => {
                self.files.push(rel.to_owned());
                return;
            }
            EntryKind::Folder => return,
            EntryKind::Symlink => SkipReason::Symlink,
            other => SkipReason::NotRegular {
                kind: other.describe(),
            },
        };
        self.skipped.push(Skipped {
            path: rel.to_owned(),
            reason,
        });
    }

    fn skip_error(&mut self, root: &Path, error: &WalkError) {
        let reason = match error {
            WalkError::NonUtf8Name { .. } => SkipReason::NonUtf8Name,
            e if e.is_not_found() => SkipReason::Vanished,
            e => SkipReason::Unreadable {
                error: one_line_io(e),
            },
        };
        let path = error.path().strip_prefix(root).unwrap_or(error.path());
        self.skipped.push(Skipped {
            path: path.to_string_lossy().into_owned(),
            reason,
        });
    }

    /// Inspects the listed files in parallel and keeps the regular files
    /// modified at or after `turn_start`. A file gone since the listing is
    /// skipped as [`SkipReason::Vanished`]; one that became a link, or
    /// resolves outside the folder, is skipped too.
    #[must_use]
    pub fn modified_since(&self, turn_start: SystemTime) -> Found {
        let Some(root) = &self.root else {
            return Found::default();
        };
        let outcomes = stat_all(root, &self.files);
        let mut found = Found {
            root: Some(root.clone()),
            files: Vec::new(),
            unchanged: 0,
            skipped: self.skipped.clone(),
        };
        for (rel, outcome) in self.files.iter().zip(outcomes) {
            match outcome {
                Stat::File { len, modified } if modified >= turn_start => {
                    found.files.push(FoundFile {
                        rel: rel.clone(),
                        len,
                        modified,
                    });
                }
                Stat::File { .. } => found.unchanged += 1,
                Stat::Skip(reason) => found.skipped.push(Skipped {
                    path: rel.clone(),
                    reason,
                }),
            }
        }
        found
    }
}

/// The regular files of `outputs_dir` modified at or after `turn_start`
/// (R15.3): [`Listing::read`], then [`Listing::modified_since`].
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use memdir_filepersist::find_modified_files;
///
/// let dir = tempfile::tempdir()?;
/// let start = SystemTime::now() - Duration::from_secs(5);
/// std::fs::create_dir(dir.path().join("charts"))?;
/// std::fs::write(dir.path().join("charts/q3.csv"), "a,b\n")?;
/// let found = find_modified_files(start, dir.path())?;
/// assert_eq!(found.files[0].rel, "charts/q3.csv");
/// // A folder that does not exist holds nothing to upload.
/// assert!(find_modified_files(start, &dir.path().join("none"))?.files.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_modified_files(
    turn_start: SystemTime,
    outputs_dir: &Path,
) -> Result<Found, PersistError> {
    Ok(Listing::read(outputs_dir)?.modified_since(turn_start))
}

/// What the stat of one listed file said.
enum Stat {
    File { len: u64, modified: SystemTime },
    Skip(SkipReason),
}

/// Stats every file, in parallel, in the order given.
fn stat_all(root: &Path, files: &[String]) -> Vec<Stat> {
    let workers = files
        .len()
        .div_ceil(FILES_PER_WORKER)
        .clamp(1, STAT_WORKERS);
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, Stat)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rel) = files.get(i) else { break };
                        done.push((i, stat_one(root, rel)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a stat worker does not panic"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, stat)| stat).collect()
}

fn stat_one(root: &Path, rel: &str) -> Stat {
    let path = root.join(rel);
    let gone_or = |e: io::Error| {
        Stat::Skip(if e.kind() == io::ErrorKind::NotFound {
            SkipReason::Vanished
        } else {
            SkipReason::Unreadable {
                error: e.to_string(),
            }
        })
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) => return gone_or(e),
    };
    if meta.file_type().is_symlink() {
        return Stat::Skip(SkipReason::Symlink);
    }
    if let Some(kind) = memdir_memtypes::not_a_file(&meta) {
        return Stat::Skip(SkipReason::NotRegular { kind });
    }
    // A folder above it may have been swapped for a link since the
    // listing: judge where the file really is.
    match std::fs::canonicalize(&path) {
        Ok(real) if real.starts_with(root) => {}
        Ok(_) => return Stat::Skip(SkipReason::OutsideFolder),
        Err(e) => return gone_or(e),
    }
    match meta.modified() {
        Ok(modified) => Stat::File {
            len: meta.len(),
            modified,
        },
        Err(e) => gone_or(e),
    }
}

/// A walk error and its cause, on one line.
fn one_line_io(error: &WalkError) -> String {
    let mut text = error.to_string();
    if let Some(source) = std::error::Error::source(error) {
        text.push_str(": ");
        text.push_str(&source.to_string());
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
