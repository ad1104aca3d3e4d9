//! Saving, updating and deleting one memory: the naming rules, the
//! collision check, the secret scan for the team folder, and the order of
//! writes (topic file, then its index line; on delete the file, then the
//! line), all under the folder's lock.

use std::path::Path;

use camino::Utf8PathBuf;
use std::time::Duration;

use memdir_entrypoint::{ENTRYPOINT_NAME, IndexEntry, find_entry, remove_entry, upsert_entry};
use memdir_folder::{FixReport, FolderError, FolderLock, MemoryFolder, Repair};
use memdir_memtypes::{FrontmatterShape, Header, MemoryType, parse_memory_str, render_memory};

use crate::error::SecretFound;
use crate::{OpsError, Project, Scope};

/// The most a memory file may hold for an update to read it: ten times
/// what team sync accepts for one file, so no real note is refused.
pub const MAX_MEMORY_BYTES: u64 = 2_500_000;

/// A memory to save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMemory {
    /// A short kebab-case name; the file is `<name>.md`.
    pub name: String,
    /// One specific line saying what the memory holds (what recall reads).
    pub description: String,
    /// Its type.
    pub memory_type: MemoryType,
    /// Its text.
    pub body: String,
    /// The title of its index line; `None` is the name.
    pub title: Option<String>,
}

/// What changes in an existing memory; `None` keeps the value it has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryChange {
    /// A new description (also the hook of its index line).
    pub description: Option<String>,
    /// A new type.
    pub memory_type: Option<MemoryType>,
    /// A new text.
    pub body: Option<String>,
    /// A new title for its index line.
    pub title: Option<String>,
}

/// How [`Project::save_memory_with`] treats what it is given beyond the
/// memory itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SaveOptions {
    /// Memories of the same folder this one replaces (names or file names).
    pub supersedes: Vec<String>,
    /// Keep a credential the secret scan finds, in a private memory only:
    /// the user's own, explicit choice (`memdir add --allow-secret`). A
    /// memory for the team folder holding a secret is refused whatever
    /// this says, and so is every write an agent makes.
    pub allow_secret: bool,
}

/// A memory that was saved or updated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Saved {
    /// The memory file.
    pub path: Utf8PathBuf,
    /// The index that links to it.
    pub index_path: Utf8PathBuf,
    /// Other memories that had lost their index line to an interrupted
    /// write and got it back in the same index write.
    pub repaired: Vec<String>,
    /// Secrets found and kept because the save allowed it
    /// ([`SaveOptions::allow_secret`], private folder only).
    pub kept_secrets: Vec<SecretFound>,
}

/// A memory that was deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Deleted {
    /// The memory file that was removed (`false` when only a stale index
    /// line was left of it).
    pub file_removed: bool,
    /// How many index lines linking to it were removed.
    pub index_lines_removed: usize,
    /// Where it was.
    pub path: Utf8PathBuf,
}

impl Project {
    /// Saves a new memory in `scope`: its topic file (created exclusively:
    /// a name that exists in any letter case is refused), then its index
    /// line. A memory holding a secret is refused, in its text or its
    /// index line, in either folder (see [`SaveOptions::allow_secret`]),
    /// and so is one holding a control character or larger than
    /// [`MAX_MEMORY_BYTES`] (a team memory: larger than team sync
    /// accepts); user memories are never saved to the team folder. In the
    /// private folder, memories an interrupted write left without an index
    /// line get theirs too; a team folder's index is synced, so its files
    /// are the team's to index.
    pub fn save_memory(&self, scope: Scope, memory: &NewMemory) -> Result<Saved, OpsError> {
        self.save_memory_with(scope, memory, &SaveOptions::default())
    }

    /// [`save_memory`](Self::save_memory), for a memory that replaces
    /// others of the same folder (names or file names, `deploy` or
    /// `deploy.md`): see [`save_memory_with`](Self::save_memory_with).
    pub fn save_memory_superseding(
        &self,
        scope: Scope,
        memory: &NewMemory,
        supersedes: &[String],
    ) -> Result<Saved, OpsError> {
        let options = SaveOptions {
            supersedes: supersedes.to_vec(),
            ..SaveOptions::default()
        };
        self.save_memory_with(scope, memory, &options)
    }

