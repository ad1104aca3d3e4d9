//! One extraction request, from the transcript to the `memory_saved`
//! notice (SPEC R12.3, R12.5).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use camino::Utf8Path;
use memdir_agent::{
    Agent, AgentConfig, Cancel, ChatModel, ChatReply, ChatRequest, ContentBlock, Message,
    ModelError, Role, Stop,
};
use memdir_folder::{DEFAULT_LOCK_TIMEOUT, MemoryFolder};
use memdir_scan::{CancelToken, ScanOptions, format_manifest, scan_memory_dir};
use memdir_tools::{AutoMemPolicy, MemoryScope, extraction_tools};

use crate::{Begin, ExtractError, Request, RunGuard, StateFiles, has_memory_writes, instructions};

/// The turn budget of an extraction run (SPEC R12.3).
pub const MAX_TURNS: u32 = 5;
/// The most bytes of transcript an extraction run shows the model; older
/// messages beyond it are left out (and counted).
pub const MAX_TRANSCRIPT_CHARS: usize = 120_000;

/// Where and how a run works.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The project root: Read, Grep, Glob and Bash work here.
    pub project_root: PathBuf,
    /// The private memory folder.
    pub auto_dir: PathBuf,
    /// The team folder, when team memory is on.
    pub team_dir: Option<PathBuf>,
    /// Run every this many completed turns (the throttle; at least 1).
    pub every_n_turns: u32,
    /// The agent's turn budget.
    pub max_turns: u32,
}

impl Setup {
    /// A setup with the default throttle (every turn) and turn budget.
    #[must_use]
    pub fn new(project_root: PathBuf, auto_dir: PathBuf, team_dir: Option<PathBuf>) -> Self {
        Setup {
            project_root,
            auto_dir,
            team_dir,
            every_n_turns: 1,
            max_turns: MAX_TURNS,
        }
    }
}

/// What one request did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// Whether an agent ran (in this request or a trailing run it took).
    pub ran: bool,
    /// Why it ran or did not, in words; one line per run.
    pub reasons: Vec<String>,
    /// The memory files written, in order.
    pub saved: Vec<PathBuf>,
    /// Model calls made, over every run.
    pub turns: u32,
    /// The `memory_saved` notice, when anything was saved.
    pub notice: Option<String>,
    /// Tool calls refused (by the policy, for an unknown tool or a bad
    /// input, or a write the tool itself refused): the tool and the reason
    /// the model read.
    pub refused: Vec<(String, String)>,
    /// How the last agent run ended, when one ran (`end_turn`,
    /// `turn_limit`, `model error: …`, …).
    pub stop: Option<String>,
    /// Whether the last agent run failed (the cursor was not advanced, so
    /// the messages are considered again next time).
    pub failed: bool,
}

/// A shared model handed to each run's agent.
struct Shared(Arc<dyn ChatModel>);

impl ChatModel for Shared {
    fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        self.0.chat(request)
    }
}

/// Handles one request: runs it, or queues it behind a run of the same
/// session; a run takes the requests queued behind it before it ends.
pub fn extract(
    files: &StateFiles,
    request: Request,
    model: &Arc<dyn ChatModel>,
    setup: &Setup,
) -> Result<Outcome, ExtractError> {
    let mut outcome = Outcome::default();
    let mut guard = match files.begin(request.clone())? {
        Begin::Queued => {
            outcome.reasons.push(
                "queued: a run of this session is under way and will take this request when it ends"
                    .to_owned(),
            );
            return Ok(outcome);
        }
        Begin::Run(guard) => guard,
    };
    let (mut request, mut trailing) = (request, false);
    loop {
        // An error of the machinery drops the guard on the way out, which
        // lets go of the run lock; a request queued meanwhile waits in the
        // pending slot for the next run.
        run_once(&guard, &request, model, setup, trailing, &mut outcome)?;
        if outcome.failed {
            drop(guard);
            break;
        }
        match guard.finish()? {
            Some((again, pending)) => {
                guard = again;
                request = pending;
                trailing = true;
            }
            None => break,
        }
    }
    if !outcome.saved.is_empty() {
        let list: Vec<String> = outcome
            .saved
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        outcome.notice = Some(format!("memory_saved: {}", list.join(", ")));
    }
    Ok(outcome)
}

