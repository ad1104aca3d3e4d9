//! Where a session's notes and memdir's own record of them live (SPEC
//! R11.4), and reading and writing them.
//!
//! - The notes: `<project>/.claude/session-memory/session-<id>.md`.
//! - Beside them, `.session-<id>.lock`: held for the whole of an update,
//!   so two updates of one session never interleave.
//! - The watermark: `<base>/memdir/session/<project>/<id>.json`, memdir's
//!   own state (never a file of the reference agent's).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::{SessionError, Watermark};

/// The most bytes of a notes file that are read.
pub const MAX_NOTES_READ_BYTES: u64 = 1024 * 1024;
/// The most bytes the state file may have.
const MAX_STATE_BYTES: u64 = 64 * 1024;

/// A session id as it may appear in a file name: ASCII letters, digits,
/// `-` and `_` kept, anything else (`/`, `.`, spaces) turned into `_`, at
/// most 120 characters, never empty. Session ids are UUIDs, which it leaves
/// as they are.
#[must_use]
pub fn safe_session_id(id: &str) -> String {
    memdir_transcript::session_file_stem(id)
}

/// The notes file of `session` in the project whose root is `project_root`:
/// `<project>/.claude/session-memory/session-<id>.md`, the id made safe by
/// [`safe_session_id`].
#[must_use]
pub fn notes_path(project_root: &Path, session: &str) -> PathBuf {
    project_root
        .join(".claude")
        .join("session-memory")
        .join(format!("session-{}.md", safe_session_id(session)))
}

/// The files of one session's notes.
#[derive(Debug, Clone)]
pub struct SessionFiles {
    project_root: PathBuf,
    notes: PathBuf,
    lock: PathBuf,
    state: PathBuf,
}

/// The update lock of one session, held while an update goes on.
#[derive(Debug)]
pub(crate) struct UpdateLock {
    _file: File,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SessionError + '_ {
    move |source| SessionError::Io {
        path: path.to_owned(),
        source,
    }
}

impl SessionFiles {
    /// The files of `session` in the project at `project_root`, with its
    /// state under `<base>/memdir/session/<project_key>/`. Nothing is
    /// created yet.
    #[must_use]
    pub fn new(project_root: &Path, base: &Path, project_key: &str, session: &str) -> Self {
        let notes = notes_path(project_root, session);
        let name = safe_session_id(session);
        SessionFiles {
            project_root: project_root.to_owned(),
            lock: notes.with_file_name(format!(".session-{name}.lock")),
            notes,
            state: base
                .join("memdir")
                .join("session")
                .join(safe_session_id(project_key))
                .join(format!("{name}.json")),
        }
    }

    /// The notes file.
    #[must_use]
    pub fn notes(&self) -> &Path {
        &self.notes
    }

    /// The watermark state file.
    #[must_use]
    pub fn state(&self) -> &Path {
        &self.state
    }

