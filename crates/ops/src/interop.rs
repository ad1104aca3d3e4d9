//! Moving memories in from other tools and out to them
//! ([`memdir_interop`]'s formats): an import writes each memory through
//! [`Project::save_memory`] (validated, indexed, secret-checked for team)
//! and never writes one that is already there, by name or by content; an
//! export writes the other tool's files, changing only memdir's part of a
//! file the user also writes.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use memdir_interop::{ExportFile, Format, Memory, Skipped};
use memdir_memtypes::{MemoryType, parse_memory};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

use memdir_entrypoint::IndexEntry;
use memdir_folder::{FolderError, MemoryFolder, Repair};

use crate::memory::{MAX_MEMORY_BYTES, Prepared, SaveOptions, memory_file_name, prepare};
use crate::{NewMemory, OpsError, Project, Scope};

/// What became of one imported memory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportOutcome {
    /// Written to this file (with its index line).
    Written(String),
    /// A dry run: would be written to this file.
    WouldWrite(String),
    /// A memory of this file already holds the same description and text.
    AlreadyPresent(String),
    /// A memory of this file exists with other text: left as it is.
    NameTaken(String),
    /// Another memory (this file) already holds the same text.
    SameContentAs(String),
    /// Not written, and why (an unusable name, a secret in a team memory).
    Refused(String),
}

/// One imported memory and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportedMemory {
    /// Its name, as the import made it.
    pub name: String,
    /// Its type.
    pub memory_type: MemoryType,
    /// Its description.
    pub description: String,
    /// What became of it.
    pub outcome: ImportOutcome,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ImportReport {
    /// Each memory the input held, in order.
    pub memories: Vec<ImportedMemory>,
    /// What the input held that could not be taken as a memory.
    pub skipped: Vec<Skipped>,
}

/// What an export did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileChange {
    /// The file is new.
    Created,
    /// The file existed and changed.
    Updated,
    /// The file already held this.
    Unchanged,
}

/// One file of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportedFile {
    /// Where it is.
    pub path: PathBuf,
    /// What changed (or, in a dry run, would).
    pub change: FileChange,
    /// Its text before (empty for a new file).
    pub before: String,
    /// Its text after.
    pub after: String,
}

/// What an export did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ExportReport {
    /// How many memories went out.
    pub memories: usize,
    /// The files, in order.
    pub files: Vec<ExportedFile>,
    /// Memories left out, and why, and those changed to go out (one
    /// without a description gets its first line). An untyped memory goes
    /// out as `project`, without a note.
    pub notes: Vec<String>,
}

