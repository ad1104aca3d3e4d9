//! One run over the table: read the files, decide each migration in order
//! over the files as the earlier ones left them, commit each applied one
//! (its targets first, then the file its old value leaves), and record
//! done-flags, fingerprints and events.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use memdir_settings::{
    MAX_SETTINGS_BYTES, SettingsDocument, SettingsPath, SettingsWriteError, read_settings_file,
    replace_settings_file,
};
use serde::Serialize;

use crate::shapes::{self, FileKind};
use crate::state::{self, StateFile};
use crate::table::{Context, Decision, Edit, Guard, Migration, Read, Slot, TABLE};
use crate::{Locations, MAX_GLOBAL_CONFIG_BYTES, MigrationError, Subscription};

/// How a run goes.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Decide and show every change as a diff, write nothing: no file of
    /// the agent's, no state, no backup, no event, no lock file.
    pub dry_run: bool,
    /// The time recorded in done-flags, events and backup names; `None`
    /// is now.
    pub now: Option<Timestamp>,
}

/// What one migration did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// The migration's id, e.g. `opus-to-opus-1m`.
    pub id: &'static str,
    /// Whether it changed a file (in a dry run: would have).
    pub applied: bool,
    /// The file that received the new value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// What changed, in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// Why it changed nothing: its guard, a file left alone, a failed
    /// write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_because: Option<String>,
    /// In a dry run, the change as a unified diff of each file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Whether it was held back by something to fix (a file it needs that
    /// cannot be used, a value of an unexpected type, a failed write)
    /// rather than by its guard.
    #[serde(skip)]
    pub blocked: bool,
}

/// A file a run could not use, and what that held back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// One line that starts with the path: `/h/.claude.json: it is not
    /// valid JSON; left untouched`.
    pub message: String,
    /// What kind of problem it is.
    pub kind: ProblemKind,
}

/// What kind of [`Problem`] a file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The file cannot be read as a settings file to write: not valid
    /// JSON, not an object, not a regular file, a symbolic link, a linked
    /// folder on the way to it, too large.
    Unusable,
    /// The file is JSON, but a value the migrations read has an unexpected
    /// type; the whole file is left as it is.
    UnexpectedType,
    /// The subscription record or memdir's own state cannot be read.
    Record,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// One outcome per migration, in the table's order.
    pub outcomes: Vec<Outcome>,
    /// The files left untouched because they could not be used (not JSON,
    /// a symbolic link, …).
    pub problems: Vec<Problem>,
    /// The backup of the global configuration made before it changed.
    pub backup: Option<PathBuf>,
    /// The subscription the plan-dependent migrations saw.
    pub subscription: Subscription,
    /// Whether this was a dry run.
    pub dry_run: bool,
}

impl Report {
    /// The outcomes that changed a file.
    pub fn applied(&self) -> impl Iterator<Item = &Outcome> {
        self.outcomes.iter().filter(|o| o.applied)
    }
}

/// The files of a run.
struct Files {
    global: Slot,
    user: Slot,
    local: Option<Slot>,
}

/// Which of the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    User,
    Local,
    Global,
}

impl Which {
    fn kind(self) -> FileKind {
        match self {
            Which::User => FileKind::User,
            Which::Local => FileKind::Local,
            Which::Global => FileKind::Global,
        }
    }

    fn limit(self) -> u64 {
        match self {
            Which::Global => MAX_GLOBAL_CONFIG_BYTES,
            Which::User | Which::Local => MAX_SETTINGS_BYTES,
        }
    }
}

impl Files {
    fn read(at: &Locations) -> Files {
        Files {
            global: read_slot(at, &at.global_config, Which::Global),
            user: read_slot(at, &at.user_settings, Which::User),
            local: at
                .project
                .as_ref()
                .map(|p| read_slot(at, &p.local_settings, Which::Local)),
        }
    }

    fn slot_mut(&mut self, which: Which) -> &mut Slot {
        match which {
            Which::User => &mut self.user,
            Which::Local => self.local.as_mut().expect("only a project's run edits it"),
            Which::Global => &mut self.global,
        }
    }

    fn problems(&self) -> Vec<Problem> {
        [Some(&self.global), Some(&self.user), self.local.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|slot| {
                let (kind, why) = slot.damage.as_ref()?;
                Some(Problem {
                    path: slot.path.clone(),
                    message: format!("{why}; left untouched"),
                    kind: *kind,
                })
            })
            .collect()
    }
}

