//! Memory-level changes: a new memory with its index line, and the repair
//! of an index that a killed write left behind (SPEC R18.3).

use std::collections::{HashMap, HashSet};

use memdir_entrypoint::{
    ENTRYPOINT_NAME, FolderListing, IndexEntry, Lint, MAX_INDEX_READ_BYTES, decode_index,
    lint_index, remove_entry, unlinked_files, upsert_entries, upsert_entry,
};
use memdir_memtypes::{MemdirValue, set_memdir_key};

use crate::{FolderError, FolderLock};

/// How much of a memory file is read for its frontmatter when it gets an
/// index line: the frontmatter is in the first 30 lines (R5.2).
const HEAD_BYTES: u64 = 64 * 1024;

/// The most of a superseded memory read to mark it: the size a memory may
/// have (larger files are left alone and reported).
const MAX_SUPERSEDED_BYTES: u64 = 2_500_000;

/// Whether [`FolderLock::add_memory`] also indexes the folder's other
/// unindexed memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repair {
    /// Give every memory without an index line its line: right for a
    /// private folder, where such a file is left by a killed write.
    Orphans,
    /// Touch no other line: right for a team folder, whose index is synced
    /// and whose pulled files are indexed by the team, not by this machine.
    None,
}

/// What [`FolderLock::add_memory`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Added {
    /// Other memories that had no index line and got one (left by a write
    /// that was killed between its topic file and its index line).
    pub repaired: Vec<String>,
}

/// What [`FolderLock::add_memories`] did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct BatchAdded {
    /// What became of each memory, in the order given: created with its
    /// line, or the error that left it out (a name taken in any letter
    /// case is [`FolderError::AlreadyExists`]).
    pub outcomes: Vec<Result<(), FolderError>>,
    /// Other memories that had no index line and got one.
    pub repaired: Vec<String>,
}

/// What [`FolderLock::fix_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FixReport {
    /// Memory files that got an index line.
    pub added: Vec<String>,
    /// Temporary files of killed writes that were removed.
    pub temp_files_removed: usize,
    /// Index lines removed because they linked to a memory another one
    /// supersedes (the memory file is kept).
    pub superseded_removed: Vec<String>,
    /// The lint of the index after the fix: what a fix cannot decide (a
    /// line linking to a missing file, a long line, …).
    pub remaining: Vec<Lint>,
}

