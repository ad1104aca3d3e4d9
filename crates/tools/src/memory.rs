//! Edit and Write: changes to memory files, only inside the memory folder
//! (and its team folder), always through `memdir-folder`'s lock and
//! handle-relative writes (SPEC R12.4, R18).
//!
//! Two checks stand between a model's `file_path` and the disk. First the
//! path is judged as text with its links resolved: absolute, no `..` above
//! the root, inside the private or the team folder, a `.md` file, and for
//! the team folder a key the team's rules accept. Then the write itself goes
//! through the folder's open handle one segment at a time, never through a
//! symbolic link, so a link swapped in after the check still cannot carry
//! the write outside.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use memdir_folder::{DEFAULT_LOCK_TIMEOUT, MemoryFolder};
use serde::Deserialize;

use crate::ToolError;

/// The largest memory file Edit reads and Write writes.
pub const MAX_MEMORY_BYTES: u64 = 1024 * 1024;

/// What Write is given.
#[derive(Debug, Clone, Deserialize)]
pub struct WriteInput {
    /// The memory file, an absolute path inside the memory folder.
    pub file_path: String,
    /// The file's whole new content.
    pub content: String,
}

/// What Edit is given.
#[derive(Debug, Clone, Deserialize)]
pub struct EditInput {
    /// The memory file, an absolute path inside the memory folder.
    pub file_path: String,
    /// The text to replace; it must occur exactly once unless
    /// `replace_all`.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    pub replace_all: bool,
}

/// Which folder a memory write lands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The private (auto) memory folder: a secret the write would add is
    /// refused here too.
    Private,
    /// The team folder, synced to everyone in the repository: contents are
    /// secret-scanned first.
    Team,
}

/// A write's destination, judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Which folder.
    pub place: Place,
    /// The `/`-separated path inside that folder.
    pub rel: String,
    /// The full path, for messages and reports.
    pub path: PathBuf,
}

struct Scope {
    canonical: PathBuf,
    folder: MemoryFolder,
}

impl Scope {
    fn open(path: &Path) -> Result<Self, ToolError> {
        let folder = MemoryFolder::create(path)?;
        let canonical = std::fs::canonicalize(path).map_err(|source| {
            ToolError::Folder(memdir_folder::FolderError::Open {
                path: path.to_owned(),
                source,
            })
        })?;
        Ok(Scope { canonical, folder })
    }
}

/// The memory folders Edit and Write may change, and what they changed.
pub struct MemoryScope {
    private: Scope,
    team: Option<Scope>,
    written: Mutex<Vec<PathBuf>>,
}

impl std::fmt::Debug for MemoryScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryScope")
            .field("private", &self.private.canonical)
            .field("team", &self.team.as_ref().map(|t| &t.canonical))
            .finish_non_exhaustive()
    }
}

fn refused(reason: impl Into<String>) -> ToolError {
    ToolError::Refused {
        reason: reason.into(),
    }
}

/// Whether `rel` is a folder's index, MEMORY.md, in any letter case.
fn is_index(rel: &str) -> bool {
    rel.eq_ignore_ascii_case(memdir_entrypoint::ENTRYPOINT_NAME)
}

/// `path` with `.` dropped and `..` applied, or `None` when a `..` would
/// climb above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

impl MemoryScope {
    /// The private memory folder and, when the team folder is on, the team
    /// folder (inside it, as `team/`). Missing folders are created.
    pub fn open(private: &Path, team: Option<&Path>) -> Result<Self, ToolError> {
        Ok(MemoryScope {
            private: Scope::open(private)?,
            team: team.map(Scope::open).transpose()?,
            written: Mutex::new(Vec::new()),
        })
    }

    /// The private memory folder (its canonical path).
    #[must_use]
    pub fn private_path(&self) -> &Path {
        &self.private.canonical
    }

    /// The team folder (its canonical path), when it is on.
    #[must_use]
    pub fn team_path(&self) -> Option<&Path> {
        self.team.as_ref().map(|t| t.canonical.as_path())
    }

