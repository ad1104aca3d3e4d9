//! Listing a memory folder's directories without reading or stat'ing its
//! files: a directory's listing gives each entry's name, type and inode,
//! which is what tells a new, removed or replaced memory from one left
//! alone.

use std::cell::OnceCell;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use memdir_memtypes::walk::is_hidden;
use memdir_scan::is_memory_name;

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
    /// Its memory files: name and inode (of the link, for a link).
    pub files: Vec<(String, u64)>,
    /// Its subdirectories that a scan enters (not hidden, not links).
    pub dirs: Vec<String>,
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
        let meta = fs::metadata(&dir)?;
        let mtime_ns = stable_ns(memdir_scan::FileStamp::of(&meta).mtime_ns, now_ns);
        let mut out = DirListing {
            mtime_ns,
            ..DirListing::default()
        };
        for entry in fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if is_hidden(&name) {
                continue;
            }
            let Some(name) = name.to_str() else { continue };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            #[cfg(unix)]
            let ino = std::os::unix::fs::DirEntryExt::ino(&entry);
            #[cfg(not(unix))]
            let ino = 0;
            if kind.is_dir() {
                out.dirs.push(name.to_owned());
            } else if kind.is_file() {
                if is_memory_name(name) {
                    out.files.push((name.to_owned(), ino));
                }
            } else if kind.is_symlink() && is_memory_name(name) {
                // A link counts only when it resolves to a file inside the
                // folder.
                let inside = fs::canonicalize(entry.path()).is_ok_and(|target| {
                    self.real().is_some_and(|real| target.starts_with(real)) && target.is_file()
                });
                if inside {
                    out.files.push((name.to_owned(), ino));
                }
            }
        }
        Ok(out)
    }
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
        let mut listed = root.list("", super::super::now_ns()).unwrap();
        listed.files.sort();
        let names: Vec<&str> = listed.files.iter().map(|(n, _)| n.as_str()).collect();
        #[cfg(unix)]
        assert_eq!(names, ["a.md", "link.md"]);
        assert_eq!(listed.dirs, ["team"]);
        assert_eq!(listed.mtime_ns, -1, "a time just now is not trusted");
        assert_eq!(parent("team/x.md"), "team");
        assert_eq!(parent("x.md"), "");
        assert_eq!(child("", "x.md"), "x.md");
    }
}
