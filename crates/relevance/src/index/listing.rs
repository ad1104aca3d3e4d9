//! Listing a memory folder's directories without reading or stat'ing its
//! files: a directory's listing gives each entry's name, type and inode,
//! which is what tells a new, removed or replaced memory from one left
//! alone.

use std::cell::OnceCell;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use memdir_scan::{is_memory_name, resolves_inside};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir};

/// A time this close to now (in nanoseconds) may be followed by a change
/// within the same clock tick, which would leave it as it is: it is stored
/// as unknown (`-1`), so the next look checks again. File systems with
/// nanosecond times stamp with the kernel's coarse clock, one tick (at
/// most 10 ms) behind; those with whole seconds (FAT, some network file
/// systems) need two.
pub(crate) const RACY_NS: i64 = 20_000_000;
/// The same for a time in whole seconds: a file system with coarse times.
pub(crate) const RACY_COARSE_NS: i64 = 2_000_000_000;

/// One directory of the folder as listed.
#[derive(Debug, Default)]
pub(crate) struct DirListing {
    /// Its modification time as stat'ed before the listing, or `-1` when
    /// that was too recent to trust.
    pub mtime_ns: i64,
    /// Its memory files' names, one after another ([`DirListing::files`]
    /// reads them): one allocation for the directory, not one per file.
    names: String,
    /// Each memory file: where its name ends in `names`, its inode (of
    /// the link, for a link) and its [`name_hash`].
    ends: Vec<(usize, u64, u64)>,
    /// Its subdirectories that a scan enters (not hidden, not links).
    pub dirs: Vec<String>,
}

impl DirListing {
    fn push_file(&mut self, name: &str, ino: u64) {
        self.names.push_str(name);
        self.ends.push((self.names.len(), ino, name_hash(name)));
    }

    /// Its memory files: name, inode and [`name_hash`].
    pub(crate) fn files(&self) -> impl Iterator<Item = (&str, u64, u64)> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().map(|(end, _, _)| *end));
        starts
            .zip(&self.ends)
            .map(|(start, (end, ino, hash))| (&self.names[start..*end], *ino, *hash))
    }
}

/// The memory folder's root, with its real path resolved once when a link
/// needs a containment check.
pub(crate) struct Root<'a> {
    pub path: &'a Path,
    real: OnceCell<Option<PathBuf>>,
}

impl<'a> Root<'a> {
    pub(crate) fn new(path: &'a Path) -> Self {
        Root {
            path,
            real: OnceCell::new(),
        }
    }

    fn real(&self) -> Option<&Path> {
        self.real
            .get_or_init(|| fs::canonicalize(self.path).ok())
            .as_deref()
    }