    /// Judges `file_path` as a memory write's destination: the refusal's
    /// message is the reason the model sees.
    pub fn target(&self, file_path: &str) -> Result<Target, ToolError> {
        let shown = self.private.canonical.display();
        if file_path.contains('\0') {
            return Err(refused("the path holds a NUL byte"));
        }
        let raw = Path::new(file_path);
        if !raw.is_absolute() {
            return Err(refused(format!(
                "give the absolute path of a memory file inside {shown}"
            )));
        }
        let Some(lexical) = normalize(raw) else {
            return Err(refused("the path climbs above the root with `..`"));
        };
        // Links on the way are resolved, so `memory/link/x.md` with `link`
        // pointing elsewhere is judged where it really goes.
        let real = memdir_paths::realpath_deepest_existing(&lexical)
            .map_err(|e| refused(format!("the path cannot be resolved: {e}")))?;
        let (place, scope) = match &self.team {
            Some(team) if real.starts_with(&team.canonical) => (Place::Team, team),
            _ if real.starts_with(&self.private.canonical) => (Place::Private, &self.private),
            _ => {
                return Err(refused(format!(
                    "{} is outside the memory folder {shown}; memories may be written only there",
                    lexical.display()
                )));
            }
        };
        let rest = real
            .strip_prefix(&scope.canonical)
            .map_err(|_| refused("the path is not inside the memory folder"))?;
        let mut parts = Vec::new();
        for part in rest.components() {
            let Component::Normal(name) = part else {
                return Err(refused(
                    "the path is not a plain path inside the memory folder",
                ));
            };
            let Some(name) = name.to_str() else {
                return Err(refused("the path is not valid UTF-8"));
            };
            parts.push(name);
        }
        let rel = parts.join("/");
        if rel.is_empty() {
            return Err(refused(
                "the path names the memory folder itself, not a file in it",
            ));
        }
        if !rel.to_ascii_lowercase().ends_with(".md") {
            return Err(refused(format!(
                "{rel} is not a markdown file: memories are `.md` files"
            )));
        }
        if place == Place::Private && (rel == "logs" || rel.starts_with("logs/")) {
            return Err(refused(format!(
                "{rel} is a daily log: logs are only ever appended to (`memdir log`), \
                 never rewritten; write what they teach into a memory file instead"
            )));
        }
        if place == Place::Team
            && let Err(e) = memdir_paths::validate_team_mem_key(&rel, &scope.canonical)
        {
            return Err(refused(format!(
                "{rel} is not a valid team memory name: {e}"
            )));
        }
        Ok(Target {
            place,
            path: scope.canonical.join(&rel),
            rel,
        })
    }

    fn folder(&self, place: Place) -> &MemoryFolder {
        match (place, &self.team) {
            (Place::Team, Some(team)) => &team.folder,
            _ => &self.private.folder,
        }
    }

    /// Refuses content that holds a secret. In the team folder, any: it
    /// is shared with everyone in the repository. In the private folder,
    /// one that `before` (the file as it was, for an Edit) did not hold:
    /// a private memory still goes to the model with every prompt and
    /// into every export, and an agent cannot tell a credential the user
    /// meant to keep from one pasted by mistake; what the user kept there
    /// themselves stays editable.
    fn check_content(
        target: &Target,
        content: &str,
        before: Option<&str>,
    ) -> Result<(), ToolError> {
        // Every reading: text the model writes can be UTF-16 with NULs.
        let found = memdir_secrets::scan_for_secrets_in_bytes(content.as_bytes());
        let Some(first) = found.first() else {
            return Ok(());
        };
        match target.place {
            Place::Team => Err(refused(format!(
                "the content for team memory {} holds what looks like a secret ({}, line {}); \
                 team memories are shared with everyone in the repository: leave it out",
                target.rel,
                first.label.trim_end_matches('.'),
                first.line
            ))),
            Place::Private
                if before
                    .is_some_and(|b| memdir_secrets::scan_for_secrets(b).len() >= found.len()) =>
            {
                Ok(())
            }
            Place::Private => Err(refused(format!(
                "the content for memory {} holds what looks like a secret ({}, line {}); \
                 memories go to the model with every prompt: never save a credential, \
                 save where it is kept instead (\"the deploy token is in the team vault\")",
                target.rel,
                first.label.trim_end_matches('.'),
                first.line
            ))),
        }
    }

