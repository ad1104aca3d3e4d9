//! `memdir hook <event>`: the agent's hook commands (SPEC R17.3).
//!
//! Each reads the hook JSON on stdin and answers in the agent's hook output
//! format, `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`
//! on stdout when there is context to add, nothing otherwise. A hook never
//! breaks the agent because of its own error: every error becomes one line
//! in `<base>/memdir/logs/hooks.log`, with exit status 0 and nothing on
//! stdout.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use clap::Subcommand;
use memdir_ops::{Environment, HookEvent, Project, ProjectOptions};
use memdir_prompt::{MemoryPrompt, PromptOptions, load_memory_prompt};
use serde::Deserialize;

use crate::Outcome;
use crate::context::GlobalArgs;

/// The most characters any hook output string may have (the agent's cap).
pub(crate) const MAX_OUTPUT_CHARS: usize = 10_000;
/// The largest hook input read (a prompt can be long, not this long).
const MAX_INPUT_BYTES: u64 = 8 * 1024 * 1024;
/// The log file is rotated (to `hooks.log.1`) past this size.
const MAX_LOG_BYTES: u64 = 1024 * 1024;
/// How long `pre-compact` waits for the session notes update.
const PRE_COMPACT_WAIT: Duration = Duration::from_secs(60);
/// How long `session-start` waits for the compaction view of the notes.
const COMPACT_VIEW_WAIT: Duration = Duration::from_secs(5);
/// How old a session's record of injected memories gets before
/// `session-end` removes it.
const FORGET_AFTER: Duration = Duration::from_secs(7 * 24 * 60 * 60);

#[derive(Debug, Clone, Copy, Subcommand)]
#[command(after_help = "\
Install these with `memdir hooks install`. Each reads the hook JSON on stdin (session_id, \
transcript_path, cwd, hook_event_name and the event's own fields; cwd is the project unless \
--project is given) and prints {\"hookSpecificOutput\": {\"hookEventName\", \"additionalContext\"}} \
when it has context to add (at most 10,000 characters), nothing otherwise. Errors never reach \
the agent: exit status 0, nothing printed, one line in <base>/memdir/logs/hooks.log.

Example:
  echo '{\"session_id\":\"s1\",\"cwd\":\".\",\"prompt\":\"deploy to staging\"}' | memdir hook user-prompt-submit")]
pub(crate) enum HookCommand {
    /// Inject the memory prompt; after a compaction, the session notes too.
    SessionStart,
    /// Inject the memories the prompt needs (at most 5, offline), each once
    /// per session.
    UserPromptSubmit,
    /// After the agent's Write or Edit of a memory file: bring the recall
    /// index up to date now, so the next prompt's recall need not.
    PostToolUse,
    /// Start memory extraction over the transcript in the background.
    Stop,
    /// Update the session notes before the conversation is compacted.
    PreCompact,
    /// Forget week-old per-session records; returns at once.
    SessionEnd,
}

impl HookCommand {
    fn event(self) -> HookEvent {
        match self {
            HookCommand::SessionStart => HookEvent::SessionStart,
            HookCommand::UserPromptSubmit => HookEvent::UserPromptSubmit,
            HookCommand::PostToolUse => HookEvent::PostToolUse,
            HookCommand::Stop => HookEvent::Stop,
            HookCommand::PreCompact => HookEvent::PreCompact,
            HookCommand::SessionEnd => HookEvent::SessionEnd,
        }
    }
}

/// The fields of the agent's hook input that memdir reads; every other
/// field (`prompt_id`, `permission_mode`, `agent_id`, …) is ignored.
#[derive(Debug, Default, Deserialize)]
struct HookInput {
    session_id: Option<String>,
    transcript_path: Option<PathBuf>,
    cwd: Option<PathBuf>,
    /// `UserPromptSubmit`.
    prompt: Option<String>,
    /// `SessionStart`: startup, resume, clear, compact or fork.
    source: Option<String>,
    /// `Stop`: the agent already continues because of a stop hook.
    #[serde(default)]
    stop_hook_active: bool,
    /// `PostToolUse`: the tool's arguments.
    tool_input: Option<ToolInput>,
}

/// The arguments of a Write, Edit or `MultiEdit` call that memdir reads.
#[derive(Debug, Default, Deserialize)]
struct ToolInput {
    file_path: Option<PathBuf>,
}

pub(crate) fn run(cmd: HookCommand, global: &GlobalArgs) -> Outcome {
    let event = cmd.event();
    let env = Environment::from_process();
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| answer(event, global, &env)))
            .unwrap_or_else(|_| Err(anyhow!("internal error (see stderr)")));
    match result {
        Ok(Some(context)) => {
            let output = serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": event.name(),
                    "additionalContext": cap(&context, MAX_OUTPUT_CHARS),
                }
            });
            let mut out = std::io::stdout().lock();
            // A reader gone away is nothing to report.
            let _ = writeln!(out, "{output}").and_then(|()| out.flush());
        }
        Ok(None) => {}
        Err(err) => log_line(&env, event, &format!("{err:#}")),
    }
    Outcome::Success
}