    /// The full path of a folder-relative path (`""` is the root).
    pub(crate) fn join(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.path.to_owned()
        } else {
            self.path.join(rel)
        }
    }

    /// Lists the directory `rel` (`""` for the root): what a scan would
    /// take from it. Names that are not UTF-8, hidden entries, links that
    /// leave the folder or point at a folder, and special files are left
    /// out, as the scan leaves them out.
    pub(crate) fn list(&self, rel: &str, now_ns: i64) -> io::Result<DirListing> {
        let dir = self.join(rel);
        let fd = rustix::fs::open(
            &dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        // The time before the entries: a change while they are read
        // moves it past what is stored.
        let st = rustix::fs::fstat(&fd)?;
        // A directory's size is about the bytes of its entries (ext4,
        // XFS, btrfs): room for every name without growing, which would
        // copy them again. Pages not written to cost nothing.
        let room = usize::try_from(st.st_size).unwrap_or(0).min(64 << 20);
        let mut out = DirListing {
            mtime_ns: stable_ns(mtime_ns_of(&st), now_ns),
            names: String::with_capacity(room),
            ends: Vec::with_capacity(room / 24),
            dirs: Vec::new(),
        };
        // Entries straight from the kernel's buffer (a directory of 10,000
        // memories fills it a dozen times), their names copied into one
        // string.
        let mut buf = Vec::with_capacity(64 * 1024);
        let mut entries = RawDir::new(&fd, buf.spare_capacity_mut());
        while let Some(entry) = entries.next() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name.first() == Some(&b'.') {
                continue;
            }
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            let mut kind = entry.file_type();
            if kind == FileType::Unknown {
                // Some file systems leave the type out of the listing.
                match rustix::fs::statat(&fd, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => kind = FileType::from_raw_mode(st.st_mode),
                    Err(_) => continue,
                }
            }
            match kind {
                FileType::Directory => out.dirs.push(name.to_owned()),
                FileType::RegularFile if is_memory_name(name) => {
                    out.push_file(name, entry.ino());
                }
                FileType::Symlink if is_memory_name(name) => {
                    // A link counts only when it resolves to a file inside
                    // the folder.
                    let inside = self
                        .real()
                        .is_some_and(|real| resolves_inside(real, &dir.join(name)));
                    if inside {
                        out.push_file(name, entry.ino());
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// A stat's modification time in nanoseconds.
#[allow(
    clippy::useless_conversion,
    reason = "the seconds are an i64 on 64-bit targets, not on every target"
)]
pub(crate) fn mtime_ns_of(st: &rustix::fs::Stat) -> i64 {
    i64::from(st.st_mtime)
        .saturating_mul(1_000_000_000)
        .saturating_add(i64::try_from(st.st_mtime_nsec).unwrap_or(0))
}

/// A time as stored: `-1` when it is too close to `now_ns` to be sure a
/// later change would change it.
pub(crate) fn stable_ns(mtime_ns: i64, now_ns: i64) -> i64 {
    let window = if mtime_ns % 1_000_000_000 == 0 {
        RACY_COARSE_NS
    } else {
        RACY_NS
    };
    if now_ns.saturating_sub(mtime_ns) < window {
        -1
    } else {
        mtime_ns
    }
}

/// How many buckets a directory's [`Digest`] splits its memories into.
pub(crate) const BUCKETS: usize = 1 << 10;

/// A stable 64-bit hash of a file name: the same in every process and
/// every version, as the index keeps what it decides. Eight bytes at a
/// time (a directory of 10,000 names is hashed at every listing), then
/// mixed so that every bit depends on every byte.
pub(crate) fn name_hash(name: &str) -> u64 {
    let mut chunks = name.as_bytes().chunks_exact(8);
    let mut h = (name.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        h = (h.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(last)).wrapping_mul(0x517c_c1b7_2722_0a95);
    mix(h)
}

/// The finalizer of `SplitMix64`.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bucket of a file name (its last component) in its directory's
/// [`Digest`].
pub(crate) fn bucket_of(name: &str) -> u16 {
    bucket_of_hash(name_hash(name))
}

/// The bucket of a name's [`name_hash`].
pub(crate) fn bucket_of_hash(hash: u64) -> u16 {
    u16::try_from(hash >> 54).unwrap_or(0)
}

/// What one entry, its name's hash and inode, adds to its bucket.
fn entry_value(hash: u64, ino: u64) -> u64 {
    // A changed inode changes every bit.
    mix(hash ^ ino.wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The names and inodes of one directory's memories, summed per bucket
/// (in any order): two listings of a directory of 10,000 memories that
/// differ by one file differ in one bucket, so only that bucket's memories
/// need comparing by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digest(Vec<u64>);

impl Digest {
    pub(crate) fn new() -> Self {
        Digest(vec![0; BUCKETS])
    }

    /// The digest of `entries` (file name in its directory, inode).
    pub(crate) fn of<'n>(entries: impl IntoIterator<Item = (&'n str, u64)>) -> Self {
        let mut digest = Digest::new();
        for (name, ino) in entries {
            digest.add(name, ino);
        }
        digest
    }

    pub(crate) fn add(&mut self, name: &str, ino: u64) {
        self.add_hashed(name_hash(name), ino);
    }

    /// [`Digest::add`] for a name whose [`name_hash`] is known.
    pub(crate) fn add_hashed(&mut self, hash: u64, ino: u64) {
        let slot = &mut self.0[usize::from(bucket_of_hash(hash))];
        *slot = slot.wrapping_add(entry_value(hash, ino));
    }

    /// Replaces one bucket's sum with that of `entries`, all of that
    /// bucket.
    pub(crate) fn set_bucket<'n>(
        &mut self,
        bucket: u16,
        entries: impl IntoIterator<Item = (&'n str, u64)>,
    ) {
        self.0[usize::from(bucket)] = entries.into_iter().fold(0u64, |sum, (name, ino)| {
            sum.wrapping_add(entry_value(name_hash(name), ino))
        });
    }

    /// The buckets whose sums differ.
    pub(crate) fn differing<'s>(&'s self, other: &'s Digest) -> impl Iterator<Item = u16> + 's {
        (0u16..)
            .zip(self.0.iter().zip(&other.0))
            .filter(|(_, (a, b))| a != b)
            .map(|(i, _)| i)
    }

    /// As stored: little-endian sums, one after the other.
    pub(crate) fn to_blob(&self) -> Vec<u8> {
        self.0.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A stored digest, or `None` for one of another shape.
    pub(crate) fn from_blob(blob: &[u8]) -> Option<Self> {
        (blob.len() == BUCKETS * 8).then(|| {
            Digest(
                blob.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )
        })
    }
}

/// `rel/name`, or `name` at the root.
pub(crate) fn child(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// The directory part of a folder-relative file name (`""` at the root).
pub(crate) fn parent(filename: &str) -> &str {
    filename.rsplit_once('/').map_or("", |(dir, _)| dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn lists_what_a_scan_takes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::write(p.join("a.md"), "x").unwrap();
        fs::write(p.join("MEMORY.md"), "x").unwrap();
        fs::write(p.join(".hidden.md"), "x").unwrap();
        fs::write(p.join("notes.txt"), "x").unwrap();
        fs::create_dir(p.join("team")).unwrap();
        fs::create_dir(p.join(".conflicts")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(p.join("a.md"), p.join("link.md")).unwrap();
            std::os::unix::fs::symlink("/etc/hostname", p.join("out.md")).unwrap();
        }
        let root = Root::new(p);
        let listed = root.list("", super::super::now_ns()).unwrap();
        let mut names: Vec<&str> = listed.files().map(|(n, _, _)| n).collect();
        names.sort_unstable();
        #[cfg(unix)]
        assert_eq!(names, ["a.md", "link.md"]);
        assert_eq!(listed.dirs, ["team"]);
        assert_eq!(listed.mtime_ns, -1, "a time just now is not trusted");
        assert_eq!(parent("team/x.md"), "team");
        assert_eq!(parent("x.md"), "");
        assert_eq!(child("", "x.md"), "x.md");
    }

    #[test]
    fn a_digest_tells_which_bucket_changed() {
        let names: Vec<String> = (0..5000).map(|i| format!("memory-{i}.md")).collect();
        let before = Digest::of(names.iter().map(|n| (n.as_str(), 7)));
        let reordered = Digest::of(names.iter().rev().map(|n| (n.as_str(), 7)));
        assert_eq!(before, reordered, "order does not count");
        // One file replaced (a new inode), one added, one removed.
        let mut after = Digest::of(
            names
                .iter()
                .filter(|n| *n != "memory-3.md")
                .map(|n| (n.as_str(), if n == "memory-9.md" { 8 } else { 7 })),
        );
        after.add("new.md", 1);
        let differing: Vec<u16> = before.differing(&after).collect();
        let mut expected = vec![
            bucket_of("memory-3.md"),
            bucket_of("memory-9.md"),
            bucket_of("new.md"),
        ];
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(differing, expected);
        // A bucket summed again from its entries matches the listing's.
        let b = bucket_of("new.md");
        let mut rebuilt = before.clone();
        rebuilt.set_bucket(
            b,
            names
                .iter()
                .filter(|n| bucket_of(n) == b && *n != "memory-3.md")
                .map(|n| (n.as_str(), if n == "memory-9.md" { 8 } else { 7 }))
                .chain([("new.md", 1)]),
        );
        assert!(rebuilt.differing(&after).all(|x| x != b));
        assert_eq!(Digest::from_blob(&after.to_blob()), Some(after));
        assert_eq!(Digest::from_blob(&[0; 12]), None);
        // Names spread over the buckets.
        let used: HashSet<u16> = names.iter().map(|n| bucket_of(n)).collect();
        assert!(used.len() > BUCKETS * 9 / 10, "{} buckets used", used.len());
    }
}
