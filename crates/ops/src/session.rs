//! Session notes as use cases (SPEC R11): update them from a transcript
//! (the model from the environment), show them, and show them as
//! compaction injects them.

use std::path::PathBuf;

use memdir_model::{ModelClient, ModelConfig};
use memdir_session::{
    Customization, SessionFiles, TruncatedNotes, UpdateOptions, UpdateOutcome,
    truncate_session_memory_for_compact, update_session_notes,
};

use crate::{OpsError, Project};

/// One request to bring a session's notes up to date.
#[derive(Debug, Clone)]
pub struct SessionUpdateRequest {
    /// The transcript: the reference agent's JSONL, or a Messages-API
    /// message list.
    pub transcript: PathBuf,
    /// The session whose notes these are.
    pub session: String,
    /// Update whatever the thresholds say.
    pub force: bool,
}

/// A session's notes as they are on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionNotes {
    /// The notes file.
    pub path: PathBuf,
    /// Its text.
    pub content: String,
}

/// A session's notes as compaction injects them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactView {
    /// The notes file.
    pub path: PathBuf,
    /// The cut notes, and whether anything was cut.
    pub notes: TruncatedNotes,
}

impl Project {
    /// The files of `session`'s notes: the notes in the project's working
    /// tree, the state under `<base>/memdir/session/`.
    fn session_files(&self, session: &str) -> SessionFiles {
        let resolution = self.resolution();
        let auto_dir = resolution.auto_mem_path.as_std_path();
        let project_key = auto_dir.parent().and_then(|p| p.file_name()).map_or_else(
            || "project".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        SessionFiles::new(
            resolution.project.work_tree.as_std_path(),
            resolution.base.as_std_path(),
            &project_key,
            session,
        )
    }

    /// The notes file of `session`:
    /// `<project>/.claude/session-memory/session-<id>.md`.
    #[must_use]
    pub fn session_notes_path(&self, session: &str) -> PathBuf {
        self.session_files(session).notes().to_owned()
    }

    /// Brings `request.session`'s notes up to date with its transcript
    /// when the thresholds say it is time (or always, with `force`),
    /// through an agent whose only tool is Edit of the notes file.
    ///
    /// Errors: no model configured ([`OpsError::NoModel`], checked first,
    /// nothing written); the transcript, the notes or the state unreadable,
    /// or notes that no longer follow the template ([`OpsError::Session`]).
    pub fn update_session_notes(
        &self,
        request: &SessionUpdateRequest,
    ) -> Result<UpdateOutcome, OpsError> {
        let config = ModelConfig::from_lookup(|k| self.env().var(k).map(str::to_owned))
            .map_err(OpsError::Model)?
            .ok_or(OpsError::NoModel)?;
        let model = ModelClient::new(config).map_err(OpsError::Model)?;
        let files = self.session_files(&request.session);
        let options = UpdateOptions {
            force: request.force,
            customization: Customization::load(self.resolution().base.as_std_path()),
            ..UpdateOptions::default()
        };
        Ok(update_session_notes(
            &files,
            &request.transcript,
            Box::new(model),
            &options,
        )?)
    }

    /// `session`'s notes as they are.
    ///
    /// Errors: no notes yet ([`OpsError::NoSessionNotes`]); unreadable
    /// ([`OpsError::Session`]).
    pub fn session_notes(&self, session: &str) -> Result<SessionNotes, OpsError> {
        let files = self.session_files(session);
        let path = files.notes().to_owned();
        match files.read_notes()? {
            Some(content) => Ok(SessionNotes { path, content }),
            None => Err(OpsError::NoSessionNotes {
                session: session.to_owned(),
                path,
            }),
        }
    }

    /// `session`'s notes as compaction injects them: each section cut to
    /// its limit.
    pub fn session_notes_for_compact(&self, session: &str) -> Result<CompactView, OpsError> {
        let notes = self.session_notes(session)?;
        Ok(CompactView {
            notes: truncate_session_memory_for_compact(&notes.content),
            path: notes.path,
        })
    }
}