impl Project {
    /// Imports the memories of `path`, in `format`, into the `scope`
    /// folder; with `dry_run`, only says what it would write.
    pub fn import_memories(
        &self,
        format: Format,
        path: &Path,
        scope: Scope,
        dry_run: bool,
    ) -> Result<ImportReport, OpsError> {
        let imported = memdir_interop::import(format, path)?;
        let folder = self.folder(scope)?;
        let mut existing = read_memories(folder.as_std_path(), scope)?;
        let mut bodies: HashMap<String, String> = existing
            .iter()
            .filter(|(_, m)| !m.memory.body.trim().is_empty())
            .map(|(file, m)| (m.memory.body.trim().to_owned(), file.clone()))
            .collect();
        let mut report = ImportReport {
            memories: Vec::with_capacity(imported.memories.len()),
            skipped: imported.skipped,
        };
        // Decided in memory first; what is to be written then goes in one
        // batch, under one hold of the lock, with one index write.
        let mut pending: Vec<(usize, Prepared)> = Vec::new();
        for memory in imported.memories {
            let outcome = match decide(&memory, scope, &existing, &bodies) {
                Ok(prepared) => {
                    let file = prepared.file.clone();
                    existing.insert(
                        file.clone(),
                        Stored {
                            memory: memory.clone(),
                            superseded: false,
                        },
                    );
                    bodies.insert(memory.body.trim().to_owned(), file.clone());
                    pending.push((report.memories.len(), prepared));
                    ImportOutcome::WouldWrite(file)
                }
                Err(outcome) => outcome,
            };
            report.memories.push(ImportedMemory {
                name: memory.name,
                memory_type: memory.memory_type,
                description: memory.description,
                outcome,
            });
        }
        if dry_run || pending.is_empty() {
            return Ok(report);
        }
        let handle = MemoryFolder::create(folder.as_std_path())?;
        let lock = handle.lock(self.lock_timeout())?;
        let items: Vec<(&str, &[u8], &IndexEntry)> = pending
            .iter()
            .map(|(_, p)| (p.file.as_str(), p.rendered.as_bytes(), &p.entry))
            .collect();
        let repair = match scope {
            Scope::Private => Repair::Orphans,
            Scope::Team => Repair::None,
        };
        let batch = lock.add_memories(&items, repair)?;
        let written: Vec<&str> = items.iter().map(|(file, _, _)| *file).collect();
        self.note_written(scope, &written);
        drop(lock);
        for repaired in &batch.repaired {
            log::info!(
                "indexed {repaired}, which an interrupted write had left without an index line"
            );
        }
        for ((at, prepared), result) in pending.iter().zip(batch.outcomes) {
            let entry = &mut report.memories[*at];
            let file = prepared.file.clone();
            entry.outcome = match result {
                Ok(()) => ImportOutcome::Written(file),
                // Another writer (another import of the same input) made
                // the file since the folder was read: the same memory, or
                // a different one under this name.
                Err(FolderError::AlreadyExists { folder, existing }) => {
                    let same = read_memory(&folder.join(&existing)).is_some_and(|there| {
                        same_text(&there.body, &prepared_body(prepared))
                            && there.description.trim() == entry.description.trim()
                    });
                    if same {
                        ImportOutcome::AlreadyPresent(existing)
                    } else {
                        ImportOutcome::NameTaken(existing)
                    }
                }
                Err(e) => ImportOutcome::Refused(OpsError::from(e).to_string()),
            };
        }
        Ok(report)
    }

    /// Exports the memories of the `scope` folder in `format` into the
    /// folder `dest` (`None`: the project's work tree, where the other
    /// tool looks); with `dry_run`, only says what it would write. For a
    /// format that is one file, a `dest` that names a file (an existing
    /// file, or a new path whose name has an extension, `out.jsonl`) is
    /// that file, so that `import` of the same path reads it back.
    pub fn export_memories(
        &self,
        format: Format,
        dest: Option<&Path>,
        scope: Scope,
        dry_run: bool,
    ) -> Result<ExportReport, OpsError> {
        let folder = self.folder(scope)?;
        let (memories, notes) = exportable(folder.as_std_path(), scope)?;
        let dest = dest.map_or_else(
            || {
                self.resolution()
                    .project
                    .work_tree
                    .clone()
                    .into_std_path_buf()
            },
            Path::to_path_buf,
        );
        // A path naming a file, for a one-file format, is that file.
        let (dest, file_name) = match format.file_name() {
            Some(_) if names_a_file(&dest) => match (dest.parent(), dest.file_name()) {
                (Some(parent), Some(name)) => (
                    if parent.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        parent.to_path_buf()
                    },
                    Some(name.to_string_lossy().into_owned()),
                ),
                _ => (dest, None),
            },
            _ => (dest, None),
        };
        let rename = |mut files: Vec<ExportFile>| {
            if let (Some(name), [only]) = (&file_name, files.as_mut_slice()) {
                only.rel_path.clone_from(name);
            }
            files
        };
        let single = rename(memdir_interop::export(format, &memories, None)?);
        // A format written into one file the user may also write gets that
        // file's text, so that only memdir's part of it changes.
        let existing = match single.as_slice() {
            [only] if is_shared_file(format) => read_existing(&dest.join(&only.rel_path))?,
            _ => None,
        };
        let files = match &existing {
            Some(text) => rename(memdir_interop::export(format, &memories, Some(text))?),
            None => single,
        };
        let mut report = ExportReport {
            memories: memories.len(),
            files: Vec::with_capacity(files.len()),
            notes,
        };
        for file in files {
            report.files.push(write_export(&dest, &file, dry_run)?);
        }
        Ok(report)
    }
}

