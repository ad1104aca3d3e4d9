//! The agent's hooks (SPEC R17.3): memdir's entries in a settings file's
//! `hooks` key, installed and removed without touching anything else, and
//! the per-session record of which memories a prompt hook already
//! injected.
//!
//! The settings shape is the reference agent's, as its public hooks
//! documentation gives it (<https://docs.claude.com/en/docs/claude-code/hooks>):
//! `"hooks": {"<Event>": [{"matcher": "", "hooks": [{"type": "command",
//! "command": "…"}]}]}`, one array of matcher groups per event.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use memdir_memtypes::{atomic_write, read_regular_file};
use memdir_settings::{
    LockDir, SettingsDocument, SettingsPath, read_settings_file, update_settings_file,
};
use serde_json::{Map, Value, json};

use crate::ordered::{Ordered, in_order_of, pretty};
use crate::{AgentRecall, OpsError, Project, RecallRequest, SelectorChoice};

/// How long the prompt hook's citation check may take: the hook answers
/// on every prompt and has a 10 ms target, so it checks what it can in a
/// few milliseconds (every cited path; identifiers as far as the search
/// gets) and leaves the rest to `memdir verify` and `memdir doctor`.
pub const HOOK_CITATIONS_BUDGET: std::time::Duration = std::time::Duration::from_millis(4);

/// How many backup copies of a settings file `install_hooks` and
/// `uninstall_hooks` keep.
pub const KEPT_BACKUPS: usize = 5;

/// The largest per-session record read back (a few thousand paths).
const MAX_STATE_BYTES: u64 = 1024 * 1024;

/// One of the agent's hook events memdir answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    /// A session starts, resumes, is cleared, compacted or forked.
    SessionStart,
    /// The user submits a prompt.
    UserPromptSubmit,
    /// The agent's Write, Edit or `MultiEdit` tool call succeeded.
    PostToolUse,
    /// The agent finishes its answer.
    Stop,
    /// The conversation is about to be compacted.
    PreCompact,
    /// The session ends.
    SessionEnd,
}

impl HookEvent {
    /// Every event memdir installs, in the order the agent meets them.
    pub const ALL: [HookEvent; 6] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PostToolUse,
        HookEvent::Stop,
        HookEvent::PreCompact,
        HookEvent::SessionEnd,
    ];

    /// The event's name in settings and in hook output: `SessionStart`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The event as `memdir hook` spells it: `session-start`.
    #[must_use]
    pub fn command_word(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::UserPromptSubmit => "user-prompt-submit",
            HookEvent::PostToolUse => "post-tool-use",
            HookEvent::Stop => "stop",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::SessionEnd => "session-end",
        }
    }

    /// The `matcher` of memdir's entry: the tools whose calls it hears
    /// (a pattern over tool names), empty for events that have no tool.
    #[must_use]
    pub fn matcher(self) -> &'static str {
        match self {
            HookEvent::PostToolUse => "Write|Edit|MultiEdit",
            _ => "",
        }
    }
}

/// Which of the agent's settings files holds the hooks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SettingsScope {
    /// `<base>/settings.json`, for every project of the user.
    #[default]
    User,
    /// `<project>/.claude/settings.json`, shared with the repository.
    Project,
    /// `<project>/.claude/settings.local.json`, this checkout only.
    Local,
}

/// What installing or removing memdir's hooks changed in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HooksChange {
    /// The settings file.
    pub file: PathBuf,
    /// The events whose memdir entry was added (or replaced, when it ran
    /// another memdir).
    pub added: Vec<HookEvent>,
    /// The events whose memdir entry was removed.
    pub removed: Vec<HookEvent>,
    /// The copy of the file as it was, when the file existed and changed.
    pub backup: Option<PathBuf>,
}

impl Project {
    /// The settings file of `scope` for this project.
    #[must_use]
    pub fn settings_path(&self, scope: SettingsScope) -> PathBuf {
        self.settings_target(scope).path()
    }