/// Reads one of the agent's files and checks the types of the values the
/// migrations read in it: a file that cannot be used, or holds a value of
/// an unexpected type, is left whole (its slot holds why).
fn read_slot(at: &Locations, path: &Path, which: Which) -> Slot {
    let target = at.target(path);
    let (state, damage) = match read_settings_file(&target, which.limit()) {
        Err(e) => {
            let why = unusable(&e);
            (Err(why.clone()), Some((ProblemKind::Unusable, why)))
        }
        Ok(read) => match shapes::check(which.kind(), &read.document) {
            Err(what) => {
                let why = format!("{}: {what}", path.display());
                (Err(why.clone()), Some((ProblemKind::UnexpectedType, why)))
            }
            Ok(()) => (
                Ok(Read {
                    bytes: read.bytes,
                    doc: read.document,
                }),
                None,
            ),
        },
    };
    Slot {
        path: path.to_owned(),
        target,
        state,
        damage,
    }
}

/// Why a file is left alone, in a line that starts with its path:
/// `/h/.claude.json: it is not valid JSON`.
fn unusable(error: &SettingsWriteError) -> String {
    let text = error.to_string();
    text.strip_prefix("cannot update settings ")
        .map_or(text.clone(), str::to_owned)
}

/// Runs every migration in order (see the crate documentation).
pub fn run(at: &Locations, options: &RunOptions) -> Result<Report, MigrationError> {
    let _lock = if options.dry_run {
        None
    } else {
        take_lock(at, true)?
    };
    execute(at, options)
}

/// The cheap start-up run: nothing is read but memdir's state and the
/// inputs' metadata when no input changed since the last full run
/// (`Ok(None)`), and nothing waits when another process is running the
/// migrations (`Ok(None)` too: it does the work). Without any of the
/// agent's files there is nothing to do and nothing is created.
pub fn run_if_needed(at: &Locations) -> Result<Option<Report>, MigrationError> {
    // Nothing of the agent's here (memdir used on its own): nothing to
    // migrate, and no folder of memdir's is made.
    let local = at.project.as_ref().map(|p| p.local_settings.as_path());
    let agent_files = [
        Some(at.global_config.as_path()),
        Some(at.user_settings.as_path()),
        local,
    ];
    if agent_files
        .into_iter()
        .flatten()
        .all(|p| std::fs::symlink_metadata(p).is_err())
    {
        return Ok(None);
    }
    if let Ok(file) = StateFile::load(&at.target(&at.state_file())) {
        let same = file.state.table == TABLE.len()
            && inputs(at)
                .iter()
                .all(|(path, print)| file.state.inputs.get(path) == Some(print));
        if same {
            return Ok(None);
        }
    }
    let Some(_lock) = take_lock(at, false)? else {
        return Ok(None);
    };
    execute(at, &RunOptions::default()).map(Some)
}

/// The fingerprints of a run's inputs, keyed by path.
fn inputs(at: &Locations) -> Vec<(String, String)> {
    let mut paths = vec![&at.global_config, &at.user_settings, &at.credentials];
    if let Some(project) = &at.project {
        paths.push(&project.local_settings);
    }
    paths
        .into_iter()
        .map(|p| (p.display().to_string(), state::fingerprint(p)))
        .collect()
}

/// The run itself, under the lock when it writes.
fn execute(at: &Locations, options: &RunOptions) -> Result<Report, MigrationError> {
    let now = options.now.unwrap_or_else(Timestamp::now);
    let state_file = at.target(&at.state_file());
    let mut state = StateFile::load(&state_file);
    let mut files = Files::read(at);
    let subscription = Subscription::read(&at.credentials);
    let mut problems = files.problems();
    if let Err(why) = &subscription {
        problems.push(Problem {
            path: at.credentials.clone(),
            message: format!("{why}; the plan-dependent migrations wait"),
            kind: ProblemKind::Record,
        });
    }
    if let Err(why) = &state {
        problems.push(Problem {
            path: at.state_file(),
            message: format!("{why}; the once-only migrations wait"),
            kind: ProblemKind::Record,
        });
    }
    let mut run = Run {
        at,
        options,
        now,
        backup: None,
    };
    let mut outcomes = Vec::with_capacity(TABLE.len());
    for migration in &TABLE {
        let outcome = match (&mut state, migration.guard) {
            (Err(_), Guard::DoneFlag) => {
                skipped(migration.id, "memdir's state.json cannot be read")
            }
            (Ok(file), Guard::DoneFlag) if file.state.done.contains_key(migration.id) => skipped(
                migration.id,
                &format!("already done at {}", file.state.done[migration.id]),
            ),
            (state, guard) => {
                let (outcome, settled) = run.one(migration, &mut files, &subscription)?;
                if let (Ok(file), Guard::DoneFlag, true) = (state, guard, settled) {
                    file.state
                        .done
                        .insert(migration.id.to_owned(), now.to_string());
                }
                outcome
            }
        };
        outcomes.push(outcome);
    }
    if let (false, Ok(mut file)) = (options.dry_run, state) {
        file.state.table = TABLE.len();
        file.state.inputs = inputs(at).into_iter().collect();
        file.save(&state_file, &at.lock_dir())?;
    }
    Ok(Report {
        outcomes,
        problems,
        backup: run.backup,
        subscription: subscription.unwrap_or(Subscription::Unknown),
        dry_run: options.dry_run,
    })
}