/// The context to add for `event`, if any.
fn answer(
    event: HookEvent,
    global: &GlobalArgs,
    env: &Environment,
) -> anyhow::Result<Option<String>> {
    let input = read_input()?;
    let project = open_project(global, env, &input)?;
    match event {
        HookEvent::SessionStart => session_start(&project, global, env, &input),
        HookEvent::UserPromptSubmit => user_prompt_submit(&project, global, env, &input),
        HookEvent::PostToolUse => {
            // A file the agent wrote: its path as the tool was given it,
            // relative to the session's folder when not absolute.
            if let Some(path) = input.tool_input.as_ref().and_then(|t| t.file_path.as_ref()) {
                let path = match &input.cwd {
                    Some(cwd) if path.is_relative() => cwd.join(path),
                    _ => path.clone(),
                };
                project.index_agent_write(&path)?;
            }
            Ok(None)
        }
        HookEvent::Stop => stop(&project, global, env, &input).map(|()| None),
        HookEvent::PreCompact => pre_compact(&project, global, env, &input).map(|()| None),
        HookEvent::SessionEnd => {
            project.forget_hook_sessions(FORGET_AFTER)?;
            Ok(None)
        }
    }
}

fn read_input() -> anyhow::Result<HookInput> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the hook input")?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!("the hook input is over {MAX_INPUT_BYTES} bytes");
    }
    serde_json::from_slice(&bytes).context("the hook input is not the agent's hook JSON")
}

/// The project of the hook: `--project`, else the input's `cwd`, else the
/// working directory.
fn open_project(
    global: &GlobalArgs,
    env: &Environment,
    input: &HookInput,
) -> anyhow::Result<Project> {
    let options = ProjectOptions {
        dir: global.project.clone().or_else(|| input.cwd.clone()),
        memory_dir: global.memory_dir.clone(),
        settings_file: global.settings.clone(),
    };
    let project = Project::open(env.clone(), &options)?;
    for warning in project.warnings() {
        log::debug!("{warning}");
    }
    Ok(project)
}

fn session_start(
    project: &Project,
    global: &GlobalArgs,
    env: &Environment,
    input: &HookInput,
) -> anyhow::Result<Option<String>> {
    let options = PromptOptions {
        assistant_mode: project
            .env()
            .var("MEMDIR_ASSISTANT")
            .is_some_and(|v| v.trim() == "1"),
        include_search_section: false,
    };
    let mut parts = Vec::new();
    if input.source.as_deref() == Some("compact")
        && let Some(session) = &input.session_id
        && project.session_notes_path(session).is_file()
    {
        // The memory prompt still goes in when the notes cannot be had.
        let notes = compact_view(project, global, session).unwrap_or_else(|e| {
            log_line(env, HookEvent::SessionStart, &format!("{e:#}"));
            String::new()
        });
        if !notes.trim().is_empty() {
            parts.push(format!(
                "The session notes of this conversation, kept from before it was compacted:\n\n{}",
                notes.trim_end()
            ));
        }
    }
    if let MemoryPrompt::Prompt { text, .. } = load_memory_prompt(project.resolution(), &options)? {
        parts.push(text);
    }
    if project.resolution().enablement.enabled && project.citation_refresh_due() {
        start_in_background(project, global, env, &["verify", "--cache-only"]);
    }
    Ok((!parts.is_empty()).then(|| parts.join("\n\n")))
}