    /// [`save_memory`](Self::save_memory) with options. With
    /// [`SaveOptions::supersedes`], the new memory records the memories it
    /// replaces in `supersedes:`, each of them gets `supersededBy:` and
    /// loses its index line, all under one hold of the folder's lock.
    /// Recall and the manifest never offer a superseded memory again; its
    /// file is kept. A name that is not an existing memory of the folder
    /// is an error, before anything is written.
    pub fn save_memory_with(
        &self,
        scope: Scope,
        memory: &NewMemory,
        options: &SaveOptions,
    ) -> Result<Saved, OpsError> {
        let Prepared {
            file,
            rendered,
            entry,
            kept_secrets,
            old_files,
        } = prepare(scope, memory, options)?;
        let folder_path = self.folder(scope)?;
        let folder = MemoryFolder::create(folder_path.as_std_path())?;
        let lock = folder.lock(self.lock_timeout())?;
        for old in &old_files {
            if lock.folder().read_prefix(old, 1)?.is_none() || *old == file {
                return Err(OpsError::NotFound {
                    folder: folder_path.clone().into_std_path_buf(),
                    file: old.clone(),
                });
            }
        }
        let repair = match scope {
            Scope::Private => Repair::Orphans,
            Scope::Team => Repair::None,
        };
        let added = match lock.add_memory(&file, rendered.as_bytes(), &entry, repair) {
            Ok(added) => added,
            Err(FolderError::AlreadyExists { existing, folder }) => {
                return Err(OpsError::AlreadyExists { folder, existing });
            }
            Err(e) => return Err(e.into()),
        };
        if !old_files.is_empty() {
            for (old, new) in lock.apply_supersession(&[file.as_str()])? {
                log::info!("{old} is superseded by {new}: it keeps its file, not its index line");
            }
        }
        let mut written: Vec<&str> = vec![file.as_str()];
        written.extend(old_files.iter().map(String::as_str));
        self.note_written(scope, &written);
        drop(lock);
        for repaired in &added.repaired {
            log::info!(
                "indexed {repaired}, which an interrupted write had left without an index line"
            );
        }
        Ok(Saved {
            path: folder_path.join(&file),
            index_path: folder_path.join(ENTRYPOINT_NAME),
            repaired: added.repaired,
            kept_secrets,
        })
    }

    /// Changes an existing memory in place, keeping its frontmatter shape
    /// and every key memdir does not use (SPEC R2.5); a file in the nested
    /// shape records the change time in `modified`, as the reference agent
    /// does. Its index line gets the new title and description (a line is
    /// added when it had none). The result is refused, as a new memory
    /// would be, when it holds a secret (in its text or index line, in
    /// either folder), a control character, or is too large.
    pub fn update_memory(
        &self,
        scope: Scope,
        name: &str,
        change: &MemoryChange,
    ) -> Result<Saved, OpsError> {
        let folder_path = self.folder(scope)?;
        let file = memory_file_name(name)?;
        for (field, value) in [
            ("description", &change.description),
            ("title", &change.title),
            ("text", &change.body),
        ] {
            if let Some(value) = value {
                refuse_control_characters(field, value)?;
            }
        }
        if change
            .description
            .as_deref()
            .is_some_and(|d| one_line(d).is_empty())
        {
            return Err(OpsError::Empty(
                "the description is empty; give one specific line saying what the memory holds",
            ));
        }
        if change.body.as_deref().is_some_and(|b| b.trim().is_empty()) {
            return Err(OpsError::Empty("the memory's text is empty"));
        }
        let folder = MemoryFolder::open(folder_path.as_std_path())?;
        let lock = folder.lock(self.lock_timeout())?;
        let original = read_text(&lock, &file)?;
        let parsed = parse_memory_str(&original);
        let header = Header {
            name: parsed.header.name.clone().or_else(|| Some(name.to_owned())),
            description: change
                .description
                .as_deref()
                .map(one_line)
                .or(parsed.header.description.clone()),
            memory_type: change.memory_type.or(parsed.header.memory_type),
        };
        if scope == Scope::Team && header.memory_type == Some(MemoryType::User) {
            return Err(OpsError::NotShareable);
        }
        let body = change
            .body
            .as_deref()
            .map_or_else(|| parsed.body.clone(), with_final_newline);
        let modified = (parsed.shape == FrontmatterShape::Nested).then(jiff::Timestamp::now);
        let updated = memdir_memtypes::update_memory(&original, &header, modified, &body);
        refuse_oversized(scope, &updated)?;
        let index = lock.read_index()?;
        let old_entry = find_entry(&index, &file);
        let entry = IndexEntry {
            title: change
                .title
                .clone()
                .or_else(|| old_entry.as_ref().map(|e| e.title.clone()))
                .unwrap_or_else(|| name.to_owned()),
            file: file.clone(),
            hook: header.description.clone().unwrap_or_default(),
        };
        check_secrets(scope, &updated, &entry.to_line()?, false)?;
        let next = upsert_entry(&index, &entry)?;
        if updated != original {
            lock.write(&file, updated.as_bytes())?;
        }
        if next != index {
            lock.write(ENTRYPOINT_NAME, next.as_bytes())?;
        }
        self.note_written(scope, &[file.as_str()]);
        drop(lock);
        Ok(Saved {
            path: folder_path.join(&file),
            index_path: folder_path.join(ENTRYPOINT_NAME),
            repaired: Vec::new(),
            kept_secrets: Vec::new(),
        })
    }

