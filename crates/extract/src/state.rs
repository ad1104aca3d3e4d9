//! The per-session state of extraction (SPEC R12.2) and the lock that keeps
//! two runs of one session apart, across processes (R12.5).
//!
//! Under `<base>/memdir/extract/<project>/`, for each session:
//! `<session>.json` (the cursor, the turn counter, the pending request),
//! `<session>.run.lock` (held for the whole of a run, with `flock`-style
//! locks the system drops when a process dies) and `<session>.state.lock`
//! (held only while the state file is read and rewritten).
//!
//! A request that finds a run under way leaves itself in the pending slot
//! (replacing an older one: the newest has the most messages) and returns.
//! The running process, before it lets go of the run lock, takes the pending
//! request under the state lock and runs it once more. Taking the state
//! lock on both sides closes the gap where a runner could let go just after
//! a request found it busy.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ExtractError;

/// The most bytes the state file may have.
const MAX_STATE_BYTES: u64 = 64 * 1024;

/// What is remembered between runs for one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionState {
    /// The uuid of the last transcript message already considered.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Completed turns since the last run (the throttle's counter).
    #[serde(default)]
    pub turns_since_last: u32,
    /// The newest request that arrived while a run was under way.
    #[serde(default)]
    pub pending: Option<Request>,
}

/// One request for extraction: which transcript, as of when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// The transcript file.
    pub transcript: PathBuf,
    /// When it was asked for (RFC 3339), for the log.
    pub requested_at: String,
}

/// The files of one session's state.
#[derive(Debug, Clone)]
pub struct StateFiles {
    state: PathBuf,
    run_lock: PathBuf,
    state_lock: PathBuf,
}

/// What [`StateFiles::begin`] found.
#[derive(Debug)]
pub enum Begin {
    /// No run was under way: this process runs, holding the guard.
    Run(RunGuard),
    /// A run is under way in another process (or thread): the request is
    /// in the pending slot and will be run when that run ends.
    Queued,
}

/// The run lock of one session, held while a run goes on.
#[derive(Debug)]
pub struct RunGuard {
    files: StateFiles,
    _lock: File,
}

fn open_lock(path: &Path) -> Result<File, ExtractError> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
        .map_err(|source| ExtractError::State {
            path: path.to_owned(),
            source,
        })
}

impl StateFiles {
    /// The state files of `session` for the project whose folder name
    /// (slug) is `project`, under `<base>/memdir/extract/`; the folder is
    /// created.
    pub fn new(base: &Path, project: &str, session: &str) -> Result<Self, ExtractError> {
        let dir = base
            .join("memdir")
            .join("extract")
            .join(memdir_transcript::session_file_stem(project));
        std::fs::create_dir_all(&dir).map_err(|source| ExtractError::State {
            path: dir.clone(),
            source,
        })?;
        let name = memdir_transcript::session_file_stem(session);
        Ok(StateFiles {
            state: dir.join(format!("{name}.json")),
            run_lock: dir.join(format!("{name}.run.lock")),
            state_lock: dir.join(format!("{name}.state.lock")),
        })
    }

    /// The state file's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.state
    }

    /// Reads the state; a missing file is the empty state, a damaged one is
    /// an error (never silently reset: the cursor would go back).
    pub fn load(&self) -> Result<SessionState, ExtractError> {
        match memdir_memtypes::read_regular_file(&self.state, MAX_STATE_BYTES) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ExtractError::DamagedState {
                path: self.state.clone(),
                reason: e.to_string(),
            }),
            Err(e) if e.is_not_found() => Ok(SessionState::default()),
            Err(e) => Err(ExtractError::ReadState(e)),
        }
    }

    fn save(&self, state: &SessionState) -> Result<(), ExtractError> {
        let mut text =
            serde_json::to_string_pretty(state).map_err(|e| ExtractError::DamagedState {
                path: self.state.clone(),
                reason: e.to_string(),
            })?;
        text.push('\n');
        memdir_memtypes::atomic_write(&self.state, text.as_bytes())
            .map_err(ExtractError::WriteState)
    }

    /// Reads, changes and rewrites the state under the state lock.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut SessionState) -> T,
    ) -> Result<T, ExtractError> {
        let lock = self.lock_state()?;
        let mut state = self.load()?;
        let out = change(&mut state);
        self.save(&state)?;
        drop(lock);
        Ok(out)
    }

    fn lock_state(&self) -> Result<File, ExtractError> {
        let file = open_lock(&self.state_lock)?;
        file.lock().map_err(|source| ExtractError::State {
            path: self.state_lock.clone(),
            source,
        })?;
        Ok(file)
    }

    fn try_run_lock(&self) -> Result<Option<File>, ExtractError> {
        let file = open_lock(&self.run_lock)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(source)) => Err(ExtractError::State {
                path: self.run_lock.clone(),
                source,
            }),
        }
    }

    /// Starts a run for `request`, or queues it when a run is under way.
    pub fn begin(&self, request: Request) -> Result<Begin, ExtractError> {
        if let Some(lock) = self.try_run_lock()? {
            return Ok(Begin::Run(self.guard(lock)));
        }
        let state_lock = self.lock_state()?;
        // The runner may have let go since: it does so only under the state
        // lock, so now the answer is final.
        if let Some(lock) = self.try_run_lock()? {
            drop(state_lock);
            return Ok(Begin::Run(self.guard(lock)));
        }
        let mut state = self.load()?;
        state.pending = Some(request);
        self.save(&state)?;
        drop(state_lock);
        Ok(Begin::Queued)
    }

    fn guard(&self, lock: File) -> RunGuard {
        RunGuard {
            files: self.clone(),
            _lock: lock,
        }
    }
}

impl RunGuard {
    /// The state files this guard's run belongs to.
    #[must_use]
    pub fn files(&self) -> &StateFiles {
        &self.files
    }

    /// Ends the run: returns the guard and the pending request when one
    /// arrived meanwhile (to be run as a trailing run), or lets go of the
    /// run lock when none did.
    pub fn finish(self) -> Result<Option<(RunGuard, Request)>, ExtractError> {
        let state_lock = self.files.lock_state()?;
        let mut state = self.files.load()?;
        let pending = state.pending.take();
        if pending.is_some() {
            self.files.save(&state)?;
        }
        if let Some(request) = pending {
            drop(state_lock);
            return Ok(Some((self, request)));
        }
        // The run lock goes first, while the state lock is held: a request
        // arriving now either saw the run (and is pending, which was
        // checked above) or sees it gone.
        drop(self);
        drop(state_lock);
        Ok(None)
    }
}