/// Starts `memdir ARGS…` in the background, not waited for (like the
/// extraction), for the caches recall reads: `verify --cache-only`
/// settles the project's identifiers in the citation cache, and
/// `recall-index refresh` reconciles the whole recall index (every memory
/// stat'ed) when a recall's bounded sweep has not covered the folder
/// lately, or when the recall left it the listing of a large folder. Each
/// gives way when another of its kind holds its cache; a failure to start
/// is only logged.
fn start_in_background(project: &Project, global: &GlobalArgs, env: &Environment, args: &[&str]) {
    if let Err(e) = spawn_detached(project, global, env, args) {
        log_line(env, HookEvent::UserPromptSubmit, &format!("{e:#}"));
    }
}

/// Starts `memdir ARGS…` on the same project, in a process group of its
/// own, its stderr in the hooks' log, and does not wait for it.
pub(crate) fn spawn_detached(
    project: &Project,
    global: &GlobalArgs,
    env: &Environment,
    args: &[&str],
) -> anyhow::Result<()> {
    let mut cmd = self_command(project, global)?;
    cmd.args(args).stdout(Stdio::null()).stderr(log_stdio(env));
    detach(&mut cmd);
    cmd.spawn()
        .map(drop)
        .with_context(|| format!("cannot start memdir {}", args.join(" ")))
}

/// The session notes as compaction injects them, from `memdir session
/// compact-view`: one implementation of the cut.
fn compact_view(project: &Project, global: &GlobalArgs, session: &str) -> anyhow::Result<String> {
    let mut cmd = self_command(project, global)?;
    cmd.args(["session", "compact-view", "--session", session, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd
        .spawn()
        .context("cannot start memdir session compact-view")?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    // The view is at most the notes file; read it on a thread so that the
    // wait below stays bounded whatever the child does.
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = (&mut stdout)
            .take(4 * MAX_INPUT_BYTES)
            .read_to_end(&mut text);
        text
    });
    let status = wait_bounded(&mut child, COMPACT_VIEW_WAIT)?;
    let bytes = reader.join().unwrap_or_default();
    if !status.success() {
        bail!("memdir session compact-view failed ({status})");
    }
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).context("memdir session compact-view printed no JSON")?;
    value["truncatedContent"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow!("memdir session compact-view gave no truncatedContent"))
}

fn user_prompt_submit(
    project: &Project,
    global: &GlobalArgs,
    env: &Environment,
    input: &HookInput,
) -> anyhow::Result<Option<String>> {
    let Some(prompt) = input.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Ok(None);
    };
    if !project.resolution().enablement.enabled {
        return Ok(None);
    }
    let session = input.session_id.as_deref().unwrap_or("no-session");
    // Each memory comes rendered (its age, notes and capped text) from the
    // use case; the hook only adds its heading and the agent's envelope.
    let given = project.recall_for_hook(session, prompt)?;
    if given.citation_refresh {
        start_in_background(project, global, env, &["verify", "--cache-only"]);
    }
    if given.index_refresh {
        start_in_background(project, global, env, &["recall-index", "refresh"]);
    }
    if given.memories.is_empty() {
        return Ok(None);
    }
    let mut text = String::from("Memories that may be relevant to this request (from memdir):\n");
    for m in &given.memories {
        text.push('\n');
        text.push_str(&m.text);
    }
    Ok(Some(text))
}

fn stop(
    project: &Project,
    global: &GlobalArgs,
    env: &Environment,
    input: &HookInput,
) -> anyhow::Result<()> {
    if input.stop_hook_active {
        return Ok(());
    }
    let (session, transcript) = session_and_transcript(input)?;
    let mut cmd = self_command(project, global)?;
    cmd.arg("extract")
        .arg("--transcript")
        .arg(transcript)
        .args(["--session", session])
        .stdout(Stdio::null())
        .stderr(log_stdio(env));
    detach(&mut cmd);
    // Not waited for: the extraction outlives this hook, in its own
    // process group, and init reaps it when it ends.
    cmd.spawn().context("cannot start memdir extract")?;
    Ok(())
}

fn pre_compact(
    project: &Project,
    global: &GlobalArgs,
    env: &Environment,
    input: &HookInput,
) -> anyhow::Result<()> {
    let (session, transcript) = session_and_transcript(input)?;
    let mut cmd = self_command(project, global)?;
    cmd.args(["session", "update", "--transcript"])
        .arg(transcript)
        .args(["--session", session, "--force"])
        .stdout(Stdio::null())
        .stderr(log_stdio(env));
    let mut child = cmd.spawn().context("cannot start memdir session update")?;
    let status = wait_bounded(&mut child, PRE_COMPACT_WAIT)?;
    if !status.success() {
        bail!("memdir session update failed ({status})");
    }
    Ok(())
}