impl FolderLock<'_> {
    /// Adds a new memory: the topic file `file` (created exclusively) and
    /// its line in the folder's MEMORY.md, in that order, under the lock.
    ///
    /// A file of the same name in any letter case is refused with
    /// [`FolderError::AlreadyExists`] (on a case-insensitive disk they
    /// would be one file). With [`Repair::Orphans`], memories left without
    /// an index line by an earlier, killed write get theirs in the same
    /// index write.
    pub fn add_memory(
        &self,
        file: &str,
        contents: &[u8],
        entry: &IndexEntry,
        repair: Repair,
    ) -> Result<Added, FolderError> {
        if let Some(existing) = self.existing_in_any_case(file)? {
            return Err(FolderError::AlreadyExists {
                folder: self.folder.path.clone(),
                existing,
            });
        }
        // The new index is computed before anything is written, so that an
        // index that cannot be read or changed leaves no unindexed memory.
        let index = self.read_index()?;
        let mut next = upsert_entry(&index, entry)?;
        let mut added = Added::default();
        let orphans = match repair {
            Repair::Orphans => self.unindexed_entries(&next)?,
            Repair::None => Vec::new(),
        };
        // The memories the new one replaces are meant to have no line.
        let replaced = memdir_memtypes::parse_memory(contents).supersedes;
        let replaced = |rel: &str| replaced.iter().any(|r| r.trim_start_matches("./") == rel);
        for (rel, line) in orphans {
            if rel != entry.file && !replaced(&rel) {
                next = upsert_entry(&next, &line)?;
                added.repaired.push(rel);
            }
        }
        self.create_new(file, contents)?;
        self.write(ENTRYPOINT_NAME, next.as_bytes())?;
        Ok(added)
    }

    /// Adds many new memories under one hold of the lock, with one index
    /// write: as [`add_memory`](Self::add_memory) for each of `memories`
    /// (`(file, contents, entry)`), but linear in their number where one
    /// call each would read, list and rewrite the folder each time. Each
    /// file is created exclusively; one whose name exists in any letter
    /// case (or that cannot be created) gets its error in
    /// [`BatchAdded::outcomes`] and no line, and the others go on. The
    /// index gets the lines of the files created, in order, once they
    /// all are; a crash before that leaves unindexed memories, which the
    /// next write or [`fix_index`](Self::fix_index) indexes.
    pub fn add_memories(
        &self,
        memories: &[(&str, &[u8], &IndexEntry)],
        repair: Repair,
    ) -> Result<BatchAdded, FolderError> {
        let index = self.read_index()?;
        // Refuse before writing anything if the index cannot take a line.
        for (_, _, entry) in memories {
            entry.to_line()?;
        }
        let mut names: HashMap<Vec<String>, HashSet<String>> = HashMap::new();
        let mut outcomes = Vec::with_capacity(memories.len());
        let mut lines = Vec::with_capacity(memories.len());
        let mut replaced = HashSet::new();
        for &(file, contents, entry) in memories {
            let outcome = self.create_in_batch(file, contents, &mut names);
            if outcome.is_ok() {
                lines.push(entry.clone());
                for old in memdir_memtypes::parse_memory(contents).supersedes {
                    replaced.insert(old.trim_start_matches("./").to_owned());
                }
            }
            outcomes.push(outcome);
        }
        // Each new name is made durable by one fsync of its folder, after
        // all of them and before the index names them.
        let mut synced = HashSet::new();
        for ((file, _, _), outcome) in memories.iter().zip(&outcomes) {
            let parent = file.rsplit_once('/').map_or("", |(p, _)| p);
            if outcome.is_ok() && synced.insert(parent) {
                self.sync_folder_of(file)?;
            }
        }
        let mut next = upsert_entries(&index, &lines)?;
        let mut added = BatchAdded {
            outcomes,
            repaired: Vec::new(),
        };
        if repair == Repair::Orphans {
            let orphans: Vec<IndexEntry> = self
                .unindexed_entries(&next)?
                .into_iter()
                .filter(|(rel, _)| !replaced.contains(rel))
                .map(|(rel, line)| {
                    added.repaired.push(rel);
                    line
                })
                .collect();
            next = upsert_entries(&next, &orphans)?;
        }
        if next != index {
            self.write(ENTRYPOINT_NAME, next.as_bytes())?;
        }
        Ok(added)
    }

    /// Creates one file of a batch, refusing a name another file of its
    /// folder has in any letter case; `names` caches each folder's names.
    fn create_in_batch(
        &self,
        file: &str,
        contents: &[u8],
        names: &mut HashMap<Vec<String>, HashSet<String>>,
    ) -> Result<(), FolderError> {
        let (parents, name) = crate::folder::split(file)?;
        let key: Vec<String> = parents.iter().map(|p| (*p).to_owned()).collect();
        if !names.contains_key(&key) {
            let listed = match self.folder.descend(file, &parents, false)? {
                Some(dir) => dir
                    .entries()
                    .map_err(|source| FolderError::Io {
                        path: self.folder.join(file),
                        step: "list the folder of",
                        source,
                    })?
                    .filter_map(Result::ok)
                    .filter_map(|e| e.file_name().into_string().ok())
                    .map(|n| n.to_lowercase())
                    .collect(),
                None => HashSet::new(),
            };
            names.insert(key.clone(), listed);
        }
        let lower = name.to_lowercase();
        let taken = names.get(&key).is_some_and(|n| n.contains(&lower));
        if taken {
            let existing = self
                .existing_in_any_case(file)?
                .unwrap_or_else(|| file.to_owned());
            return Err(FolderError::AlreadyExists {
                folder: self.folder.path.clone(),
                existing,
            });
        }
        self.create_new_synced(file, contents, false)?;
        names.entry(key).or_default().insert(lower);
        Ok(())
    }

    /// Repairs the folder after killed writes: every memory file that no
    /// index line links to gets one (title and hook from its frontmatter),
    /// and every temporary file of memdir is removed (each writer holds the
    /// lock while its temporary file exists, so under the lock every one
    /// is left over; in a subfolder with a lock of its own, such as
    /// `team/`, only those older than [`STALE_TEMP_AGE`](crate::STALE_TEMP_AGE)). A line linking to a memory another one supersedes is
    /// removed. Never deletes or changes a memory file.
    pub fn fix_index(&self) -> Result<FixReport, FolderError> {
        let mut report = FixReport {
            temp_files_removed: self.stale_temp_removed + self.remove_temp_files(None),
            ..FixReport::default()
        };
        let index = self.read_index()?;
        let mut next = index.clone();
        for old in self.listing()?.superseded() {
            let (removed, count) = remove_entry(&next, old);
            if count > 0 {
                next = removed;
                report.superseded_removed.push(old.to_owned());
            }
        }
        for (rel, line) in self.unindexed_entries(&index)? {
            next = upsert_entry(&next, &line)?;
            report.added.push(rel);
        }
        if next != index {
            self.write(ENTRYPOINT_NAME, next.as_bytes())?;
        }
        let listing = self.listing()?;
        report.remaining = lint_index(&next, Some(&listing));
        Ok(report)
    }

    /// The folder's MEMORY.md as text (empty when there is none), at most
    /// [`MAX_INDEX_READ_BYTES`].
    pub fn read_index(&self) -> Result<String, FolderError> {
        Ok(self
            .folder
            .read(ENTRYPOINT_NAME, MAX_INDEX_READ_BYTES)?
            .map(|bytes| decode_index(&bytes).0.into_owned())
            .unwrap_or_default())
    }

    fn listing(&self) -> Result<FolderListing, FolderError> {
        Ok(FolderListing::read(&self.folder.path)?)
    }

    /// Gives each of `files` (memory files written some other way, say by
    /// an agent's Write) an index line when MEMORY.md has none for it, in
    /// one index write; returns the files that got one. Files that do not
    /// exist, cannot be read as regular files, or are MEMORY.md itself are
    /// skipped; no other line is touched (right for a team folder too).
    pub fn index_files(&self, files: &[&str]) -> Result<Vec<String>, FolderError> {
        let index = self.read_index()?;
        let listing = self.listing()?;
        let unlinked = unlinked_files(&index, &listing);
        let mut next = index.clone();
        let mut added = Vec::new();
        for &file in files {
            if file == ENTRYPOINT_NAME
                || !unlinked.contains(&file)
                || added.iter().any(|a| a == file)
            {
                continue;
            }
            if let Some(entry) = self.entry_for(file) {
                next = upsert_entry(&next, &entry)?;
                added.push(file.to_owned());
            }
        }
        if next != index {
            self.write(ENTRYPOINT_NAME, next.as_bytes())?;
        }
        Ok(added)
    }

    /// Applies what `files` (memories just written, say by an agent's
    /// Write) say in their `supersedes:`: each memory they replace gets
    /// `supersededBy: <file>` in its frontmatter (every other byte kept)
    /// and loses its index line, in one index write, so that it no longer
    /// reaches the prompt. Returns `(old, new)` for each memory marked.
    ///
    /// A name that is not a plain `.md` path inside the folder (a
    /// traversal, an absolute path, the index itself) or that names no
    /// regular file is skipped and logged, never followed.
    pub fn apply_supersession(&self, files: &[&str]) -> Result<Vec<(String, String)>, FolderError> {
        let mut marked = Vec::new();
        for &file in files {
            let Some(head) = self.folder.read_prefix(file, HEAD_BYTES)? else {
                continue;
            };
            for old in memdir_memtypes::parse_memory(&head).supersedes {
                let old = old.trim_start_matches("./").to_owned();
                if !is_plain_memory_name(&old) || old == file {
                    log::warn!(
                        "{file}: supersedes {old:?}, which is not a memory file of this folder; ignored"
                    );
                    continue;
                }
                let bytes = match self.folder.read(&old, MAX_SUPERSEDED_BYTES) {
                    Ok(Some(bytes)) => bytes,
                    Ok(None) => {
                        log::warn!("{file}: supersedes {old}, which does not exist; ignored");
                        continue;
                    }
                    // A link, a FIFO, a file too large: never followed.
                    Err(e) => {
                        log::warn!(
                            "{file}: supersedes {old}, which cannot be marked ({e}); ignored"
                        );
                        continue;
                    }
                };
                let text = String::from_utf8_lossy(&bytes);
                let value = MemdirValue::Text(file.to_owned());
                let next = set_memdir_key(&text, "supersededBy", Some(&value));
                if next != text {
                    self.write(&old, next.as_bytes())?;
                }
                marked.push((old, file.to_owned()));
            }
        }
        if !marked.is_empty() {
            let index = self.read_index()?;
            let mut next = index.clone();
            for (old, _) in &marked {
                next = remove_entry(&next, old).0;
            }
            if next != index {
                self.write(ENTRYPOINT_NAME, next.as_bytes())?;
            }
        }
        Ok(marked)
    }

    /// Index lines for the memory files that `index` does not link to.
    fn unindexed_entries(&self, index: &str) -> Result<Vec<(String, IndexEntry)>, FolderError> {
        let listing = self.listing()?;
        Ok(unlinked_files(index, &listing)
            .into_iter()
            .filter_map(|file| Some((file.to_owned(), self.entry_for(file)?)))
            .collect())
    }

    /// The index line of a memory file, from its frontmatter (its name,
    /// else its file stem; its description as the hook). `None` for a file
    /// that cannot be read (a FIFO, a link: left to the lint) or whose line
    /// could not be written.
    fn entry_for(&self, file: &str) -> Option<IndexEntry> {
        let bytes = self.folder.read_prefix(file, HEAD_BYTES).ok()??;
        let header = memdir_memtypes::parse_memory(&bytes).header;
        let stem = file
            .rsplit('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".md");
        let entry = IndexEntry {
            title: header.name.unwrap_or_else(|| stem.to_owned()),
            file: file.to_owned(),
            hook: header.description.unwrap_or_default(),
        };
        entry.to_line().is_ok().then_some(entry)
    }

    /// The name of a file beside `file` equal to it ignoring letter case.
    fn existing_in_any_case(&self, file: &str) -> Result<Option<String>, FolderError> {
        let (parents, name) = crate::folder::split(file)?;
        let Some(dir) = self.folder.descend(file, &parents, false)? else {
            return Ok(None);
        };
        let entries = dir.entries().map_err(|source| FolderError::Io {
            path: self.folder.join(file),
            step: "list the folder of",
            source,
        })?;
        let wanted = name.to_lowercase();
        let prefix = if parents.is_empty() {
            String::new()
        } else {
            format!("{}/", parents.join("/"))
        };
        Ok(entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .find(|n| n.to_lowercase() == wanted)
            .map(|n| format!("{prefix}{n}")))
    }
}

/// Whether `name` is a plain relative `.md` path inside a folder: no
/// empty, `.` or `..` segment, not absolute, not the index.
fn is_plain_memory_name(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e == "md")
        && !name.starts_with('/')
        && !name.contains('\\')
        && name
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
        && name.rsplit('/').next() != Some(ENTRYPOINT_NAME)
}