    /// The settings file of `scope` as it is written: from the base folder
    /// or the project's root, never through a linked folder below it.
    fn settings_target(&self, scope: SettingsScope) -> SettingsPath {
        let resolution = self.resolution();
        let work_tree = resolution.project.work_tree.as_std_path();
        match scope {
            SettingsScope::User => {
                SettingsPath::new(resolution.base.as_std_path(), "settings.json")
            }
            SettingsScope::Project => SettingsPath::new(work_tree, ".claude/settings.json"),
            SettingsScope::Local => SettingsPath::new(work_tree, ".claude/settings.local.json"),
        }
    }

    /// memdir's folder of settings locks, under the base folder.
    fn settings_locks(&self) -> LockDir {
        LockDir::under_base(self.resolution().base.as_std_path())
    }

    /// Adds memdir's entry for every [`HookEvent`] to the settings file of
    /// `scope`: the command `<program> hook <event>`, `program` being the
    /// memdir to run (quoted when it has spaces). Idempotent; every other
    /// key and hook is kept; memdir's entries naming another memdir are
    /// replaced. A missing file is created (its folder must exist).
    pub fn install_hooks(
        &self,
        scope: SettingsScope,
        program: &str,
    ) -> Result<HooksChange, OpsError> {
        edit_hooks(
            &self.settings_target(scope),
            &self.settings_locks(),
            |hooks| install(hooks, program),
        )
    }

    /// Removes memdir's entries (any memdir's) from the settings file of
    /// `scope`, and the `hooks` key itself when nothing else is left in it.
    pub fn uninstall_hooks(&self, scope: SettingsScope) -> Result<HooksChange, OpsError> {
        edit_hooks(
            &self.settings_target(scope),
            &self.settings_locks(),
            |hooks| Ok((Vec::new(), uninstall(hooks)?)),
        )
    }

    /// The memories `prompt` needs that this session's prompt hook has not
    /// injected yet (the local selector, at most five), as an agent is
    /// given them ([`Project::recall_for_agent`], citations checked within
    /// [`HOOK_CITATIONS_BUDGET`]), recorded as injected before they are
    /// returned. Two hooks of one session at once take turns on a lock, so
    /// neither injects what the other did.
    ///
    /// # Panics
    ///
    /// Never: the record is a list of strings, which always serialises.
    pub fn recall_for_hook(&self, session: &str, prompt: &str) -> Result<AgentRecall, OpsError> {
        let dir = self.hooks_state_dir();
        create_dir(&dir)?;
        let file = dir.join(format!("injected-{}.json", sanitize_session(session)));
        let _lock = lock_beside(&file)?;
        let mut injected = read_injected(&file)?;
        let outcome = self.recall_for_agent(&RecallRequest {
            query: prompt.to_owned(),
            surfaced: injected.iter().map(PathBuf::from).collect(),
            recent_tools: Vec::new(),
            selector: SelectorChoice::Local,
            citations_budget: Some(HOOK_CITATIONS_BUDGET),
            // Loading the embedding model costs more than the hook's
            // budget: the prompt is ranked by its words.
            semantic: false,
        })?;
        if !outcome.memories.is_empty() {
            injected.extend(outcome.memories.iter().map(|m| m.path.to_string()));
            let text = serde_json::to_string_pretty(&json!({
                "session": session,
                "injected": injected,
            }))
            .expect("a list of strings always serialises");
            atomic_write(&file, text.as_bytes())?;
        }
        Ok(outcome)
    }

