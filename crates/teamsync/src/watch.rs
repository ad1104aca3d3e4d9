//! The watcher (R8.8): pull once, then push a debounce after the last
//! change in the team folder.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{EventKind, ModifyKind, RenameMode};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::client::Client;
use crate::error::{ErrorType, SyncError};
use crate::result::SyncResult;

/// `DEBOUNCE_MS` (R8.8): the push follows the last change by this much.
pub const DEBOUNCE: Duration = Duration::from_secs(2);

/// How a [`Watcher`] behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// How long after the last change (or [`Watcher::notify_write`]) the
    /// push runs. Default [`DEBOUNCE`], 2,000 ms.
    pub debounce: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self { debounce: DEBOUNCE }
    }
}

/// Why a [`Watcher`] did not start. The causes are sources, not repeated
/// in the messages: print the chain to see them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// No credentials or no repository: the failed result, with
    /// `errorType` `no_oauth` or `no_repo`.
    #[error("{}", .0.error.as_deref().unwrap_or("no credentials or repository"))]
    Sync(Box<SyncResult>),
    /// The team folder could not be created.
    #[error("cannot create {}", path.display())]
    CreateFolder {
        /// The team folder.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file-system watcher could not start, or not watch the folder.
    #[error("cannot watch {}", path.display())]
    Watch {
        /// The team folder.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: notify::Error,
    },
    /// The thread that pushes after changes could not start.
    #[error("cannot start the watcher thread")]
    Thread(#[source] std::io::Error),
}

impl WatchError {
    /// The `errorType` of a [`WatchError::Sync`].
    #[must_use]
    pub fn error_type(&self) -> Option<ErrorType> {
        match self {
            Self::Sync(r) => r.error_type,
            _ => None,
        }
    }
}

enum Msg {
    Events(DebounceEventResult),
    Write,
    Stop,
}

/// A running watcher of one team folder (R8.8).
///
/// [`Watcher::start`] checks the credentials and repository, pulls once,
/// then watches the team folder recursively (one watch: inotify, `FSEvents`
/// or the platform's equivalent) and pushes [`WatchOptions::debounce`]
/// after the last change. Each push's [`SyncResult`] is sent to
/// [`Watcher::results`]. Hidden paths (`.sync-state.json`, `.conflicts/`,
/// temporary files) are ignored, and so are read-only accesses, so neither
/// the watcher's own pull nor its pushes schedule a push.
///
/// After a permanent failure ([`SyncError::is_permanent`]: `no_oauth`,
/// `no_repo`, `auth`, or a 4xx other than 409 and 429) pushes are suppressed until a file is deleted (an event for a
/// path no longer on disk): deleting files is how a user recovers from
/// "too many entries".
pub struct Watcher {
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
    debouncer: Option<Debouncer<RecommendedWatcher, RecommendedCache>>,
    results: Receiver<SyncResult>,
    initial_pull: SyncResult,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("initial_pull", &self.initial_pull)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// Checks credentials and repository, pulls once, then starts watching.
    ///
    /// The watcher starts even when the pull fails or the server has no
    /// content yet; a pull that failed permanently starts it suppressed.
    pub fn start(client: Client, options: WatchOptions) -> Result<Self, WatchError> {
        if let Err(e) = client.credentials() {
            return Err(WatchError::Sync(Box::new(SyncResult::from_error(&e))));
        }
        let team = client.team_dir.clone();
        std::fs::create_dir_all(&team).map_err(|source| WatchError::CreateFolder {
            path: team.clone(),
            source,
        })?;
        // Pull BEFORE watching, so that its writes schedule nothing.
        let (initial_pull, pull_error) = crate::pull::run(&client);

        let (tx, rx) = channel();
        let events_tx = tx.clone();
        let grain =
            (options.debounce / 4).clamp(Duration::from_millis(10), Duration::from_millis(500));
        let mut debouncer = new_debouncer(grain, None, move |r: DebounceEventResult| {
            let _ = events_tx.send(Msg::Events(r));
        })
        .map_err(|source| WatchError::Watch {
            path: team.clone(),
            source,
        })?;
        debouncer
            .watch(&team, RecursiveMode::Recursive)
            .map_err(|source| WatchError::Watch {
                path: team.clone(),
                source,
            })?;

        let (results_tx, results) = channel();
        let suppressed = is_permanent(pull_error.as_ref());
        record_suppression(
            &team,
            suppressed.then(|| {
                initial_pull
                    .error
                    .as_deref()
                    .unwrap_or("a permanent failure")
            }),
        );
        let worker = Worker {
            client,
            team,
            debounce: options.debounce,
            suppressed,
            deadline: None,
            results: results_tx,
        };
        let thread = std::thread::Builder::new()
            .name("memdir-team-watch".to_owned())
            .spawn(move || worker.run(&rx))
            .map_err(WatchError::Thread)?;
        Ok(Self {
            tx,
            thread: Some(thread),
            debouncer: Some(debouncer),
            results,
            initial_pull,
        })
    }

    /// The result of the pull made at start-up.
    #[must_use]
    pub fn initial_pull(&self) -> &SyncResult {
        &self.initial_pull
    }

    /// Says "I just wrote a team memory": schedules the same push a change
    /// in the folder does (unless pushes are suppressed).
    pub fn notify_write(&self) {
        let _ = self.tx.send(Msg::Write);
    }

    /// Each push's result, in order (for `memdir team watch` to log).
    #[must_use]
    pub fn results(&self) -> &Receiver<SyncResult> {
        &self.results
    }

    /// Stops watching and ends the thread; a pending push is dropped.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(d) = self.debouncer.take() {
            d.stop();
        }
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The hidden file in the team folder that records why a watcher holds
/// pushes back; absent when it does not.
pub const SUPPRESSED_FILE: &str = ".sync-suppressed";

/// Writes or removes [`SUPPRESSED_FILE`], under the team folder's lock.
/// Failing to record it only makes `status` less informative, so errors
/// are ignored.
fn record_suppression(team: &std::path::Path, reason: Option<&str>) {
    let Ok(folder) = memdir_folder::MemoryFolder::create(team) else {
        return;
    };
    let Ok(lock) = folder.lock(memdir_folder::DEFAULT_LOCK_TIMEOUT) else {
        return;
    };
    let _ = match reason {
        Some(reason) => lock.write(SUPPRESSED_FILE, reason.as_bytes()),
        None => lock.remove_file(SUPPRESSED_FILE).map(|_| ()),
    };
}

/// Why a watcher on `team` holds pushes back, if one does.
pub(crate) fn suppression(team: &std::path::Path) -> Option<String> {
    let folder = memdir_folder::MemoryFolder::open(team).ok()?;
    let bytes = folder.read(SUPPRESSED_FILE, 4096).ok()??;
    String::from_utf8(bytes).ok()
}

struct Worker {
    client: Client,
    team: PathBuf,
    debounce: Duration,
    suppressed: bool,
    deadline: Option<Instant>,
    results: Sender<SyncResult>,
}

impl Worker {
    fn run(mut self, rx: &Receiver<Msg>) {
        loop {
            // Idle: block until something arrives; no polling.
            let msg = match self.deadline {
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now())),
            };
            match msg {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                // An explicit notify, or the watcher lost track (a push
                // re-lists everything anyway).
                Ok(Msg::Write | Msg::Events(Err(_))) => self.schedule(),
                Ok(Msg::Events(Ok(events))) => {
                    let (changed, deleted) = self.classify(&events);
                    if deleted {
                        self.set_suppressed(None);
                    }
                    if changed {
                        self.schedule();
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.deadline = None;
                    let (result, error) = crate::push::run(&self.client);
                    if is_permanent(error.as_ref()) {
                        self.set_suppressed(Some(
                            result.error.as_deref().unwrap_or("a permanent failure"),
                        ));
                    }
                    let _ = self.results.send(result);
                }
            }
        }
    }

    /// Suppresses pushes (with the reason) or lifts the suppression, and
    /// records it in the team folder's hidden [`SUPPRESSED_FILE`] so that
    /// `status` can tell.
    fn set_suppressed(&mut self, reason: Option<&str>) {
        self.suppressed = reason.is_some();
        record_suppression(&self.team, reason);
    }

    fn schedule(&mut self) {
        if !self.suppressed {
            self.deadline = Some(Instant::now() + self.debounce);
        }
    }

    /// Whether the events change anything pushable, and whether one of
    /// them is a deletion.
    fn classify(&self, events: &[notify_debouncer_full::DebouncedEvent]) -> (bool, bool) {
        let (mut changed, mut deleted) = (false, false);
        for event in events {
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            let removal = matches!(
                event.kind,
                EventKind::Remove(_)
                    | EventKind::Modify(ModifyKind::Name(RenameMode::From | RenameMode::Any))
            );
            for path in &event.paths {
                if is_hidden(&self.team, path) {
                    continue;
                }
                changed = true;
                // "Is it still on disk?" is the robust deletion test.
                if removal && !path.exists() {
                    deleted = true;
                }
                // Files written straight into a new folder can arrive
                // before its watch does; they need nothing here: the push
                // this schedules lists the whole folder, so none are missed.
            }
        }
        (changed, deleted)
    }
}