/// Takes the run's lock, creating memdir's folder; `None` when `wait` is
/// off and another process holds it.
fn take_lock(at: &Locations, wait: bool) -> Result<Option<File>, MigrationError> {
    let dir = at.state_dir();
    std::fs::create_dir_all(&dir).map_err(|source| MigrationError::StateDir {
        path: dir.clone(),
        source,
    })?;
    let path = at.lock_file();
    let failed = |source| MigrationError::Lock {
        path: path.clone(),
        source,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(failed)?;
    if wait {
        file.lock().map_err(failed)?;
    } else {
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
        }
    }
    Ok(Some(file))
}

/// A time as done-flags and events record it: RFC 3339 to the second.
fn stamp(time: Timestamp) -> String {
    time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn skipped(id: &'static str, why: &str) -> Outcome {
    Outcome {
        id,
        applied: false,
        file: None,
        change: None,
        skipped_because: Some(why.to_owned()),
        diff: None,
        blocked: false,
    }
}

fn blocked(id: &'static str, why: &str) -> Outcome {
    Outcome {
        blocked: true,
        ..skipped(id, why)
    }
}

/// A run's settings and what it has done so far.
struct Run<'a> {
    at: &'a Locations,
    options: &'a RunOptions,
    now: Timestamp,
    backup: Option<PathBuf>,
}

/// A migration's edits, by file, in the order they are written.
type Edits = Vec<(Which, SettingsDocument)>;