    /// Removes the per-session records of the prompt hook untouched for
    /// longer than `age`; returns how many went. A cheap folder listing,
    /// for the session-end hook.
    pub fn forget_hook_sessions(&self, age: Duration) -> Result<usize, OpsError> {
        let dir = self.hooks_state_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(source) => return Err(OpsError::HookState { path: dir, source }),
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_record = name.starts_with("injected-") && name.ends_with(".json");
            let is_lock = name.starts_with(".injected-") && name.ends_with(".json.lock");
            if !(is_record || is_lock) {
                continue;
            }
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d > age));
            if old && std::fs::remove_file(entry.path()).is_ok() && is_record {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// memdir's own hook state: `<base>/memdir/hooks/`.
    #[must_use]
    pub fn hooks_state_dir(&self) -> PathBuf {
        self.resolution()
            .base
            .as_std_path()
            .join("memdir")
            .join("hooks")
    }
}

/// A session id as a file name: every character outside `[A-Za-z0-9_-]`
/// becomes `_`, so that no id leaves its folder.
#[must_use]
pub fn sanitize_session(session: &str) -> String {
    memdir_transcript::session_file_stem(session)
}

/// The key order of the hooks shape in the agent's documentation, for keys
/// memdir adds.
const HOOK_KEY_ORDER: &[&str] = &["matcher", "hooks", "type", "command", "timeout"];

/// Reads, edits and writes the `hooks` key of one settings file under its
/// lock, backing the file up first when it changes.
fn edit_hooks(
    target: &SettingsPath,
    locks: &LockDir,
    change: impl FnOnce(
        &mut Map<String, Value>,
    ) -> Result<(Vec<HookEvent>, Vec<HookEvent>), &'static str>,
) -> Result<HooksChange, OpsError> {
    let path = target.path();
    let file = path.as_path();
    let outcome = update_settings_file(target, locks, |doc: &mut SettingsDocument| {
        let mut hooks = match doc.get("hooks") {
            None => Map::new(),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(shape(file, "its \"hooks\" is not an object")),
        };
        let before = hooks.clone();
        let (added, removed) = change(&mut hooks).map_err(|what| shape(file, what))?;
        if hooks == before {
            return Ok((added, removed, None));
        }
        let backup = backup(target)?;
        if hooks.is_empty() {
            doc.remove("hooks");
        } else {
            // Printed in the order the file had, so that adding memdir's
            // entries re-sorts nobody else's.
            let guide: Option<Ordered> = doc
                .raw("hooks")
                .and_then(|raw| serde_json::from_str(raw).ok());
            let ordered = in_order_of(&Value::Object(hooks), guide.as_ref(), HOOK_KEY_ORDER);
            doc.set_raw("hooks", &pretty(&ordered))
                .map_err(|_| shape(file, "its \"hooks\" could not be written back"))?;
        }
        Ok((added, removed, backup))
    })??;
    let (added, removed, backup) = outcome;
    Ok(HooksChange {
        file: file.to_owned(),
        added,
        removed,
        backup,
    })
}

fn shape(file: &Path, what: &'static str) -> OpsError {
    OpsError::HooksShape {
        path: file.to_owned(),
        what,
    }
}

/// The matcher groups of `event`, when the key holds an array.
fn groups(
    hooks: &mut Map<String, Value>,
    event: HookEvent,
) -> Result<Option<&mut Vec<Value>>, &'static str> {
    match hooks.get_mut(event.name()) {
        None => Ok(None),
        Some(Value::Array(groups)) => Ok(Some(groups)),
        Some(_) => Err("an event under its \"hooks\" is not a list"),
    }
}

fn install(
    hooks: &mut Map<String, Value>,
    program: &str,
) -> Result<(Vec<HookEvent>, Vec<HookEvent>), &'static str> {
    let mut added = Vec::new();
    for event in HookEvent::ALL {
        let command = format!("{program} hook {}", event.command_word());
        let present: Vec<String> = groups(hooks, event)?
            .map(|g| memdir_commands(g, event))
            .unwrap_or_default();
        if present == [command.clone()] {
            continue;
        }
        if !present.is_empty() {
            remove_memdir(hooks, event)?;
        }
        let entry = json!({
            "matcher": event.matcher(),
            "hooks": [{"type": "command", "command": command}],
        });
        match groups(hooks, event)? {
            Some(groups) => groups.push(entry),
            None => {
                hooks.insert(event.name().to_owned(), Value::Array(vec![entry]));
            }
        }
        added.push(event);
    }
    Ok((added, Vec::new()))
}