/// Whether a path is hidden relative to the team folder (the sync state,
/// conflict copies, temporary files of atomic writes): the one hidden rule
/// of [`memdir_memtypes::walk::is_hidden`], applied to every name below the
/// team folder.
fn is_hidden(team: &Path, path: &Path) -> bool {
    memdir_memtypes::walk::is_hidden_path(path.strip_prefix(team).unwrap_or(path))
}

/// Whether a sync stopped by a permanent failure, which suppresses pushes:
/// see [`SyncError::is_permanent`].
fn is_permanent(error: Option<&SyncError>) -> bool {
    error.is_some_and(SyncError::is_permanent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permanent_failures() {
        let answer = |status| SyncError::from_answer(status, "x");
        assert!(!is_permanent(None));
        assert!(is_permanent(Some(&answer(401))));
        assert!(is_permanent(Some(&SyncError::NoToken)));
        assert!(is_permanent(Some(&SyncError::NoRepo)));
        assert!(!is_permanent(Some(&answer(503))));
        assert!(!is_permanent(Some(&SyncError::Conflict)));
        assert!(is_permanent(Some(&answer(413))));
        assert!(is_permanent(Some(&answer(400))));
        assert!(!is_permanent(Some(&answer(409))));
        assert!(!is_permanent(Some(&answer(429))));
        assert!(!is_permanent(Some(&SyncError::StateWrite(
            memdir_folder::FolderError::NotAFolder {
                path: "/t/team".into()
            }
        ))));
    }

    #[test]
    fn hidden_paths() {
        let team = Path::new("/t/team");
        assert!(is_hidden(team, Path::new("/t/team/.sync-state.json")));
        assert!(is_hidden(team, Path::new("/t/team/.conflicts/a.md.1")));
        assert!(is_hidden(team, Path::new("/t/team/a/.tmpXYZ")));
        assert!(!is_hidden(team, Path::new("/t/team/a/b.md")));
        assert!(!is_hidden(
            Path::new("/t/.team"),
            Path::new("/t/.team/b.md")
        ));
    }
}
