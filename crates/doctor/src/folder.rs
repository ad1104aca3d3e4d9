//! A memory folder read once for every check: its memories, whole, and its
//! indexes.

use std::path::{Path, PathBuf};

use memdir_entrypoint::{ENTRYPOINT_NAME, MAX_INDEX_READ_BYTES, decode_index};
use memdir_memtypes::walk::{EntryKind, Walk, WalkError};
use memdir_memtypes::{ParsedMemory, Scope, parse_memory, read_regular_file};

use crate::{DoctorError, Finding, Severity};

/// A memory file larger than this is not read (and is reported): a memory
/// is a small note.
pub const MAX_MEMORY_BYTES: u64 = 256 * 1024;

/// The name of the team subfolder.
const TEAM_DIR: &str = "team";

/// One memory file, read whole.
#[derive(Debug, Clone)]
pub struct MemoryFile {
    /// The path relative to the checked folder, `/`-separated.
    pub rel: String,
    /// Private, or in the `team/` subfolder.
    pub scope: Scope,
    /// The file's text (invalid UTF-8 replaced).
    pub text: String,
    /// The file parsed.
    pub parsed: ParsedMemory,
}

/// One MEMORY.md, with the folder it indexes.
#[derive(Debug, Clone)]
pub struct IndexFile {
    /// The index's path relative to the checked folder (`MEMORY.md`,
    /// `team/MEMORY.md`).
    pub rel: String,
    /// The folder it indexes.
    pub dir: PathBuf,
    /// Its raw bytes; empty when there is no index.
    pub bytes: Vec<u8>,
    /// Whether the file exists.
    pub exists: bool,
}

impl IndexFile {
    /// The index as text, with invalid UTF-8 replaced.
    #[must_use]
    pub fn text(&self) -> String {
        decode_index(&self.bytes).0.into_owned()
    }
}

/// A memory folder as the checks see it.
#[derive(Debug, Clone)]
pub struct FolderView {
    /// The checked folder.
    pub root: PathBuf,
    /// Every memory file below it (not the indexes, not `logs/`), sorted.
    pub memories: Vec<MemoryFile>,
    /// The folder's MEMORY.md, then `team/MEMORY.md` when `team/` exists.
    pub indexes: Vec<IndexFile>,
    /// Memory files that could not be read, as findings.
    pub(crate) unreadable: Vec<Finding>,
}

impl FolderView {
    /// Reads `root`: every `*.md` below it except the indexes and daily
    /// logs, whole (up to [`MAX_MEMORY_BYTES`]); hidden entries and links
    /// are passed over.
    pub fn read(root: &Path) -> Result<Self, DoctorError> {
        let mut view = FolderView {
            root: root.to_owned(),
            memories: Vec::new(),
            indexes: Vec::new(),
            unreadable: Vec::new(),
        };
        for item in Walk::new(root) {
            let entry = match item {
                Ok(entry) => entry,
                Err(WalkError::NonUtf8Name { .. }) => continue,
                Err(e) => {
                    return Err(DoctorError::ReadFolder {
                        path: e.path().to_owned(),
                        source: e.into_io_error(),
                    });
                }
            };
            let rel = entry.rel().to_owned();
            if entry.kind() != EntryKind::File || !is_memory_file(&rel) {
                continue;
            }
            view.add_memory(entry.path(), rel);
        }
        view.memories.sort_by(|a, b| a.rel.cmp(&b.rel));
        view.indexes.push(index_file(root, ENTRYPOINT_NAME));
        let team = root.join(TEAM_DIR);
        if team.is_dir() {
            view.indexes
                .push(index_file(&team, &format!("{TEAM_DIR}/{ENTRYPOINT_NAME}")));
        }
        Ok(view)
    }

    fn add_memory(&mut self, path: &Path, rel: String) {
        match read_regular_file(path, MAX_MEMORY_BYTES) {
            Ok(bytes) => {
                let parsed = parse_memory(&bytes);
                let scope = if rel.starts_with("team/") {
                    Scope::Team
                } else {
                    Scope::Private
                };
                self.memories.push(MemoryFile {
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    rel,
                    scope,
                    parsed,
                });
            }
            Err(e) => {
                log::debug!("doctor: cannot read {}: {e}", path.display());
                self.unreadable.push(Finding::new(
                    "read",
                    Severity::Warning,
                    rel,
                    format!("cannot be read: {e}"),
                ));
            }
        }
    }

    /// The memories of one scope.
    pub fn memories_in(&self, scope: Scope) -> impl Iterator<Item = &MemoryFile> {
        self.memories.iter().filter(move |m| m.scope == scope)
    }
}

fn is_memory_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    Path::new(name).extension().is_some_and(|e| e == "md")
        && name != ENTRYPOINT_NAME
        && !rel.starts_with("logs/")
}

fn index_file(dir: &Path, rel: &str) -> IndexFile {
    let path = dir.join(ENTRYPOINT_NAME);
    match read_regular_file(&path, MAX_INDEX_READ_BYTES) {
        Ok(bytes) => IndexFile {
            rel: rel.to_owned(),
            dir: dir.to_owned(),
            bytes,
            exists: true,
        },
        Err(e) => {
            if !e.is_not_found() {
                log::debug!("doctor: cannot read {}: {e}", path.display());
            }
            IndexFile {
                rel: rel.to_owned(),
                dir: dir.to_owned(),
                bytes: Vec::new(),
                exists: false,
            }
        }
    }
}