fn uninstall(hooks: &mut Map<String, Value>) -> Result<Vec<HookEvent>, &'static str> {
    let mut removed = Vec::new();
    for event in HookEvent::ALL {
        if remove_memdir(hooks, event)? {
            removed.push(event);
        }
    }
    Ok(removed)
}

/// The memdir commands among `groups`' hooks.
fn memdir_commands(groups: &[Value], event: HookEvent) -> Vec<String> {
    groups
        .iter()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .filter(|c| is_memdir_command(c, event))
        .map(str::to_owned)
        .collect()
}

/// Removes memdir's hooks of `event`, then the groups left empty by that,
/// then the event left without groups. Returns whether anything went.
fn remove_memdir(hooks: &mut Map<String, Value>, event: HookEvent) -> Result<bool, &'static str> {
    let Some(groups) = groups(hooks, event)? else {
        return Ok(false);
    };
    let mut removed = false;
    groups.retain_mut(|group| {
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = list.len();
        list.retain(|h| {
            !h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| is_memdir_command(c, event))
        });
        let emptied = list.is_empty() && before > 0 && list.len() != before;
        removed |= list.len() != before;
        !emptied
    });
    if groups.is_empty() && removed {
        hooks.remove(event.name());
    }
    Ok(removed)
}

/// Whether `command` is some memdir's `hook <event>`: a program (quoted or
/// not) whose file name is `memdir`, then exactly `hook <event>`.
#[must_use]
fn is_memdir_command(command: &str, event: HookEvent) -> bool {
    let command = command.trim();
    let (program, rest) = if let Some(quoted) = command.strip_prefix('"') {
        match quoted.split_once('"') {
            Some((program, rest)) => (program, rest),
            None => return false,
        }
    } else if let Some(quoted) = command.strip_prefix('\'') {
        match quoted.split_once('\'') {
            Some((program, rest)) => (program, rest),
            None => return false,
        }
    } else {
        command.split_once(' ').unwrap_or((command, ""))
    };
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let words: Vec<&str> = rest.split_whitespace().collect();
    matches!(name, "memdir" | "memdir.exe") && words == ["hook", event.command_word()]
}

/// Copies the settings file to `<file>.memdir-backup-<UTC time>` beside
/// it (when it exists), reached as the update reaches it (never through a
/// linked folder), and keeps only the newest [`KEPT_BACKUPS`] copies.
fn backup(target: &SettingsPath) -> Result<Option<PathBuf>, OpsError> {
    let path = target.path();
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(None);
    };
    let prefix = format!("{}.memdir-backup-", name.to_string_lossy());
    let now = jiff::Timestamp::now();
    let stamp = format!(
        "{}{:09}Z",
        now.strftime("%Y%m%dT%H%M%S"),
        now.subsec_nanosecond()
    );
    let failed = |source| OpsError::Backup {
        path: dir.join(format!("{prefix}{stamp}")),
        source,
    };
    let Some(bytes) = read_settings_file(target, memdir_settings::MAX_SETTINGS_BYTES)
        .map_err(|e| failed(io::Error::other(e)))?
        .bytes
    else {
        return Ok(None);
    };
    let folder = target.relative().parent().unwrap_or(Path::new(""));
    memdir_settings::write_backup(target.root(), folder, &prefix, &stamp, &bytes, KEPT_BACKUPS)
        .map(Some)
        .map_err(failed)
}

fn create_dir(dir: &Path) -> Result<(), OpsError> {
    std::fs::create_dir_all(dir).map_err(|source| OpsError::HookState {
        path: dir.to_owned(),
        source,
    })
}

