//! The dream step (SPEC R7.1): the daily logs of assistant mode that no
//! dream has read yet are distilled into topic files and index lines by the
//! same restricted agent as extraction.
//!
//! What was consumed is memdir's own state, `<base>/memdir/dream/<project>.json`
//! (each log's path inside the memory folder and the bytes it had when it
//! was read), written only after a run that did not fail; a log that grew
//! since is read again. `<project>.lock` keeps two dreams of one project
//! apart across processes.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use camino::Utf8Path;
use memdir_agent::ChatModel;
use serde::{Deserialize, Serialize};

use crate::ExtractError;
use crate::run::{Outcome, manifest, run_restricted, with_slash};

/// The instruction text of a dream run.
const DREAM: &str = include_str!("text/dream.md");
/// The most bytes the dream state may have.
const MAX_STATE_BYTES: u64 = 1024 * 1024;
/// The turn budget of a dream run.
pub const DREAM_MAX_TURNS: u32 = 5;

/// Where and how a dream works.
#[derive(Debug, Clone)]
pub struct DreamSetup {
    /// The project root: Read, Grep, Glob and Bash work here.
    pub project_root: PathBuf,
    /// The private memory folder, which holds `logs/`.
    pub auto_dir: PathBuf,
    /// memdir's base folder; the state goes under `<base>/memdir/dream/`.
    pub base: PathBuf,
    /// The project's key, naming its state file.
    pub project_key: String,
    /// The agent's turn budget.
    pub max_turns: u32,
}

/// What a dream did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DreamOutcome {
    /// Whether the agent ran (there were logs to read).
    pub ran: bool,
    /// Why it ran or did not, in words.
    pub reason: String,
    /// The memory files written, in order.
    pub saved: Vec<PathBuf>,
    /// The logs given to the run.
    pub logs_read: Vec<PathBuf>,
    /// Model calls made.
    pub turns: u32,
    /// Tool calls refused: the tool and the reason.
    pub refused: Vec<(String, String)>,
    /// How the run ended, when one ran.
    pub stop: Option<String>,
    /// Whether the run failed (the logs stay unconsumed).
    pub failed: bool,
}

/// The logs consumed so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DreamState {
    /// Each log (its `/`-separated path in the memory folder) and its
    /// length in bytes when it was read.
    #[serde(default)]
    consumed: BTreeMap<String, u64>,
}

/// A log not yet consumed, and its length now.
#[derive(Debug, Clone)]
struct Pending {
    rel: String,
    path: PathBuf,
    bytes: u64,
}

/// Runs a dream: distils the logs not yet consumed, or, when there are
/// none (or another dream of this project is under way), makes no model
/// call at all.
pub fn dream(model: &Arc<dyn ChatModel>, setup: &DreamSetup) -> Result<DreamOutcome, ExtractError> {
    let dir = setup.base.join("memdir").join("dream");
    std::fs::create_dir_all(&dir).map_err(|source| ExtractError::State {
        path: dir.clone(),
        source,
    })?;
    let key = memdir_transcript::session_file_stem(&setup.project_key);
    let state_path = dir.join(format!("{key}.json"));
    let lock_path = dir.join(format!("{key}.lock"));
    let mut outcome = DreamOutcome::default();
    let Some(_lock) = try_lock(&lock_path)? else {
        "a dream of this project is under way".clone_into(&mut outcome.reason);
        return Ok(outcome);
    };
    let mut state = load(&state_path)?;
    let pending = pending_logs(&setup.auto_dir, &state)?;
    if pending.is_empty() {
        "no new logs since the last dream".clone_into(&mut outcome.reason);
        return Ok(outcome);
    }
    let paths: Vec<PathBuf> = pending.iter().map(|p| p.path.clone()).collect();
    let mut run = Outcome::default();
    let stop = run_restricted(
        model,
        &setup.project_root,
        &setup.auto_dir,
        None,
        setup.max_turns,
        |scope| {
            let auto_dir = with_slash(Utf8Path::new(&scope.private_path().display().to_string()));
            let logs: Vec<String> = paths.iter().map(|p| format!("- {}", p.display())).collect();
            fill(
                &auto_dir,
                &logs.join("\n"),
                &manifest(scope.private_path(), false),
                setup.max_turns.max(1),
            )
        },
        &mut run,
    )?;
    outcome.ran = run.ran;
    outcome.turns = run.turns;
    outcome.refused = run.refused;
    outcome.saved = run.saved;
    outcome.logs_read = paths;
    outcome.stop = Some(stop.describe());
    outcome.failed = stop.is_failure();
    if outcome.failed {
        outcome.reason = format!(
            "read {} logs, and failed: {}; they are read again next time",
            pending.len(),
            stop.describe()
        );
        return Ok(outcome);
    }
    for p in &pending {
        state.consumed.insert(p.rel.clone(), p.bytes);
    }
    save(&state_path, &state)?;
    outcome.reason = format!("read {} new logs", pending.len());
    Ok(outcome)
}

fn fill(auto_dir: &str, logs: &str, manifest: &str, max_turns: u32) -> String {
    let manifest = if manifest.trim().is_empty() {
        "(none yet)"
    } else {
        manifest
    };
    let max_turns = max_turns.to_string();
    memdir_prompt::fill_template(
        DREAM,
        &[
            ("auto_dir", auto_dir),
            ("logs", logs),
            ("manifest", manifest),
            ("max_turns", &max_turns),
        ],
    )
}