fn run_once(
    guard: &RunGuard,
    request: &Request,
    model: &Arc<dyn ChatModel>,
    setup: &Setup,
    trailing: bool,
    outcome: &mut Outcome,
) -> Result<(), ExtractError> {
    let files = guard.files();
    let transcript = memdir_transcript::read_transcript(&request.transcript)?;
    let state = files.load()?;
    let new: Vec<&memdir_transcript::Message> = transcript
        .messages_since(state.cursor.as_deref())
        .iter()
        .filter(|m| !m.is_sidechain)
        .collect();
    let Some(last) = new.last().and_then(|m| m.uuids.last()).cloned() else {
        outcome
            .reasons
            .push("no new messages since the last run".to_owned());
        return Ok(());
    };
    let tool_uses = new
        .iter()
        .filter(|m| m.role == memdir_transcript::Role::Assistant)
        .flat_map(|m| m.tool_uses())
        .map(|t| (t.name.as_str(), &t.input));
    if has_memory_writes(tool_uses, &setup.auto_dir) {
        files.update(|s| {
            s.cursor = Some(last.clone());
            s.turns_since_last = 0;
        })?;
        outcome
            .reasons
            .push("skipped: the main agent wrote memory itself in these messages".to_owned());
        return Ok(());
    }
    if !trailing {
        let every = setup.every_n_turns.max(1);
        let turns = files.update(|s| {
            s.turns_since_last = s.turns_since_last.saturating_add(1);
            s.turns_since_last
        })?;
        if turns < every {
            outcome
                .reasons
                .push(format!("throttled: turn {turns} of every {every}"));
            return Ok(());
        }
    }
    let stop = run_agent(&new, model, setup, outcome)?;
    let (stop, failed) = (stop.describe(), stop.is_failure());
    outcome.stop = Some(stop.clone());
    outcome.failed = failed;
    if failed {
        // The cursor stays: these messages are considered again next time.
        outcome.reasons.push(format!(
            "ran on {} new messages, and failed: {stop}",
            new.len()
        ));
        return Ok(());
    }
    files.update(|s| {
        s.cursor = Some(last.clone());
        s.turns_since_last = 0;
    })?;
    outcome.reasons.push(format!(
        "ran on {} new messages{}",
        new.len(),
        if trailing { " (a trailing run)" } else { "" }
    ));
    Ok(())
}

/// Runs the agent over the new messages and records what it did in
/// `outcome`; returns how it ended.
fn run_agent(
    new: &[&memdir_transcript::Message],
    model: &Arc<dyn ChatModel>,
    setup: &Setup,
    outcome: &mut Outcome,
) -> Result<Stop, ExtractError> {
    run_restricted(
        model,
        &setup.project_root,
        &setup.auto_dir,
        setup.team_dir.as_deref(),
        setup.max_turns,
        |scope| user_message(new, scope, setup),
        outcome,
    )
}

/// One run of the restricted memory agent (extraction's tools and policy:
/// Read, Grep, Glob, read-only Bash anywhere under `project_root`, Edit and
/// Write only inside the memory folders), with the main agent's memory
/// instructions as its system prompt and `user(scope)` as its one message.
/// What it did goes into `outcome` (`ran`, `turns`, `refused`, `saved`),
/// and every memory it wrote gets its index line; returns how it ended.
pub(crate) fn run_restricted(
    model: &Arc<dyn ChatModel>,
    project_root: &Path,
    auto_dir: &Path,
    team_dir: Option<&Path>,
    max_turns: u32,
    user: impl FnOnce(&MemoryScope) -> String,
    outcome: &mut Outcome,
) -> Result<Stop, ExtractError> {
    let scope = Arc::new(MemoryScope::open(auto_dir, team_dir)?);
    let system = system_prompt(&scope)?;
    let user = user(&scope);
    let mut config = AgentConfig::new(system);
    config.max_turns = max_turns.max(1);
    let agent = Agent::new(
        Box::new(Shared(Arc::clone(model))),
        extraction_tools(project_root, &scope),
        Box::new(AutoMemPolicy::new(&scope)),
        config,
    )?;
    let report = agent.run(
        vec![Message {
            role: Role::User,
            content: vec![ContentBlock::Text { text: user }],
        }],
        &Cancel::new(),
    );
    outcome.ran = true;
    outcome.turns += report.turns;
    for call in &report.tool_calls {
        use memdir_agent::ToolCallOutcome as Call;
        let reason = match &call.outcome {
            Call::Denied { reason } | Call::BadInput { reason } => Some(reason.clone()),
            Call::Unknown => Some(format!("no tool named {}", call.name)),
            // A write the tool itself refused (a secret bound for the team
            // folder, a link in the way): its reason is the tool's answer.
            Call::Ran { is_error: true } if matches!(call.name.as_str(), "Write" | "Edit") => {
                Some(report.tool_result(&call.id).unwrap_or_default().to_owned())
            }
            _ => None,
        };
        if let Some(reason) = reason {
            outcome.refused.push((call.name.clone(), reason));
        }
    }
    let written = scope.written();
    index_written(&scope, &written)?;
    for path in written {
        if !outcome.saved.contains(&path) {
            outcome.saved.push(path);
        }
    }
    Ok(report.stop)
}

