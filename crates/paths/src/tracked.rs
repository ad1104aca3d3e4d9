//! Whether the project's git tracks a file, read from git's index without
//! running git (SPEC R4.3: a `settings.local.json` that git tracks is the
//! repository's word, not the user's).
//!
//! The index format (git's `Documentation/gitformat-index.txt`): a header
//! `DIRC`, a version (2, 3 or 4) and an entry count; then the entries,
//! sorted by path, each a fixed block of stat data, mode, object name and
//! flags followed by its path, NUL-padded to a multiple of eight bytes in
//! versions 2 and 3 and prefix-compressed against the previous path in
//! version 4; then extensions and a checksum. A split index keeps most
//! entries in a shared index named by its `link` extension, which is read
//! too; a sparse index holds whole folders as entries ending with `/`.
//!
//! The reader answers for a few paths and fails safe: whatever it cannot
//! read is an error, which callers take as "tracked".

use std::io::Read;
use std::path::{Path, PathBuf};

use memdir_memtypes::{ReadError, not_a_file, open_nonblocking};

use crate::root::own_git_dir;
use crate::{git_common_dir, git_config_value};

/// The largest index read: tens of bytes per tracked file, so room for
/// millions of files.
pub const MAX_GIT_INDEX_BYTES: u64 = 512 * 1024 * 1024;

/// Why git's index could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitIndexError {
    /// The working tree's `.git` file does not lead to a git dir.
    #[error("cannot follow {} to its git dir", path.display())]
    NoGitDir {
        /// The `.git` file.
        path: PathBuf,
    },
    /// The index or its shared index cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The index is not in a format this reader knows.
    #[error("cannot read git's index {}: {what}", path.display())]
    Format {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
}

/// Whether git's index for the working tree `work_tree` holds any of
/// `paths` (`/`-separated, relative to the working tree), compared without
/// regard to ASCII case as a case-insensitive checkout would; a sparse
/// index's folder entry holds every path below it. `Ok(false)` when the
/// working tree is not in git or has no index yet (nothing was ever
/// added).
///
/// The index read is the working tree's own: a linked worktree's or a
/// submodule's, found through its `.git` file.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// assert!(!memdir_paths::git_index_holds(dir.path(), &[".claude/settings.local.json"])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn git_index_holds(work_tree: &Path, paths: &[&str]) -> Result<bool, GitIndexError> {
    let dot_git = work_tree.join(".git");
    if std::fs::symlink_metadata(&dot_git).is_err() {
        return Ok(false);
    }
    let git_dir = own_git_dir(work_tree).ok_or(GitIndexError::NoGitDir { path: dot_git })?;
    let index = git_dir.join("index");
    let hash_len = hash_len(work_tree);
    let wanted: Vec<&[u8]> = paths.iter().map(|p| p.as_bytes()).collect();
    // A split index names its shared index in an extension after the
    // entries, so it is read to the end; any other stops at the place its
    // sorted entries pass the paths wanted (`.claude/` comes early).
    let split = has_shared_index(&git_dir);
    let Some(parsed) = read_index(&index, hash_len, &wanted, !split)? else {
        return Ok(false);
    };
    if parsed.found {
        return Ok(true);
    }
    let Some(shared) = parsed.shared else {
        return Ok(false);
    };
    // The entries not changed since the shared index was written are only
    // there. An entry the split index deletes is still taken as held: the
    // answer errs towards "tracked".
    let shared = git_dir.join(format!("sharedindex.{}", hex(&shared)));
    match read_index(&shared, hash_len, &wanted, true)? {
        Some(parsed) => Ok(parsed.found),
        None => Err(GitIndexError::Format {
            path: index,
            what: format!("its shared index {} is missing", shared.display()),
        }),
    }
}

/// Whether the git dir holds a shared index (`sharedindex.<name>`), which
/// only a split index uses.
fn has_shared_index(git_dir: &Path) -> bool {
    std::fs::read_dir(git_dir).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            e.file_name()
                .as_encoded_bytes()
                .starts_with(b"sharedindex.")
        })
    })
}