    /// Deletes a memory: its file, then every index line linking to it. A
    /// crash between the two leaves a line to a missing file, which
    /// `index check` reports and running the delete again removes; never a
    /// file without its line, which a repair would bring back.
    pub fn delete_memory(&self, scope: Scope, name: &str) -> Result<Deleted, OpsError> {
        let folder_path = self.folder(scope)?;
        let file = memory_file_name(name)?;
        let folder = MemoryFolder::open(folder_path.as_std_path())?;
        let lock = folder.lock(self.lock_timeout())?;
        let file_removed = lock.remove_file(&file)?;
        let index = lock.read_index()?;
        let (next, index_lines_removed) = remove_entry(&index, &file);
        if !file_removed && index_lines_removed == 0 {
            return Err(OpsError::NotFound {
                folder: folder_path.into_std_path_buf(),
                file,
            });
        }
        if index_lines_removed > 0 {
            lock.write(ENTRYPOINT_NAME, next.as_bytes())?;
        }
        self.note_written(scope, &[file.as_str()]);
        drop(lock);
        Ok(Deleted {
            file_removed,
            index_lines_removed,
            path: folder_path.join(&file),
        })
    }
}

/// A new memory checked and rendered, ready to be written.
pub(crate) struct Prepared {
    /// Its file name.
    pub(crate) file: String,
    /// Its file's text.
    pub(crate) rendered: String,
    /// Its index line.
    pub(crate) entry: IndexEntry,
    /// Secrets found and kept, as the options allowed.
    pub(crate) kept_secrets: Vec<SecretFound>,
    /// The files of the memories it supersedes.
    pub(crate) old_files: Vec<String>,
}

/// Every check of a new memory that needs no disk (names, fields, size,
/// secrets), and its file and index line as they would be written.
pub(crate) fn prepare(
    scope: Scope,
    memory: &NewMemory,
    options: &SaveOptions,
) -> Result<Prepared, OpsError> {
    let supersedes = options.supersedes.as_slice();
    if scope == Scope::Team && !memory.memory_type.may_be_shared() {
        return Err(OpsError::NotShareable);
    }
    refuse_control_characters("description", &memory.description)?;
    if let Some(title) = &memory.title {
        refuse_control_characters("title", title)?;
    }
    refuse_control_characters("text", &memory.body)?;
    let description = one_line(&memory.description);
    if description.is_empty() {
        return Err(OpsError::Empty(
            "the description is empty; give one specific line saying what the memory holds",
        ));
    }
    if memory.body.trim().is_empty() {
        return Err(OpsError::Empty("the memory's text is empty"));
    }
    let file = memory_file_name(&memory.name)?;
    let header = Header {
        name: Some(memory.name.clone()),
        description: Some(description.clone()),
        memory_type: Some(memory.memory_type),
    };
    let old_files = supersedes
        .iter()
        .map(|old| memory_file_name(old.trim().strip_suffix(".md").unwrap_or(old.trim())))
        .collect::<Result<Vec<String>, OpsError>>()?;
    let mut rendered = render_memory(&header, &with_final_newline(&memory.body));
    if !old_files.is_empty() {
        let names = memdir_memtypes::MemdirValue::Names(old_files.clone());
        rendered = memdir_memtypes::set_memdir_key(&rendered, "supersedes", Some(&names));
    }
    refuse_oversized(scope, &rendered)?;
    let entry = IndexEntry {
        title: memory.title.clone().unwrap_or_else(|| memory.name.clone()),
        file: file.clone(),
        hook: description,
    };
    let kept_secrets = check_secrets(scope, &rendered, &entry.to_line()?, options.allow_secret)?;
    Ok(Prepared {
        file,
        rendered,
        entry,
        kept_secrets,
        old_files,
    })
}