impl Run<'_> {
    /// Decides and commits one migration. The flag says whether the
    /// migration is settled (a done-flag may be recorded): it applied, or
    /// its guard said there was nothing to do.
    fn one(
        &mut self,
        migration: &Migration,
        files: &mut Files,
        subscription: &Result<Subscription, String>,
    ) -> Result<(Outcome, bool), MigrationError> {
        // A file another program changed between our read and our write is
        // read again and the migration decided again, once.
        for attempt in 0..2 {
            let (decision, edits) = decide(migration, files, self.at, subscription);
            let change = match decision {
                Err(why) => return Ok((blocked(migration.id, &why), false)),
                Ok(Decision::NotNeeded(why)) => return Ok((skipped(migration.id, &why), true)),
                Ok(Decision::Applied(change)) => change,
            };
            match self.commit(migration.id, &change, edits, files) {
                Ok(outcome) => return Ok((outcome, true)),
                Err(Failure::Changed(which)) if attempt == 0 => {
                    let slot = files.slot_mut(which);
                    *slot = read_slot(self.at, &slot.path.clone(), which);
                }
                Err(Failure::Changed(_)) => {
                    return Ok((
                        blocked(
                            migration.id,
                            "its files kept changing while it ran; the next run tries again",
                        ),
                        false,
                    ));
                }
                Err(Failure::Write(why)) => return Ok((blocked(migration.id, &why), false)),
                Err(Failure::Fatal(e)) => return Err(e),
            }
        }
        unreachable!("the second attempt always returns")
    }

    /// Writes a migration's edits (or, in a dry run, shows them) and logs
    /// its event.
    fn commit(
        &mut self,
        id: &'static str,
        change: &str,
        edits: Edits,
        files: &mut Files,
    ) -> Result<Outcome, Failure> {
        let target = edits
            .first()
            .map(|(which, _)| files.slot_mut(*which).path.clone());
        let mut diffs = String::new();
        let mut written: Vec<PathBuf> = Vec::new();
        for (which, doc) in edits {
            let text = doc.to_json();
            let slot = files.slot_mut(which);
            let before = slot
                .state
                .as_ref()
                .ok()
                .and_then(|r| r.bytes.clone())
                .unwrap_or_default();
            if self.options.dry_run {
                diffs.push_str(&crate::diff::unified(&slot.path, &before, &text));
            } else if let Err(failure) = self.write(which, slot, &before, &doc) {
                return Err(match (failure, written.is_empty()) {
                    (Failure::Write(why), false) => Failure::Write(format!(
                        "wrote {} but {why}; the next run completes it",
                        list(&written)
                    )),
                    (failure, _) => failure,
                });
            }
            written.push(slot.path.clone());
            let doc = SettingsDocument::parse(text.as_bytes()).expect("a document's text parses");
            slot.state = Ok(Read {
                bytes: Some(text.into_bytes()),
                doc,
            });
            slot.damage = None;
        }
        if !self.options.dry_run {
            let at = stamp(self.now);
            state::append_event(&self.at.event_log(), id, &at, target.as_deref(), change)
                .map_err(Failure::Fatal)?;
            log::debug!("migrated settings: {change}");
        }
        Ok(Outcome {
            id,
            applied: true,
            file: target,
            change: Some(change.to_owned()),
            skipped_because: None,
            diff: self.options.dry_run.then_some(diffs),
            blocked: false,
        })
    }

    /// Replaces one file, after the folder it needs and (for the global
    /// configuration) a backup.
    fn write(
        &mut self,
        which: Which,
        slot: &Slot,
        before: &[u8],
        doc: &SettingsDocument,
    ) -> Result<(), Failure> {
        let expected = slot.state.as_ref().ok().and_then(|r| r.bytes.as_deref());
        if let Some(parent) = slot.path.parent() {
            // The user's base folder, or a project's `.claude/` (inside a
            // project folder that must exist).
            let create = match which {
                Which::Local => {
                    parent.parent().is_some_and(Path::is_dir)
                        && std::fs::create_dir(parent).or_else(exists_ok).is_ok()
                }
                Which::User => std::fs::create_dir_all(parent).is_ok(),
                Which::Global => true,
            };
            if !create {
                return Err(Failure::Write(format!(
                    "cannot create the folder {}",
                    parent.display()
                )));
            }
        }
        if which == Which::Global && expected.is_some() && self.backup.is_none() {
            let name = slot.path.file_name().map_or_else(
                || ".claude.json".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
            let made = state::backup(&self.at.base, &name, before, self.now.as_millisecond())
                .map_err(|e| {
                    Failure::Write(format!(
                        "cannot back up {} in {}: {e}",
                        slot.path.display(),
                        self.at.backup_dir().display()
                    ))
                })?;
            self.backup = Some(made);
        }
        let target: &SettingsPath = &slot.target;
        match replace_settings_file(target, &self.at.lock_dir(), expected, doc, which.limit()) {
            Ok(()) => Ok(()),
            Err(SettingsWriteError::ChangedMeanwhile { .. }) => Err(Failure::Changed(which)),
            Err(e) => Err(Failure::Write(e.to_string())),
        }
    }
}

/// Why a commit stopped.
enum Failure {
    /// A file changed since it was read.
    Changed(Which),
    /// A write failed; the message says which and why.
    Write(String),
    /// memdir's own records cannot be written.
    Fatal(MigrationError),
}

fn exists_ok(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::AlreadyExists {
        Ok(())
    } else {
        Err(e)
    }
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Runs a migration's decision over the files as they are, returning its
/// edits in write order: the files that receive new values first, the
/// global configuration (where old values are removed) last.
fn decide(
    migration: &Migration,
    files: &Files,
    at: &Locations,
    subscription: &Result<Subscription, String>,
) -> (Result<Decision, String>, Edits) {
    let mut cx = Context {
        global: Edit::new(&files.global),
        user: Edit::new(&files.user),
        local: files.local.as_ref().map(Edit::new),
        project_dir: at.project.as_ref().map(|p| p.dir.as_path()),
        subscription,
    };
    let decision = (migration.run)(&mut cx);
    if !matches!(decision, Ok(Decision::Applied(_))) {
        return (decision, Vec::new());
    }
    let Context {
        global,
        user,
        local,
        ..
    } = cx;
    let edits = [
        (Which::User, user.into_changed()),
        (Which::Local, local.and_then(Edit::into_changed)),
        (Which::Global, global.into_changed()),
    ]
    .into_iter()
    .filter_map(|(which, doc)| doc.map(|doc| (which, doc)))
    .collect();
    (decision, edits)
}