/// Reads the index at `path` as far as needed: `None` when there is none.
fn read_index(
    path: &Path,
    hash_len: usize,
    wanted: &[&[u8]],
    stop_early: bool,
) -> Result<Option<Parsed>, GitIndexError> {
    let read_error = |source| ReadError::Io {
        path: path.to_owned(),
        source,
    };
    let file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_error(e).into()),
    };
    let meta = file.metadata().map_err(read_error)?;
    if let Some(kind) = not_a_file(&meta) {
        return Err(ReadError::NotAFile {
            path: path.to_owned(),
            kind,
        }
        .into());
    }
    if meta.len() > MAX_GIT_INDEX_BYTES {
        return Err(ReadError::TooLarge {
            path: path.to_owned(),
            limit: MAX_GIT_INDEX_BYTES,
        }
        .into());
    }
    let len = usize::try_from(meta.len()).map_err(|e| GitIndexError::Format {
        path: path.to_owned(),
        what: e.to_string(),
    })?;
    let mut cursor = Cursor {
        bytes: Vec::new(),
        at: 0,
        len,
        source: file,
    };
    let parsed = parse(&mut cursor, hash_len, wanted, stop_early).map_err(|what| match what {
        Broken::Io(source) => GitIndexError::Read(read_error(source)),
        Broken::Format(what) => GitIndexError::Format {
            path: path.to_owned(),
            what,
        },
    })?;
    Ok(Some(parsed))
}