    /// The notes as they are; `None` when the file does not exist.
    pub fn read_notes(&self) -> Result<Option<String>, SessionError> {
        match memdir_memtypes::read_regular_file(&self.notes, MAX_NOTES_READ_BYTES) {
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| SessionError::NotText {
                    path: self.notes.clone(),
                }),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(SessionError::ReadNotes(e)),
        }
    }

    /// Replaces the notes atomically.
    pub(crate) fn write_notes(&self, text: &str) -> Result<(), SessionError> {
        self.refuse_links()?;
        memdir_memtypes::atomic_write(&self.notes, text.as_bytes())
            .map_err(SessionError::WriteNotes)
    }

    /// Creates the notes folder, refusing a symbolic link on the way from
    /// the project root (a link could send the notes out of the project).
    pub(crate) fn create_folder(&self) -> Result<(), SessionError> {
        let dir = self.notes.parent().expect("the notes file is in a folder");
        for step in [self.project_root.join(".claude"), dir.to_owned()] {
            match std::fs::symlink_metadata(&step) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(SessionError::Link { path: step });
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir(&step)
                        .or_else(|e| {
                            if e.kind() == std::io::ErrorKind::AlreadyExists {
                                Ok(())
                            } else {
                                Err(e)
                            }
                        })
                        .map_err(io_error(&step))?;
                }
                Err(e) => return Err(io_error(&step)(e)),
            }
        }
        self.refuse_links()
    }

    fn refuse_links(&self) -> Result<(), SessionError> {
        let dir = self.notes.parent().expect("the notes file is in a folder");
        for path in [
            self.project_root.join(".claude"),
            dir.to_owned(),
            self.notes.clone(),
        ] {
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(SessionError::Link { path });
            }
        }
        Ok(())
    }

    /// Takes the update lock, or `None` when another update holds it.
    pub(crate) fn try_lock(&self) -> Result<Option<UpdateLock>, SessionError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&self.lock)
            .map_err(io_error(&self.lock))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(UpdateLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(io_error(&self.lock)(e)),
        }
    }

    /// The watermark of the last update; `None` before the first. A
    /// damaged state file is an error, never silently reset.
    pub fn load_watermark(&self) -> Result<Option<Watermark>, SessionError> {
        match memdir_memtypes::read_regular_file(&self.state, MAX_STATE_BYTES) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| SessionError::DamagedState {
                        path: self.state.clone(),
                        reason: e.to_string(),
                    })
            }
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(SessionError::ReadState(e)),
        }
    }

    /// Records the watermark of an update.
    pub(crate) fn save_watermark(&self, mark: &Watermark) -> Result<(), SessionError> {
        let dir = self.state.parent().expect("the state file is in a folder");
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let mut text =
            serde_json::to_string_pretty(mark).map_err(|e| SessionError::DamagedState {
                path: self.state.clone(),
                reason: e.to_string(),
            })?;
        text.push('\n');
        memdir_memtypes::atomic_write(&self.state, text.as_bytes())
            .map_err(SessionError::WriteState)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_leave_the_folder() {
        let root = Path::new("/p");
        assert_eq!(
            notes_path(root, "5f1c2d9e-aaaa-4bbb-8ccc-000000000001"),
            Path::new("/p/.claude/session-memory/session-5f1c2d9e-aaaa-4bbb-8ccc-000000000001.md")
        );
        assert_eq!(
            notes_path(root, "../../etc/passwd"),
            Path::new("/p/.claude/session-memory/session-______etc_passwd.md")
        );
        assert_eq!(safe_session_id(""), "_");
        assert_eq!(safe_session_id(&"a".repeat(500)).len(), 120);
        assert_eq!(safe_session_id("a\0b/c\\d"), "a_b_c_d");
    }

    #[test]
    fn state_lives_under_memdirs_own_folder() {
        let files = SessionFiles::new(Path::new("/p"), Path::new("/h/.claude"), "-p", "s/1");
        assert_eq!(
            files.state(),
            Path::new("/h/.claude/memdir/session/-p/s_1.json")
        );
        assert_eq!(
            files.lock,
            Path::new("/p/.claude/session-memory/.session-s_1.lock")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_place_of_the_notes_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".claude/session-memory")).unwrap();
        let files = SessionFiles::new(&project, tmp.path(), "p", "s");
        assert!(matches!(
            files.create_folder(),
            Err(SessionError::Link { .. })
        ));
        assert!(matches!(
            files.write_notes("x"),
            Err(SessionError::Link { .. })
        ));
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn a_damaged_watermark_is_an_error_and_a_saved_one_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let files = SessionFiles::new(tmp.path(), tmp.path(), "p", "s");
        assert_eq!(files.load_watermark().unwrap(), None);
        let mark = Watermark {
            tokens: 12_000,
            tool_calls: 4,
            updated_at: "2026-12-01T10:00:00Z".into(),
        };
        files.save_watermark(&mark).unwrap();
        assert_eq!(files.load_watermark().unwrap(), Some(mark));
        std::fs::write(files.state(), "{").unwrap();
        assert!(matches!(
            files.load_watermark(),
            Err(SessionError::DamagedState { .. })
        ));
    }
}
