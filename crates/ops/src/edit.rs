//! The memory files a user edits by hand (SPEC R16): where each source's
//! file is, whether it exists, and creating a missing one before an editor
//! opens it.

use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use memdir_folder::{FolderError, MemoryFolder};
use memdir_memtypes::MemoryFileSource;

use crate::{OpsError, Project};

/// The instruction file's name in the user's, the project's and the
/// administrator's folders.
const INSTRUCTIONS: &str = "CLAUDE.md";
/// The project's uncommitted instruction file.
const LOCAL_INSTRUCTIONS: &str = "CLAUDE.local.md";
/// A memory folder's index.
const INDEX: &str = "MEMORY.md";

/// One memory file as an editing front end lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Where the file comes from.
    pub source: MemoryFileSource,
    /// Its path.
    pub path: PathBuf,
    /// Whether a file is there now.
    pub exists: bool,
    /// Whether the user may edit it: the managed file belongs to the
    /// administrator.
    pub editable: bool,
}

impl Project {
    /// The memory files of this project by source (R1.5), in the order
    /// of [`MemoryFileSource::ALL`]; the team index only when team memory
    /// is on.
    #[must_use]
    pub fn memory_files(&self) -> Vec<MemoryFile> {
        MemoryFileSource::ALL
            .into_iter()
            .filter_map(|source| {
                let path = self.memory_file_path(source)?;
                Some(MemoryFile {
                    source,
                    exists: path.is_file(),
                    editable: source != MemoryFileSource::Managed,
                    path,
                })
            })
            .collect()
    }

    /// The path of `source`'s file; `None` for the team index when team
    /// memory is off.
    #[must_use]
    pub fn memory_file_path(&self, source: MemoryFileSource) -> Option<PathBuf> {
        let r = self.resolution();
        let work_tree = r.project.work_tree.as_std_path();
        Some(match source {
            MemoryFileSource::User => r.base.as_std_path().join(INSTRUCTIONS),
            MemoryFileSource::Project => {
                // `.claude/CLAUDE.md` when only that one exists.
                let top = work_tree.join(INSTRUCTIONS);
                let nested = work_tree.join(".claude").join(INSTRUCTIONS);
                if !top.exists() && nested.is_file() {
                    nested
                } else {
                    top
                }
            }
            MemoryFileSource::Local => work_tree.join(LOCAL_INSTRUCTIONS),
            MemoryFileSource::Managed => managed_instructions_path(),
            MemoryFileSource::AutoMem => r.entrypoint().into_std_path_buf(),
            MemoryFileSource::TeamMem if r.team_enabled => r.team_entrypoint().into_std_path_buf(),
            MemoryFileSource::TeamMem => return None,
        })
    }

    /// Makes sure `source`'s file exists, creating its folder and an empty
    /// file when missing; `true` when it was created. A memory folder's
    /// index is created through the folder's lock (R18); an existing file
    /// is never touched. The managed file is never written: asking for it
    /// is an error.
    pub fn create_memory_file(&self, source: MemoryFileSource) -> Result<bool, OpsError> {
        if source == MemoryFileSource::Managed {
            return Err(OpsError::Folder(FolderError::Io {
                path: managed_instructions_path(),
                step: "write the administrator's (read-only) file",
                source: io::ErrorKind::PermissionDenied.into(),
            }));
        }
        let path = self
            .memory_file_path(source)
            .ok_or_else(|| OpsError::TeamOff {
                by: self.resolution().team_enabled_by.to_string(),
            })?;
        if path.is_file() {
            return Ok(false);
        }
        match source {
            MemoryFileSource::AutoMem | MemoryFileSource::TeamMem => {
                let dir = path.parent().unwrap_or(Path::new("."));
                let folder = MemoryFolder::create(dir)?;
                let lock = folder.lock(self.lock_timeout())?;
                match lock.create_new(INDEX, b"") {
                    Ok(()) => Ok(true),
                    Err(FolderError::AlreadyExists { .. }) => Ok(false),
                    Err(e) => Err(e.into()),
                }
            }
            _ => create_instruction_file(&path),
        }
    }

    /// When a memory index (`MEMORY.md`, and the team's when team memory is
    /// on) last changed: a front end compares it with what it saw before to
    /// tell that a background step saved a memory.
    #[must_use]
    pub fn memory_saved_at(&self) -> Option<SystemTime> {
        [MemoryFileSource::AutoMem, MemoryFileSource::TeamMem]
            .into_iter()
            .filter_map(|s| self.memory_file_path(s))
            .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
            .max()
    }
}