/// The session and its transcript, which must be a file.
fn session_and_transcript(input: &HookInput) -> anyhow::Result<(&str, &Path)> {
    let session = input
        .session_id
        .as_deref()
        .ok_or_else(|| anyhow!("the hook input has no session_id"))?;
    let transcript = input
        .transcript_path
        .as_deref()
        .ok_or_else(|| anyhow!("the hook input has no transcript_path"))?;
    if !transcript.is_file() {
        bail!("the transcript {} is not a file", transcript.display());
    }
    Ok((session, transcript))
}

/// This memdir, run on the same project with the same global options.
fn self_command(project: &Project, global: &GlobalArgs) -> anyhow::Result<Command> {
    let exe = std::env::current_exe().context("cannot find this memdir's executable")?;
    let mut cmd = Command::new(exe);
    cmd.stdin(Stdio::null())
        .arg("--project")
        .arg(project.resolution().project.work_tree.as_std_path());
    if let Some(dir) = &global.memory_dir {
        cmd.arg("--memory-dir").arg(dir);
    }
    if let Some(file) = &global.settings {
        cmd.arg("--settings").arg(file);
    }
    Ok(cmd)
}

/// Puts the child in a process group of its own, so that the agent's
/// signals to the hook's group (an interrupt, a timeout) do not reach it.
fn detach(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    #[cfg(not(unix))]
    let _ = cmd;
}

/// Waits for `child` at most `limit`, killing it past that.
fn wait_bounded(
    child: &mut std::process::Child,
    limit: Duration,
) -> anyhow::Result<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "a child memdir ran over {} s and was stopped",
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `text` cut to at most `max` characters at a line boundary, with a note
/// saying how much was left out.
pub(crate) fn cap(text: &str, max: usize) -> String {
    memdir_ops::cut_to_fit(text, max, |left_out| {
        format!(
            "[memdir: cut here to fit the hook output limit of {max} characters; {left_out} more characters not shown]"
        )
    })
    .unwrap_or_else(|| text.to_owned())
}

/// The log file: `<base>/memdir/logs/hooks.log`.
fn log_path(env: &Environment) -> Option<PathBuf> {
    let base = memdir_paths::memory_base(env).ok()?;
    Some(
        base.as_std_path()
            .join("memdir")
            .join("logs")
            .join("hooks.log"),
    )
}

/// The log file opened for appending (rotated when too large), for a
/// child's stderr; null when it cannot be opened.
fn log_stdio(env: &Environment) -> Stdio {
    open_log(env).map_or_else(Stdio::null, Stdio::from)
}

fn open_log(env: &Environment) -> Option<File> {
    let path = log_path(env)?;
    std::fs::create_dir_all(path.parent()?).ok()?;
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::rename(&path, path.with_extension("log.1"));
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .ok()
}

/// Appends one line about an error of `event` to the log file; if even
/// that fails, stderr is the last resort (the agent shows it only in its
/// verbose mode).
fn log_line(env: &Environment, event: HookEvent, message: &str) {
    let line = format!(
        "{} {}: {}\n",
        jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ"),
        event.command_word(),
        crate::one_line(message)
    );
    let written = open_log(env).is_some_and(|mut f| f.write_all(line.as_bytes()).is_ok());
    if !written {
        eprint!("memdir: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cap("a\nb\n", 10), "a\nb\n");
    }

    #[test]
    fn long_text_is_cut_at_a_line_with_a_note_and_fits() {
        let text = "line of text\n".repeat(2_000);
        let out = cap(&text, 10_000);
        assert!(out.chars().count() <= 10_000, "{}", out.chars().count());
        let (kept, note) = out.rsplit_once('\n').unwrap();
        assert!(kept.lines().all(|l| l == "line of text"));
        assert!(note.starts_with("[memdir: cut here"), "{note}");
    }

    #[test]
    fn one_huge_line_is_cut_at_a_character() {
        let text = "é".repeat(20_000);
        let out = cap(&text, 10_000);
        assert!(out.chars().count() <= 10_000);
        assert!(out.starts_with("éé"));
    }
}