/// Index lines for the memory files the run wrote (without touching any
/// other line).
fn index_written(scope: &MemoryScope, written: &[PathBuf]) -> Result<(), ExtractError> {
    let folders: Vec<(&Path, bool)> = scope
        .team_path()
        .map(|t| (t, true))
        .into_iter()
        .chain(std::iter::once((scope.private_path(), false)))
        .collect();
    for (dir, _) in &folders {
        let rels: Vec<String> = written
            .iter()
            .filter(|p| {
                // A private file is not one of the team folder's.
                p.starts_with(dir)
                    && !folders.iter().any(|(other, _)| {
                        other != dir && other.starts_with(dir) && p.starts_with(other)
                    })
            })
            .filter_map(|p| p.strip_prefix(dir).ok())
            .filter_map(|rel| rel.to_str().map(|s| s.replace('\\', "/")))
            .collect();
        if rels.is_empty() {
            continue;
        }
        let folder = MemoryFolder::open(dir)?;
        let lock = folder.lock(DEFAULT_LOCK_TIMEOUT)?;
        let refs: Vec<&str> = rels.iter().map(String::as_str).collect();
        // A memory the agent wrote to replace others retires them first,
        // so that they do not get their index lines back.
        lock.apply_supersession(&refs)?;
        lock.index_files(&refs)?;
    }
    Ok(())
}

fn utf8(path: &Path) -> Result<&Utf8Path, ExtractError> {
    Utf8Path::from_path(path).ok_or_else(|| ExtractError::NotUtf8 {
        path: path.to_owned(),
    })
}

fn read_index(dir: &Path) -> Result<String, ExtractError> {
    let folder = MemoryFolder::open(dir)?;
    let lock = folder.lock(DEFAULT_LOCK_TIMEOUT)?;
    Ok(lock.read_index()?)
}

pub(crate) fn with_slash(path: &Utf8Path) -> String {
    let s = path.as_str();
    if s.ends_with('/') {
        s.to_owned()
    } else {
        format!("{s}/")
    }
}

/// The memory instructions the main agent has, for the folders of `scope`.
fn system_prompt(scope: &MemoryScope) -> Result<String, ExtractError> {
    let auto = utf8(scope.private_path())?;
    let auto_dir = Utf8Path::new(&with_slash(auto)).to_owned();
    let index = read_index(scope.private_path())?;
    let options = memdir_prompt::PromptOptions::default();
    Ok(match scope.team_path() {
        Some(team) => {
            let team_dir = Utf8Path::new(&with_slash(utf8(team)?)).to_owned();
            let team_index = read_index(team)?;
            memdir_prompt::build_combined_prompt(
                &auto_dir,
                &team_dir,
                &index,
                &team_index,
                &options,
            )
        }
        None => memdir_prompt::build_single_prompt(&auto_dir, &index, &options),
    })
}

pub(crate) fn manifest(dir: &Path, exclude_team: bool) -> String {
    let options = if exclude_team {
        ScanOptions::private_scope()
    } else {
        ScanOptions::default()
    };
    scan_memory_dir(dir, &options, &CancelToken::new())
        .map(|mut scan| {
            scan.remove_superseded();
            format_manifest(&scan.memories)
        })
        .unwrap_or_default()
}

fn user_message(new: &[&memdir_transcript::Message], scope: &MemoryScope, setup: &Setup) -> String {
    let auto_dir = with_slash(Utf8Path::new(&scope.private_path().display().to_string()));
    let team_dir = scope
        .team_path()
        .map(|t| with_slash(Utf8Path::new(&t.display().to_string())));
    let private_manifest = manifest(scope.private_path(), scope.team_path().is_some());
    let team_manifest = scope
        .team_path()
        .map(|t| manifest(t, false))
        .unwrap_or_default();
    let mut text =
        memdir_transcript::excerpt(new.iter().copied(), "transcript", MAX_TRANSCRIPT_CHARS);
    text.push_str("\n\n");
    text.push_str(&instructions(&crate::Instructions {
        new_messages: new.len(),
        auto_dir: &auto_dir,
        team_dir: team_dir.as_deref(),
        manifest: &private_manifest,
        team_manifest: &team_manifest,
        max_turns: setup.max_turns.max(1),
    }));
    text
}