/// The length of an object name in this repository: 32 bytes for SHA-256
/// (`extensions.objectFormat = sha256`), else 20 for SHA-1.
fn hash_len(work_tree: &Path) -> usize {
    let sha256 = git_common_dir(work_tree)
        .and_then(|common| std::fs::read_to_string(common.join("config")).ok())
        .and_then(|config| git_config_value(&config, "extensions", None, "objectformat"))
        .is_some_and(|format| format.eq_ignore_ascii_case("sha256"));
    if sha256 { 32 } else { 20 }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// What a pass over one index found.
#[derive(Debug, PartialEq, Eq)]
struct Parsed {
    /// Whether an entry matched a wanted path.
    found: bool,
    /// The shared index's object name, when this is a split index.
    shared: Option<Vec<u8>>,
}

/// Why an index could not be read through.
#[derive(Debug)]
enum Broken {
    /// Reading the file failed.
    Io(std::io::Error),
    /// The bytes are not an index this reader knows.
    Format(String),
}

impl From<String> for Broken {
    fn from(what: String) -> Self {
        Broken::Format(what)
    }
}

/// An index file, read front to back, a block at a time as far as the
/// parse goes.
struct Cursor<R> {
    /// What was read so far.
    bytes: Vec<u8>,
    /// Where the parse is.
    at: usize,
    /// The file's length.
    len: usize,
    source: R,
}

/// How much more of the file is read at a time.
const BLOCK: usize = 64 * 1024;

impl<R: Read> Cursor<R> {
    /// Reads until `end` bytes are in (or the file ends).
    fn fill(&mut self, end: usize) -> Result<(), Broken> {
        while self.bytes.len() < end.min(self.len) {
            let want = (end.max(self.bytes.len() + BLOCK)).min(self.len) - self.bytes.len();
            let before = self.bytes.len();
            (&mut self.source)
                .take(want as u64)
                .read_to_end(&mut self.bytes)
                .map_err(Broken::Io)?;
            if self.bytes.len() == before {
                // The file is shorter than its length said: it changed.
                self.len = before;
            }
        }
        Ok(())
    }

    fn take(&mut self, n: usize) -> Result<&[u8], Broken> {
        let end = self
            .at
            .checked_add(n)
            .ok_or_else(|| format!("it ends inside the entry at byte {}", self.at))?;
        self.fill(end)?;
        if end > self.bytes.len() {
            return Err(format!("it ends inside the entry at byte {}", self.at).into());
        }
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16, Broken> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, Broken> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The bytes up to the next NUL, which is skipped.
    fn until_nul(&mut self) -> Result<Vec<u8>, Broken> {
        let start = self.at;
        loop {
            if let Some(len) = self.bytes[self.at..].iter().position(|&b| b == 0) {
                let name = self.bytes[start..self.at + len].to_vec();
                self.at += len + 1;
                return Ok(name);
            }
            let had = self.bytes.len();
            self.at = had;
            self.fill(had + 1)?;
            if self.bytes.len() == had {
                return Err(format!("the path at byte {start} has no end").into());
            }
        }
    }

    /// Git's variable-length integer of index version 4: seven bits a
    /// byte, most significant first, each continuation adding one.
    fn varint(&mut self) -> Result<usize, Broken> {
        let start = self.at;
        let overflow = || format!("a length at byte {start} is too large");
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value
                .checked_add(1)
                .and_then(|v| v.checked_mul(128))
                .ok_or_else(overflow)?
                | usize::from(byte & 0x7f);
        }
        Ok(value)
    }
}

/// Whether `name` (an index entry's path) holds `wanted`: the same path,
/// or a sparse folder entry (`dir/`) above it.
fn holds(name: &[u8], wanted: &[u8]) -> bool {
    if name.eq_ignore_ascii_case(wanted) {
        return true;
    }
    name.last() == Some(&b'/')
        && wanted.len() > name.len()
        && wanted[..name.len()].eq_ignore_ascii_case(name)
}

/// Reads an index's entries, looking for `wanted`, then (unless
/// `stop_early` found its answer before) its `link` extension. With
/// `stop_early` the read ends at the first entry that sorts after every
/// spelling of every wanted path: git keeps entries sorted by their bytes.
fn parse<R: Read>(
    cur: &mut Cursor<R>,
    hash_len: usize,
    wanted: &[&[u8]],
    stop_early: bool,
) -> Result<Parsed, Broken> {
    if cur.take(4).map_err(|_| "it is too short".to_owned())? != b"DIRC" {
        return Err("it does not start with DIRC".to_owned().into());
    }
    let version = cur.u32()?;
    if !(2..=4).contains(&version) {
        return Err(format!("version {version} is not 2, 3 or 4").into());
    }
    let count = cur.u32()?;
    // Of the spellings of a path that differ only in ASCII case, the
    // lower-case one sorts last.
    let last = wanted.iter().map(|w| w.to_ascii_lowercase()).max();
    let mut found = false;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = cur.at;
        // ctime, mtime, dev, ino, mode, uid, gid, size; the object name.
        cur.take(40 + hash_len)?;
        let flags = cur.u16()?;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return Err(
                    format!("the entry at byte {start} has extended flags in version 2").into(),
                );
            }
            cur.u16()?;
        }
        if version == 4 {
            let strip = cur.varint()?;
            let keep = previous.len().checked_sub(strip).ok_or_else(|| {
                format!("the entry at byte {start} removes more than the previous path")
            })?;
            previous.truncate(keep);
            previous.extend_from_slice(&cur.until_nul()?);
        } else {
            previous = cur.until_nul()?;
            // The entry is NUL-padded to a multiple of eight bytes (the
            // NUL just read is the first of one to eight).
            let len = cur.at - start;
            cur.take((8 - len % 8) % 8)?;
        }
        if wanted.iter().any(|w| holds(&previous, w)) {
            found = true;
            if stop_early {
                return Ok(Parsed {
                    found,
                    shared: None,
                });
            }
        }
        if stop_early
            && last
                .as_deref()
                .is_some_and(|last| previous.as_slice() > last)
        {
            return Ok(Parsed {
                found,
                shared: None,
            });
        }
    }
    // Extensions, then the checksum of everything before it.
    let mut shared = None;
    let end = cur
        .len
        .checked_sub(hash_len)
        .filter(|&end| end >= cur.at)
        .ok_or_else(|| "it ends before its checksum".to_owned())?;
    while cur.at + 8 <= end {
        let signature = cur.take(4)?.to_vec();
        let size = usize::try_from(cur.u32()?).map_err(|e| e.to_string())?;
        let data = cur.take(size)?;
        if signature == b"link" {
            let name = data
                .get(..hash_len)
                .ok_or_else(|| "its link extension is too short".to_owned())?;
            if name.iter().any(|&b| b != 0) {
                shared = Some(name.to_vec());
            }
        }
    }
    Ok(Parsed { found, shared })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `bytes` as an index file.
    fn parse_bytes(bytes: &[u8], wanted: &[&[u8]], stop_early: bool) -> Result<Parsed, String> {
        let mut cur = Cursor {
            bytes: Vec::new(),
            at: 0,
            len: bytes.len(),
            source: bytes,
        };
        parse(&mut cur, 20, wanted, stop_early).map_err(|e| match e {
            Broken::Format(what) => what,
            Broken::Io(e) => e.to_string(),
        })
    }

    /// A version-2 index of `names`, each entry padded as git pads it.
    fn index_v2(names: &[&str]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(2u32.to_be_bytes());
        out.extend(u32::try_from(names.len()).unwrap().to_be_bytes());
        for name in names {
            let start = out.len();
            out.extend([0u8; 40 + 20]);
            out.extend(u16::try_from(name.len()).unwrap().to_be_bytes());
            out.extend(name.as_bytes());
            out.push(0);
            while !(out.len() - start).is_multiple_of(8) {
                out.push(0);
            }
        }
        out.extend([0u8; 20]);
        out
    }

    #[test]
    fn entries_match_exactly_by_folder_or_without_case() {
        let bytes = index_v2(&[".claude/settings.local.json", "a.txt", "z"]);
        let check = |wanted: &str| {
            parse_bytes(&bytes, &[wanted.as_bytes()], true)
                .unwrap()
                .found
        };
        assert!(check(".claude/settings.local.json"));
        assert!(check(".CLAUDE/Settings.Local.JSON"));
        assert!(!check(".claude"));
        assert!(!check(".claude/settings.json"));
        let sparse = index_v2(&[".claude/", "b"]);
        assert!(
            parse_bytes(&sparse, &[b".claude/settings.local.json"], false)
                .unwrap()
                .found
        );
        assert!(!parse_bytes(&sparse, &[b".claude"], false).unwrap().found);
    }

    #[test]
    fn damaged_indexes_are_errors_not_answers() {
        let good = index_v2(&["a", "b"]);
        for (bytes, what) in [
            (b"DIRX".to_vec(), "it does not start with DIRC"),
            (good[..good.len() - 30].to_vec(), "it ends"),
            (
                [&good[..4], &5u32.to_be_bytes()[..], &good[8..]].concat(),
                "version 5 is not 2, 3 or 4",
            ),
            (
                [&good[..8], &9u32.to_be_bytes()[..], &good[12..]].concat(),
                "it ends",
            ),
        ] {
            let err = parse_bytes(&bytes, &[b"a"], false).unwrap_err();
            assert!(err.starts_with(what), "{err}");
        }
        // A version-4 entry that strips more than the previous path.
        let mut v4 = b"DIRC".to_vec();
        v4.extend(4u32.to_be_bytes());
        v4.extend(1u32.to_be_bytes());
        v4.extend([0u8; 60]);
        v4.extend(1u16.to_be_bytes());
        v4.extend([3, b'a', 0]);
        v4.extend([0u8; 20]);
        let err = parse_bytes(&v4, &[b"a"], false).unwrap_err();
        assert!(err.contains("removes more than the previous path"), "{err}");
    }

    #[test]
    fn the_read_stops_once_the_sorted_entries_pass_the_paths_wanted() {
        // Garbage after the third entry: never reached when the entries
        // before it already sort after every spelling of the paths.
        let mut bytes = index_v2(&[".claude/a", ".claude/settings.local.json", ".d"]);
        bytes.truncate(bytes.len() - 20);
        bytes.extend([0xff; 7]);
        let wanted: &[&[u8]] = &[b".claude/settings.local.json"];
        assert!(parse_bytes(&bytes, wanted, true).unwrap().found);
        let absent: &[&[u8]] = &[b".claude/b", b".CLAUDE/B"];
        assert!(!parse_bytes(&bytes, absent, true).unwrap().found);
        assert!(parse_bytes(&bytes, absent, false).is_err());
        // Upper case sorts first: an entry in capitals is still found.
        let upper = index_v2(&[".CLAUDE/SETTINGS.LOCAL.JSON", ".a"]);
        assert!(parse_bytes(&upper, wanted, true).unwrap().found);
    }

    #[test]
    fn a_split_index_names_its_shared_index() {
        let mut bytes = index_v2(&["a"]);
        bytes.truncate(bytes.len() - 20);
        bytes.extend(b"link");
        bytes.extend(20u32.to_be_bytes());
        bytes.extend([0xab; 20]);
        bytes.extend([0u8; 20]);
        let parsed = parse_bytes(&bytes, &[b"b"], false).unwrap();
        assert_eq!(parsed.shared, Some(vec![0xab; 20]));
        assert_eq!(hex(&[0xab, 0x01]), "ab01");
    }

    #[test]
    fn varints_are_gits_offset_encoding() {
        for (bytes, value) in [
            (&[0x00][..], 0),
            (&[0x7f], 127),
            (&[0x80, 0x00], 128),
            (&[0x80, 0x7f], 255),
            (&[0x81, 0x00], 256),
            (&[0xff, 0x7f], 16_511),
            (&[0x80, 0x80, 0x00], 16_512),
        ] {
            let mut cur = Cursor {
                bytes: Vec::new(),
                at: 0,
                len: bytes.len(),
                source: bytes,
            };
            assert_eq!(cur.varint().unwrap(), value, "{bytes:?}");
            assert_eq!(cur.at, bytes.len());
        }
        let endless: &[u8] = &[0xff; 16];
        let mut endless = Cursor {
            bytes: Vec::new(),
            at: 0,
            len: endless.len(),
            source: endless,
        };
        assert!(endless.varint().is_err());
    }
}