/// The administrator's instruction file, beside the managed settings file.
fn managed_instructions_path() -> PathBuf {
    let settings = memdir_settings::managed_settings_path();
    settings
        .parent()
        .map_or_else(|| PathBuf::from(INSTRUCTIONS), |d| d.join(INSTRUCTIONS))
}

/// Creates an empty instruction file outside any memory folder (the
/// user's or the project's), with its folder; `false` when one appeared
/// meanwhile.
fn create_instruction_file(path: &Path) -> Result<bool, OpsError> {
    let io_error = |step, source| {
        OpsError::Folder(FolderError::Io {
            path: path.to_owned(),
            step,
            source,
        })
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_error("create the folder of", e))?;
    }
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_file() => Ok(false),
        Err(e) => Err(io_error("create", e)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

    use super::*;
    use crate::{Environment, ProjectOptions};

    fn project(dir: &Path, team: bool) -> Project {
        let (home, work) = (dir.join("home"), dir.join("work"));
        let mut env = Environment::new().with_home(&home);
        if team {
            env = env.with_var("MEMDIR_TEAM", "1");
        }
        Project::open(
            env,
            &ProjectOptions {
                dir: Some(work),
                memory_dir: Some(dir.join("mem")),
                settings_file: None,
            },
        )
        .unwrap()
    }

    #[test]
    fn lists_every_source_with_its_path() {
        let dir = memdir_testkit::Folders::at("home", "work");
        let p = project(&dir.root, false);
        let files = p.memory_files();
        let sources: Vec<_> = files.iter().map(|f| f.source).collect();
        assert_eq!(
            sources,
            [
                MemoryFileSource::User,
                MemoryFileSource::Project,
                MemoryFileSource::Local,
                MemoryFileSource::Managed,
                MemoryFileSource::AutoMem,
            ]
        );
        assert!(files[0].path.ends_with("home/.claude/CLAUDE.md"));
        assert!(files[1].path.ends_with("work/CLAUDE.md"));
        assert!(files[2].path.ends_with("work/CLAUDE.local.md"));
        assert!(files[3].path.ends_with("CLAUDE.md") && !files[3].editable);
        assert!(files[4].path.ends_with("mem/MEMORY.md"));
        assert!(
            files
                .iter()
                .all(|f| f.source == MemoryFileSource::Managed || !f.exists)
        );
    }

    #[test]
    fn team_index_is_listed_when_team_memory_is_on() {
        let dir = memdir_testkit::Folders::at("home", "work");
        let p = project(&dir.root, true);
        let last = p.memory_files().pop().unwrap();
        assert_eq!(last.source, MemoryFileSource::TeamMem);
        assert!(last.path.ends_with("mem/team/MEMORY.md"));
    }

    #[test]
    fn creates_missing_files_once_and_keeps_existing_ones() {
        let dir = memdir_testkit::Folders::at("home", "work");
        let p = project(&dir.root, true);
        for source in [
            MemoryFileSource::User,
            MemoryFileSource::Local,
            MemoryFileSource::AutoMem,
            MemoryFileSource::TeamMem,
        ] {
            assert!(p.create_memory_file(source).unwrap(), "{source:?}");
            let path = p.memory_file_path(source).unwrap();
            std::fs::write(&path, "kept\n").unwrap();
            assert!(!p.create_memory_file(source).unwrap());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept\n");
        }
        assert!(p.memory_files().iter().filter(|f| f.exists).count() >= 4);
        assert!(p.memory_saved_at().is_some());
    }

    #[test]
    fn managed_file_is_read_only_and_team_needs_team_memory() {
        let dir = memdir_testkit::Folders::at("home", "work");
        let p = project(&dir.root, false);
        let err = p.create_memory_file(MemoryFileSource::Managed).unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert!(matches!(
            p.create_memory_file(MemoryFileSource::TeamMem),
            Err(OpsError::TeamOff { .. })
        ));
        assert!(p.memory_saved_at().is_none());
    }

    #[test]
    fn a_folder_in_the_way_is_an_error_not_a_panic() {
        let dir = memdir_testkit::Folders::at("home", "work");
        let p = project(&dir.root, false);
        let path = p.memory_file_path(MemoryFileSource::Local).unwrap();
        std::fs::create_dir_all(&path).unwrap();
        assert!(p.create_memory_file(MemoryFileSource::Local).is_err());
    }
}