/// What to do with one imported memory, judged against the folder as read
/// (`existing`, and its texts in `bodies`): write it (its checked file and
/// line), or the outcome that says why not.
fn decide(
    memory: &Memory,
    scope: Scope,
    existing: &BTreeMap<String, Stored>,
    bodies: &HashMap<String, String>,
) -> Result<Prepared, ImportOutcome> {
    let file = memory_file_name(&memory.name).map_err(|e| ImportOutcome::Refused(e.to_string()))?;
    if let Some(Stored { memory: there, .. }) = existing.get(&file) {
        return Err(
            if same_text(&there.body, &memory.body)
                && there.description.trim() == memory.description.trim()
            {
                ImportOutcome::AlreadyPresent(file)
            } else {
                ImportOutcome::NameTaken(file)
            },
        );
    }
    if let Some(other) = bodies.get(memory.body.trim()) {
        return Err(ImportOutcome::SameContentAs(other.clone()));
    }
    let new = NewMemory {
        name: memory.name.clone(),
        description: memory.description.clone(),
        memory_type: memory.memory_type,
        body: memory.body.clone(),
        title: None,
    };
    prepare(scope, &new, &SaveOptions::default()).map_err(|e| ImportOutcome::Refused(e.to_string()))
}

/// The text a prepared memory's file holds after its frontmatter.
fn prepared_body(prepared: &Prepared) -> String {
    parse_memory(prepared.rendered.as_bytes()).body
}

/// Whether an export destination names a file rather than a folder: an
/// existing file (or link), or a new path whose name has an extension.
fn names_a_file(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => !meta.is_dir(),
        Err(_) => path.extension().is_some(),
    }
}

/// Whether the format's one file is also the user's (memdir owns a part).
fn is_shared_file(format: Format) -> bool {
    matches!(
        format,
        Format::GeminiMd | Format::QwenMemory | Format::AgentsMd | Format::ClaudeMd
    )
}

/// Two texts the same but for surrounding white space.
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    !a.is_empty() && a == b
}

/// A memory of the folder as the interop crate sees it.
struct Stored {
    memory: Memory,
    /// Another memory replaced it: kept for the duplicate check, not
    /// exported.
    superseded: bool,
}

/// The memories of the folder (not `team/` of the private folder), by
/// file name.
fn read_memories(folder: &Path, scope: Scope) -> Result<BTreeMap<String, Stored>, OpsError> {
    let options = ScanOptions {
        exclude: if scope == Scope::Private {
            vec!["team".to_owned()]
        } else {
            Vec::new()
        },
        max_files: usize::MAX,
        ..ScanOptions::default()
    };
    let scan = match scan_memory_dir(folder, &options, &CancelToken::new()) {
        Ok(scan) => scan,
        Err(e) if e.is_not_found() => return Ok(BTreeMap::new()),
        Err(e) => return Err(OpsError::Recall(memdir_relevance::RelevanceError::Scan(e))),
    };
    let mut out = BTreeMap::new();
    for header in scan.memories {
        let Some((memory, superseded)) = read_stored(header.file_path.as_std_path()) else {
            continue;
        };
        out.insert(header.filename.clone(), Stored { memory, superseded });
    }
    Ok(out)
}

/// One memory file as the interop crate sees it, if it can be read.
fn read_memory(path: &Path) -> Option<Memory> {
    read_stored(path).map(|(memory, _)| memory)
}

/// One memory file, and whether another memory superseded it.
fn read_stored(path: &Path) -> Option<(Memory, bool)> {
    let bytes = memdir_memtypes::read_regular_file(path, MAX_MEMORY_BYTES).ok()?;
    let parsed = parse_memory(&bytes);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let memory = Memory {
        name: parsed.header.name.clone().unwrap_or(stem),
        memory_type: parsed.header.memory_type.unwrap_or(MemoryType::Project),
        description: parsed.header.description.clone().unwrap_or_default(),
        body: parsed.body.clone(),
    };
    Some((memory, parsed.superseded_by.is_some()))
}