/// An exclusive lock on `.<name>.lock` beside `file`, released on drop.
fn lock_beside(file: &Path) -> Result<std::fs::File, OpsError> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = file.with_file_name(format!(".{name}.lock"));
    let failed = |source| OpsError::HookState {
        path: path.clone(),
        source,
    };
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(failed)?;
    lock.lock().map_err(failed)?;
    Ok(lock)
}

/// The paths recorded as injected; a record that does not parse is
/// started over (it only ever prevents repeats).
fn read_injected(file: &Path) -> Result<Vec<String>, OpsError> {
    let bytes = match read_regular_file(file, MAX_STATE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => {
            return Err(OpsError::HookState {
                path: file.to_owned(),
                source: io::Error::other(e),
            });
        }
    };
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(e) => {
            log::warn!(
                "{}: not a hook record ({e}); starting it over",
                file.display()
            );
            return Ok(Vec::new());
        }
    };
    let mut seen = HashSet::new();
    Ok(value["injected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|p| seen.insert(*p))
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memdir_commands_are_recognised_by_program_name_and_event() {
        let e = HookEvent::SessionStart;
        assert!(is_memdir_command("memdir hook session-start", e));
        assert!(is_memdir_command(
            "/usr/local/bin/memdir hook session-start",
            e
        ));
        assert!(is_memdir_command(
            "\"/my tools/memdir\" hook session-start",
            e
        ));
        assert!(is_memdir_command(
            "'/my tools/memdir' hook session-start",
            e
        ));
        assert!(!is_memdir_command("memdir hook stop", e));
        assert!(!is_memdir_command("memdir-other hook session-start", e));
        assert!(!is_memdir_command("memdir hook session-start --x", e));
        assert!(!is_memdir_command("echo memdir hook session-start", e));
        assert!(!is_memdir_command(
            "\"/unterminated/memdir hook session-start",
            e
        ));
    }

    #[test]
    fn session_ids_never_leave_their_folder() {
        assert_eq!(sanitize_session("../../etc/passwd"), "______etc_passwd");
        assert_eq!(sanitize_session("5f1c-AB_9"), "5f1c-AB_9");
        assert_eq!(sanitize_session(""), "_");
        assert_eq!(sanitize_session("é/\0"), "___");
    }

    #[test]
    fn install_then_uninstall_leaves_other_hooks_as_they_were() {
        let other = json!({
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check"}]}]
        });
        let mut hooks = other.as_object().unwrap().clone();
        let (added, _) = install(&mut hooks, "/bin/memdir").unwrap();
        assert_eq!(added, HookEvent::ALL);
        assert_eq!(hooks["Stop"].as_array().unwrap().len(), 2);
        let again = hooks.clone();
        assert_eq!(install(&mut hooks, "/bin/memdir").unwrap().0, []);
        assert_eq!(hooks, again);
        assert_eq!(uninstall(&mut hooks).unwrap(), HookEvent::ALL);
        assert_eq!(Value::Object(hooks), other);
    }

    #[test]
    fn install_replaces_another_memdir() {
        let mut hooks = Map::new();
        install(&mut hooks, "/old/memdir").unwrap();
        let (added, _) = install(&mut hooks, "/new/memdir").unwrap();
        assert_eq!(added, HookEvent::ALL);
        let stop = hooks["Stop"].to_string();
        assert!(
            stop.contains("/new/memdir hook stop") && !stop.contains("/old/"),
            "{stop}"
        );
    }

    #[test]
    fn a_hooks_value_of_the_wrong_shape_is_refused() {
        let mut hooks = json!({"Stop": "memdir hook stop"})
            .as_object()
            .unwrap()
            .clone();
        assert!(install(&mut hooks, "memdir").is_err());
        assert!(uninstall(&mut hooks).is_err());
    }
}