/// Repairs the memory folder of the index `index_file` after interrupted
/// writes (SPEC R18.3): memories without an index line get one, memdir's
/// temporary files are removed, and what a repair cannot decide is left in
/// [`FixReport::remaining`]. Never deletes or changes a memory.
pub fn fix_index(index_file: &Path, lock_timeout: Duration) -> Result<FixReport, OpsError> {
    if index_file.file_name().is_none_or(|n| n != ENTRYPOINT_NAME) {
        return Err(OpsError::NotAnIndex {
            path: index_file.to_path_buf(),
        });
    }
    let folder_path = match index_file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = MemoryFolder::open(folder_path)?;
    Ok(folder.lock(lock_timeout)?.fix_index()?)
}

/// The file name of a memory named `name`: `<name>.md`, under the same
/// rules as a key from a sync server (no separators, dot segments,
/// encodings, look-alikes or names another system cannot hold), and
/// neither hidden nor the index.
pub fn memory_file_name(name: &str) -> Result<String, OpsError> {
    let invalid = |reason: &str| OpsError::InvalidName {
        name: name.to_owned(),
        reason: reason.to_owned(),
    };
    if name.trim().is_empty() || name.starts_with('.') {
        // An empty or dot name makes a hidden file, which no scan reads.
        return Err(invalid("a name must not be empty or start with '.'"));
    }
    let file = memdir_protocol::validate_team_mem_key_text(&format!("{name}.md"))
        .map_err(|e| invalid(&e.reason.to_string()))?;
    // `memory.md` and the index are one file on a disk that ignores case.
    if file.contains('/') || file.to_lowercase() == ENTRYPOINT_NAME.to_lowercase() {
        return Err(invalid("give a plain name, not a path or the index"));
    }
    Ok(file)
}

/// A memory's text as UTF-8, under the lock.
fn read_text(lock: &FolderLock<'_>, file: &str) -> Result<String, OpsError> {
    let folder = lock.folder();
    let bytes = folder
        .read(file, MAX_MEMORY_BYTES)?
        .ok_or_else(|| OpsError::NotFound {
            folder: folder.path().to_path_buf(),
            file: file.to_owned(),
        })?;
    String::from_utf8(bytes).map_err(|_| OpsError::NotText {
        folder: folder.path().to_path_buf(),
        file: file.to_owned(),
    })
}

/// Refuses a memory holding a secret, in its file text or its index line:
/// always for the team folder, which is shared; for the private folder
/// unless the user allowed it, since a private memory still goes to the
/// model with every prompt and into every export. Returns what was found
/// and kept.
fn check_secrets(
    scope: Scope,
    text: &str,
    index_line: &str,
    allow_secret: bool,
) -> Result<Vec<SecretFound>, OpsError> {
    let found = |text: &str| -> Vec<SecretFound> {
        memdir_secrets::scan_for_secrets(text)
            .iter()
            .map(|f| SecretFound {
                rule_id: f.rule_id.clone(),
                line: f.line,
            })
            .collect()
    };
    let team = scope == Scope::Team;
    let (findings, in_index_line) = match found(text) {
        f if !f.is_empty() => (f, false),
        _ => (found(index_line), true),
    };
    if findings.is_empty() || (allow_secret && !team) {
        return Ok(findings);
    }
    Err(OpsError::SecretsFound {
        findings,
        team,
        in_index_line,
    })
}

/// Refuses a control character in a memory's text fields: escape
/// sequences, NUL and bidirectional overrides would reach the index, the
/// prompt and terminals raw. Tabs and line breaks are text.
fn refuse_control_characters(field: &'static str, text: &str) -> Result<(), OpsError> {
    match text.chars().find(|&c| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    }) {
        Some(c) => Err(OpsError::ControlCharacter {
            field,
            code: u32::from(c),
        }),
        None => Ok(()),
    }
}

/// Refuses a memory larger than a memory file may be, or, for the team
/// folder, than team sync carries.
fn refuse_oversized(scope: Scope, rendered: &str) -> Result<(), OpsError> {
    let (max, what) = match scope {
        Scope::Team => (memdir_protocol::MAX_ENTRY_BYTES, "a team memory"),
        Scope::Private => (
            usize::try_from(MAX_MEMORY_BYTES).unwrap_or(usize::MAX),
            "a memory file",
        ),
    };
    if rendered.len() > max {
        return Err(OpsError::TooLarge {
            bytes: rendered.len(),
            max,
            what,
        });
    }
    Ok(())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn with_final_newline(text: &str) -> String {
    let mut text = text.to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}