fn try_lock(path: &Path) -> Result<Option<File>, ExtractError> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| ExtractError::State {
            path: path.to_owned(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(source)) => Err(ExtractError::State {
            path: path.to_owned(),
            source,
        }),
    }
}

fn load(path: &Path) -> Result<DreamState, ExtractError> {
    match memdir_memtypes::read_regular_file(path, MAX_STATE_BYTES) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ExtractError::DamagedState {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
        Err(e) if e.is_not_found() => Ok(DreamState::default()),
        Err(e) => Err(ExtractError::ReadState(e)),
    }
}

fn save(path: &Path, state: &DreamState) -> Result<(), ExtractError> {
    let mut text = serde_json::to_string_pretty(state).map_err(|e| ExtractError::DamagedState {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    memdir_memtypes::atomic_write(path, text.as_bytes()).map_err(ExtractError::WriteState)
}

/// The daily logs `logs/YYYY/MM/YYYY-MM-DD.md` of `auto_dir` that are new
/// or grew since they were consumed, oldest first. Anything else under
/// `logs/` (a link, a folder or file of another name) is passed over.
fn pending_logs(auto_dir: &Path, state: &DreamState) -> Result<Vec<Pending>, ExtractError> {
    let mut out = Vec::new();
    for year in entries(&auto_dir.join("logs"), |n| is_digits(n, 4), true)? {
        for month in entries(&year.1, |n| is_digits(n, 2), true)? {
            for (name, path) in entries(&month.1, is_log_name, false)? {
                let meta =
                    std::fs::symlink_metadata(&path).map_err(|source| ExtractError::State {
                        path: path.clone(),
                        source,
                    })?;
                let rel = format!("logs/{}/{}/{name}", year.0, month.0);
                let bytes = meta.len();
                if bytes == 0 || state.consumed.get(&rel) == Some(&bytes) {
                    continue;
                }
                out.push(Pending { rel, path, bytes });
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// The entries of `dir` whose names pass `keep`: folders when `dirs`, else
/// regular files; never links. A missing folder has none.
fn entries(
    dir: &Path,
    keep: impl Fn(&str) -> bool,
    dirs: bool,
) -> Result<Vec<(String, PathBuf)>, ExtractError> {
    let read = match std::fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ExtractError::State {
                path: dir.to_owned(),
                source,
            });
        }
    };
    let mut out = Vec::new();
    for entry in read.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let wanted = if dirs { kind.is_dir() } else { kind.is_file() };
        if wanted && keep(&name) {
            out.push((name, entry.path()));
        }
    }
    Ok(out)
}

fn is_digits(name: &str, len: usize) -> bool {
    name.len() == len && name.bytes().all(|b| b.is_ascii_digit())
}

fn is_log_name(name: &str) -> bool {
    name.strip_suffix(".md").is_some_and(|stem| {
        let parts: Vec<&str> = stem.split('-').collect();
        parts.len() == 3
            && is_digits(parts[0], 4)
            && is_digits(parts[1], 2)
            && is_digits(parts[2], 2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_log_names_count() {
        assert!(is_log_name("2026-11-29.md"));
        assert!(!is_log_name("2026-11-29.md.bak"));
        assert!(!is_log_name("notes.md"));
        assert!(!is_log_name("2026-1-29.md"));
    }

    #[test]
    fn consumed_logs_are_not_pending_until_they_grow() {
        let tmp = tempfile::tempdir().unwrap();
        let logs = tmp.path().join("logs/2026/11");
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(logs.join("2026-11-29.md"), "- 10:00 — a\n").unwrap();
        std::fs::write(logs.join("2026-11-30.md"), "- 11:00 — b\n").unwrap();
        std::fs::write(logs.join("other.md"), "x\n").unwrap();
        let mut state = DreamState::default();
        let pending = pending_logs(tmp.path(), &state).unwrap();
        let rels: Vec<&str> = pending.iter().map(|p| p.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["logs/2026/11/2026-11-29.md", "logs/2026/11/2026-11-30.md"]
        );
        for p in &pending {
            state.consumed.insert(p.rel.clone(), p.bytes);
        }
        assert!(pending_logs(tmp.path(), &state).unwrap().is_empty());
        std::fs::write(logs.join("2026-11-30.md"), "- 11:00 — b\n- 12:00 — c\n").unwrap();
        let again = pending_logs(tmp.path(), &state).unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].rel, "logs/2026/11/2026-11-30.md");
    }

    #[test]
    fn a_placeholder_in_a_value_is_not_expanded() {
        let text = fill("/m/", "- /m/logs/{manifest}.md", "", 5);
        assert!(text.contains("- /m/logs/{manifest}.md"));
        assert!(text.contains("(none yet)"));
    }

    #[cfg(unix)]
    #[test]
    fn links_under_logs_are_never_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(outside.join("11")).unwrap();
        std::fs::write(outside.join("secret.md"), "private\n").unwrap();
        std::fs::write(outside.join("11/2026-11-01.md"), "private\n").unwrap();
        let auto = tmp.path().join("memory");
        let logs = auto.join("logs/2026/11");
        std::fs::create_dir_all(&logs).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.md"), logs.join("2026-11-28.md")).unwrap();
        std::os::unix::fs::symlink(&outside, auto.join("logs/2027")).unwrap();
        assert!(
            pending_logs(&auto, &DreamState::default())
                .unwrap()
                .is_empty()
        );
    }
}