/// The memories an export sends: every memory but the superseded, each
/// with a description (its first line when it has none), and notes on
/// what was changed or left out.
fn exportable(folder: &Path, scope: Scope) -> Result<(Vec<Memory>, Vec<String>), OpsError> {
    let all = read_memories(folder, scope)?;
    let mut memories = Vec::new();
    let mut notes = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (file, stored) in &all {
        if stored.superseded {
            continue;
        }
        let mut memory = stored.memory.clone();
        if memory.description.trim().is_empty() {
            memory.description = memory
                .body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or(&memory.name)
                .chars()
                .take(150)
                .collect();
            notes.push(format!("{file}: no description; its first line is used"));
        }
        // A description other programs wrote may hold escape sequences;
        // another tool's file is no place for them.
        if memory.description.contains(|c: char| c.is_control()) {
            memory.description = memory
                .description
                .split(char::is_control)
                .filter(|s| !s.trim().is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ");
            notes.push(format!(
                "{file}: control characters in its description were left out"
            ));
        }
        let Some(name) = memdir_interop::sanitize_name(&memory.name) else {
            notes.push(format!("{file}: left out: its name cannot be written"));
            continue;
        };
        if !names.insert(name.clone()) {
            notes.push(format!(
                "{file}: left out: another memory has the name {name}"
            ));
            continue;
        }
        memory.name = name;
        memories.push(memory);
    }
    Ok((memories, notes))
}

/// The text of a file an export will change, if it exists.
fn read_existing(path: &Path) -> Result<Option<String>, OpsError> {
    match memdir_memtypes::read_regular_file(path, memdir_interop::MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| OpsError::ExportFile {
                path: path.to_owned(),
                reason: "it is not UTF-8 text, so memdir will not change it".to_owned(),
            }),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(OpsError::ExportFile {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

/// Writes one export file under `dest` (atomically, never through a
/// link), or in a dry run only says what would change.
fn write_export(dest: &Path, file: &ExportFile, dry_run: bool) -> Result<ExportedFile, OpsError> {
    let rel = Path::new(&file.rel_path);
    let plain = rel
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    let refuse = |reason: &str| OpsError::ExportFile {
        path: dest.join(rel),
        reason: reason.to_owned(),
    };
    if !plain {
        return Err(OpsError::ExportOutside {
            path: dest.join(rel),
        });
    }
    let path = dest.join(rel);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        // Replacing it would break the link (AGENTS.md → CLAUDE.md is
        // common); following it would write elsewhere.
        return Err(refuse(
            "it is a symbolic link; export to the file it points to",
        ));
    }
    let before = read_existing(&path)?;
    let change = match &before {
        None => FileChange::Created,
        Some(old) if *old == file.contents => FileChange::Unchanged,
        Some(_) => FileChange::Updated,
    };
    if !dry_run && change != FileChange::Unchanged {
        make_folders(dest, rel).map_err(|e| match e {
            Some(reason) => refuse(&reason),
            None => OpsError::ExportOutside { path: path.clone() },
        })?;
        memdir_memtypes::atomic_write(&path, file.contents.as_bytes())
            .map_err(|e| refuse(&e.to_string()))?;
    }
    Ok(ExportedFile {
        path,
        change,
        before: before.unwrap_or_default(),
        after: file.contents.clone(),
    })
}

/// Makes the folders of `rel` under `dest` one at a time, never through a
/// link: `Err(None)` when one on the way is a link or not a folder,
/// `Err(Some(reason))` when one cannot be made.
fn make_folders(dest: &Path, rel: &Path) -> Result<(), Option<String>> {
    // The destination itself is the user's choice, link or not.
    std::fs::create_dir_all(dest).map_err(|e| Some(e.to_string()))?;
    let mut at = dest.to_path_buf();
    let Some(parent) = rel.parent() else {
        return Ok(());
    };
    for part in parent.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&at).map_err(|e| Some(e.to_string()))?;
            }
            Err(e) => return Err(Some(e.to_string())),
        }
    }
    Ok(())
}