    fn record(&self, path: &Path) {
        if let Ok(mut written) = self.written.lock()
            && !written.iter().any(|p| p == path)
        {
            written.push(path.to_owned());
        }
    }

    /// Write: replaces (or creates) a memory file with `input.content`,
    /// atomically, under the folder's lock.
    pub fn write(&self, input: &WriteInput) -> Result<String, ToolError> {
        let target = self.target(&input.file_path)?;
        if is_index(&target.rel) {
            // A whole-file rewrite from an earlier read would drop the
            // lines other writers added since; Edit changes it under the
            // lock, and new memories get their line when the run ends.
            return Err(refused(format!(
                "{} is kept by memdir: write the memory's own file and its index line is added                  for you; to change an existing line, use Edit",
                target.path.display()
            )));
        }
        if input.content.len() as u64 > MAX_MEMORY_BYTES {
            return Err(refused(format!(
                "the content is {} bytes; a memory file may have at most {MAX_MEMORY_BYTES}",
                input.content.len()
            )));
        }
        Self::check_content(&target, &input.content, None)?;
        let lock = self.folder(target.place).lock(DEFAULT_LOCK_TIMEOUT)?;
        lock.write(&target.rel, input.content.as_bytes())?;
        drop(lock);
        self.record(&target.path);
        Ok(format!(
            "wrote {} bytes to {}",
            input.content.len(),
            target.path.display()
        ))
    }

    /// Edit: replaces `old_string` with `new_string` in a memory file, read
    /// and written under one hold of the folder's lock.
    pub fn edit(&self, input: &EditInput) -> Result<String, ToolError> {
        let target = self.target(&input.file_path)?;
        if input.old_string.is_empty() {
            return Err(ToolError::Edit {
                reason: "old_string is empty: to create a file use Write".to_owned(),
            });
        }
        if input.old_string == input.new_string {
            return Err(ToolError::Edit {
                reason: "old_string and new_string are the same: nothing would change".to_owned(),
            });
        }
        let lock = self.folder(target.place).lock(DEFAULT_LOCK_TIMEOUT)?;
        let Some(bytes) = lock.folder().read(&target.rel, MAX_MEMORY_BYTES)? else {
            return Err(ToolError::Edit {
                reason: format!(
                    "{} does not exist: create it with Write",
                    target.path.display()
                ),
            });
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(ToolError::Edit {
                reason: format!("{} is not UTF-8 text", target.path.display()),
            });
        };
        let found = text.matches(input.old_string.as_str()).count();
        let replaced = if input.replace_all { found } else { 1 };
        let next = match found {
            0 => {
                return Err(ToolError::Edit {
                    reason: format!(
                        "old_string does not occur in {}; read the file and copy the text exactly",
                        target.path.display()
                    ),
                });
            }
            1 => text.replacen(&input.old_string, &input.new_string, 1),
            _ if input.replace_all => text.replace(&input.old_string, &input.new_string),
            n => {
                return Err(ToolError::Edit {
                    reason: format!(
                        "old_string occurs {n} times in {}; give more context or set replace_all",
                        target.path.display()
                    ),
                });
            }
        };
        if next.len() as u64 > MAX_MEMORY_BYTES {
            return Err(refused(format!(
                "the edited file would be {} bytes; a memory file may have at most {MAX_MEMORY_BYTES}",
                next.len()
            )));
        }
        Self::check_content(&target, &next, Some(&text))?;
        lock.write(&target.rel, next.as_bytes())?;
        drop(lock);
        self.record(&target.path);
        Ok(format!(
            "replaced {replaced} occurrence{} in {}",
            if replaced == 1 { "" } else { "s" },
            target.path.display()
        ))
    }

    /// The memory files Write and Edit changed, in the order of their
    /// first change.
    #[must_use]
    pub fn written(&self) -> Vec<PathBuf> {
        self.written.lock().map(|w| w.clone()).unwrap_or_default()
    }
}
