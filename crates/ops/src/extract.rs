//! Memory extraction as a use case (SPEC R12): one request over a
//! transcript, with the model configured from the environment.

use std::path::PathBuf;
use std::sync::Arc;

use memdir_extract::{Outcome, Request, Setup, StateFiles};
use memdir_model::{ModelClient, ModelConfig};

use crate::{OpsError, Project};

/// One extraction request.
#[derive(Debug, Clone)]
pub struct ExtractRequest {
    /// The transcript: the reference agent's JSONL, or a Messages-API
    /// message list.
    pub transcript: PathBuf,
    /// The session it belongs to; by default the transcript's own
    /// `sessionId`, else its file name.
    pub session: Option<String>,
    /// Run every this many turns (the throttle); by default every turn.
    pub every_n_turns: Option<u32>,
}

/// What an extraction request did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExtractReport {
    /// The session the state belongs to.
    pub session: String,
    /// What happened.
    pub outcome: Outcome,
}

impl Project {
    /// Runs (or queues) memory extraction over `request.transcript`: the
    /// new messages since the session's cursor, through a restricted agent
    /// whose writes land only in this project's memory folders.
    ///
    /// Errors: auto memory off ([`OpsError::AutoMemoryOff`]); no model
    /// configured ([`OpsError::NoModel`], nothing written); the transcript
    /// or the state unreadable ([`OpsError::Extract`]).
    pub fn extract_memories(&self, request: &ExtractRequest) -> Result<ExtractReport, OpsError> {
        let resolution = self.resolution();
        if !resolution.enablement.enabled {
            return Err(OpsError::AutoMemoryOff {
                by: resolution.enablement.by.to_string(),
            });
        }
        let config = ModelConfig::from_lookup(|k| self.env().var(k).map(str::to_owned))
            .map_err(OpsError::Model)?
            .ok_or(OpsError::NoModel)?;
        let model: Arc<dyn memdir_agent::ChatModel> =
            Arc::new(ModelClient::new(config).map_err(OpsError::Model)?);
        let session = match &request.session {
            Some(s) => s.clone(),
            None => session_of(&request.transcript),
        };
        let auto_dir = resolution.auto_mem_path.as_std_path().to_owned();
        let project_key = auto_dir.parent().and_then(|p| p.file_name()).map_or_else(
            || "project".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        let files = StateFiles::new(resolution.base.as_std_path(), &project_key, &session)?;
        let mut setup = Setup::new(
            resolution.project.work_tree.as_std_path().to_owned(),
            auto_dir,
            resolution
                .team_enabled
                .then(|| resolution.team_mem_path().into_std_path_buf()),
        );
        if let Some(n) = request.every_n_turns {
            setup.every_n_turns = n.max(1);
        }
        let outcome = memdir_extract::extract(
            &files,
            Request {
                transcript: request.transcript.clone(),
                requested_at: jiff::Timestamp::now().to_string(),
            },
            &model,
            &setup,
        )?;
        Ok(ExtractReport { session, outcome })
    }
}

/// The session of a transcript: its `sessionId`, else its file stem.
fn session_of(path: &std::path::Path) -> String {
    memdir_transcript::read_transcript(path)
        .ok()
        .and_then(|t| t.session_id)
        .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "session".to_owned())
}
