//! Running a [`Plan`] without a shell: one process per stage, pipes
//! between stages, globs expanded in the working folder, a cleaned
//! environment with a private temporary folder, limits on memory and file
//! size, a timeout and an output cap.

use std::io::{self, PipeReader, PipeWriter, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::glob::{self, MAX_GLOB_ENTRIES, MAX_GLOB_MATCHES, Overflow, Pattern};
use crate::{Denial, Plan, Stage, Stderr, When, git, programs};

/// The timeout of [`RunLimits::default`].
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The output cap of [`RunLimits::default`].
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 30_000;
/// The memory cap of [`RunLimits::default`]: 512 MiB.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 512 * 1024 * 1024;
/// The file-size cap of [`RunLimits::default`]: 128 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 128 * 1024 * 1024;

/// How long a plan may run, how much memory and file space each of its
/// processes may take, and how much of its output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLimits {
    /// Wall-clock time for the whole plan; then every stage still running
    /// is killed.
    pub timeout: Duration,
    /// Bytes of output (stdout of each pipeline's last stage and stderr of
    /// every stage, interleaved as they come) kept; the rest is counted
    /// and dropped.
    pub max_output_bytes: usize,
    /// Bytes of data memory (heap and private writable mappings,
    /// `RLIMIT_DATA` on Unix) each process may take; an allocation beyond
    /// it fails, and the program ends with its own error.
    pub max_memory_bytes: u64,
    /// Bytes any one file a process writes may grow to (`RLIMIT_FSIZE` on
    /// Unix); a write beyond it ends the process. Only the private
    /// temporary folder is there to be written to.
    pub max_file_bytes: u64,
}

impl Default for RunLimits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutput {
    /// The kept output, as text (invalid UTF-8 replaced; a character cut
    /// by the cap is dropped whole).
    pub output: String,
    /// Bytes of output beyond [`RunLimits::max_output_bytes`], dropped.
    pub dropped_bytes: u64,
    /// The exit code of the last stage of the last pipeline that ran;
    /// `None` when it was ended by a signal (or by the timeout).
    pub exit_code: Option<i32>,
    /// Whether the timeout ended the run.
    pub timed_out: bool,
}

/// Why a plan could not be run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The plan has a pipeline without stages, or a stage without a program.
    #[error("the plan has an empty pipeline or stage")]
    EmptyStage,
    /// A pipe could not be created or shared.
    #[error("cannot create a pipe")]
    Pipe(#[source] io::Error),
    /// A program could not be started (not found, not executable).
    #[error("cannot run {program}")]
    Spawn {
        /// The program.
        program: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Waiting for a program failed.
    #[error("cannot wait for {program}")]
    Wait {
        /// The program.
        program: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The private temporary folder of the run could not be created.
    #[error("cannot create a private temporary folder")]
    TempFolder(#[source] io::Error),
    /// The glob words of a stage matched more than [`MAX_GLOB_MATCHES`]
    /// paths together.
    #[error("the glob `{pattern}` matches too many paths (more than {limit} in one command)")]
    TooManyMatches {
        /// The glob word that went past the cap.
        pattern: String,
        /// The cap.
        limit: usize,
    },
    /// A glob word made the runner look at more than
    /// [`MAX_GLOB_ENTRIES`] folder entries.
    #[error("the glob `{pattern}` looks through too many folder entries (more than {limit})")]
    TooManyEntries {
        /// The glob word that went past the cap.
        pattern: String,
        /// The cap.
        limit: usize,
    },
    /// With its globs expanded, a stage is not one the policy allows (a
    /// glob that became two operands of `uniq`, say).
    #[error("once its globs are expanded, the command is denied: {}", .0.reason)]
    Denied(Denial),
    /// git's configuration, read before a `git` stage to turn off the
    /// programs it names, could not be read.
    #[error("cannot read git's configuration to turn off the programs it names: {detail}")]
    GitConfig {
        /// What went wrong.
        detail: String,
    },
}

/// Runs `plan` in `cwd`, without a shell.
///
/// Each stage is its own process (looked up in `PATH`), stdout piped into
/// the next stage's stdin; the first reads `/dev/null`. A stage's glob
/// words ([`crate::Glob`]) are expanded in `cwd` first, and the stage is
/// judged again by the policy with the paths they became. The environment
/// keeps only `PATH`, `HOME`, `LANG`, `LC_*` and `TZ`, turns pagers,
/// colours and git's prompts and optional locks off, and points `TMPDIR`
/// at a private folder that is removed when the run ends, also when the
/// timeout ended it. Before a `git` stage, the configuration keys that
/// name filter, text-conversion, external-diff and signature programs are
/// read, and each is given an empty value for the stage, so git runs none
/// of them. On Unix each stage runs in a session of its own (no
/// controlling terminal), with [`RunLimits::max_memory_bytes`] and
/// [`RunLimits::max_file_bytes`] as limits and no core dumps. Steps joined
/// by `&&` and `||` run as the shell would run them. When the timeout
/// passes, every stage still running is killed (on Unix its whole process
/// group) and [`RunOutput::timed_out`] says so.
///
/// `run` executes whatever plan it is given: plans from [`crate::check`]
/// are the ones known to be read-only.
pub fn run(plan: &Plan, cwd: &Path, limits: &RunLimits) -> Result<RunOutput, RunError> {
    if plan
        .steps
        .iter()
        .any(|s| s.pipeline.is_empty() || s.pipeline.iter().any(|st| st.argv.is_empty()))
    {
        return Err(RunError::EmptyStage);
    }
    let temp = PrivateTemp::new()?;
    let mut context = Context {
        cwd,
        limits: *limits,
        env: environment(temp.path()),
        git_env: None,
        deadline: Instant::now() + limits.timeout,
    };
    let result = run_steps(plan, &mut context);
    drop(temp);
    result
}

/// How much of `git config`'s list of program keys is read; more is an
/// error.
const MAX_GIT_CONFIG_BYTES: u64 = 1024 * 1024;

/// What every stage of one run shares.
struct Context<'a> {
    cwd: &'a Path,
    limits: RunLimits,
    env: Vec<(String, String)>,
    /// The configuration that turns git's programs off, read before the
    /// first `git` stage.
    git_env: Option<Vec<(String, String)>>,
    deadline: Instant,
}

fn run_steps(plan: &Plan, context: &mut Context<'_>) -> Result<RunOutput, RunError> {
    let limits = context.limits;
    let (reader, writer) = io::pipe().map_err(RunError::Pipe)?;
    let collected = Arc::new(Mutex::new(Collected::default()));
    let collector = {
        let collected = Arc::clone(&collected);
        let cap = limits.max_output_bytes;
        thread::spawn(move || collect(reader, cap, &collected))
    };

    let mut exit_code = Some(0);
    let mut timed_out = false;
    let mut result = Ok(());
    for step in &plan.steps {
        let succeeded = exit_code == Some(0);
        match step.when {
            When::IfSucceeded if !succeeded => continue,
            When::IfFailed if succeeded => continue,
            _ => {}
        }
        match run_pipeline(&step.pipeline, context, &writer) {
            Ok(Ended::Exited(status)) => exit_code = status.code(),
            Ok(Ended::TimedOut) => {
                exit_code = None;
                timed_out = true;
                break;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    drop(writer);
    // Every stage has ended, so the pipe closes unless a stage left a
    // process of its own behind holding it; give such a one a moment, then
    // keep what was read so far.
    let grace = Instant::now() + Duration::from_millis(500);
    while !collector.is_finished() && Instant::now() < grace {
        thread::sleep(Duration::from_millis(5));
    }
    if collector.is_finished() {
        let _ = collector.join();
    }
    result?;
    let collected = collected
        .lock()
        .map_or_else(|poisoned| poisoned.into_inner().clone(), |c| c.clone());
    Ok(RunOutput {
        output: text(collected.kept),
        dropped_bytes: collected.dropped,
        exit_code,
        timed_out,
    })
}

#[derive(Debug, Default, Clone)]
struct Collected {
    kept: Vec<u8>,
    dropped: u64,
}

/// Reads the output pipe to its end, keeping the first `cap` bytes and
/// counting the rest, so that no stage ever blocks on a full pipe.
fn collect(mut reader: PipeReader, cap: usize, collected: &Mutex<Collected>) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log::warn!("reading a command's output failed: {e}");
                return;
            }
        };
        let Ok(mut c) = collected.lock() else { return };
        let room = cap.saturating_sub(c.kept.len()).min(n);
        c.kept.extend_from_slice(&buf[..room]);
        c.dropped += (n - room) as u64;
    }
}

/// The kept bytes as text: a multi-byte character cut by the cap is
/// dropped rather than shown as a replacement character.
fn text(mut bytes: Vec<u8>) -> String {
    if let Err(e) = std::str::from_utf8(&bytes)
        && e.error_len().is_none()
    {
        bytes.truncate(e.valid_up_to());
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

enum Ended {
    Exited(ExitStatus),
    TimedOut,
}

fn run_pipeline(
    stages: &[Stage],
    context: &mut Context<'_>,
    output: &PipeWriter,
) -> Result<Ended, RunError> {
    let deadline = context.deadline;
    let mut expanded = Vec::with_capacity(stages.len());
    for stage in stages {
        expanded.push(expand_globs(stage, context.cwd)?);
    }
    if context.git_env.is_none() && expanded.iter().any(|s| s.argv[0] == "git") {
        match git_program_keys(context)? {
            Some(env) => context.git_env = Some(env),
            None => return Ok(Ended::TimedOut),
        }
    }
    let mut children: Vec<(String, Child)> = Vec::with_capacity(stages.len());
    let spawned = spawn_all(&expanded, context, output, &mut children);
    if let Err(e) = spawned {
        let running = vec![true; children.len()];
        kill_all(&mut children, &running);
        return Err(e);
    }
    let mut statuses: Vec<Option<ExitStatus>> = vec![None; children.len()];
    let mut pause = Duration::from_millis(1);
    loop {
        for (i, (program, child)) in children.iter_mut().enumerate() {
            if statuses[i].is_none() {
                statuses[i] = child.try_wait().map_err(|source| RunError::Wait {
                    program: program.clone(),
                    source,
                })?;
            }
        }
        if statuses.iter().all(Option::is_some) {
            let last = statuses.last().copied().flatten();
            return Ok(Ended::Exited(last.expect("every stage has exited")));
        }
        if Instant::now() >= deadline {
            let running: Vec<bool> = statuses.iter().map(Option::is_none).collect();
            kill_all(&mut children, &running);
            return Ok(Ended::TimedOut);
        }
        thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn spawn_all(
    stages: &[Stage],
    context: &Context<'_>,
    output: &PipeWriter,
    children: &mut Vec<(String, Child)>,
) -> Result<(), RunError> {
    let mut stdin: Option<PipeReader> = None;
    for (i, stage) in stages.iter().enumerate() {
        let last = i + 1 == stages.len();
        let (stdout, next_stdin) = if last {
            (output.try_clone().map_err(RunError::Pipe)?, None)
        } else {
            let (r, w) = io::pipe().map_err(RunError::Pipe)?;
            (w, Some(r))
        };
        let stderr = match stage.stderr {
            Stderr::Output => Stdio::from(output.try_clone().map_err(RunError::Pipe)?),
            Stderr::Null => Stdio::null(),
            Stderr::Stdout => Stdio::from(stdout.try_clone().map_err(RunError::Pipe)?),
        };
        let program = stage.argv[0].clone();
        let mut command = Command::new(&program);
        command
            .args(&stage.argv[1..])
            .current_dir(context.cwd)
            .env_clear()
            .envs(context.env.iter().cloned())
            .stdin(stdin.take().map_or_else(Stdio::null, Stdio::from))
            .stdout(stdout)
            .stderr(stderr);
        if program == "git"
            && let Some(git_env) = &context.git_env
        {
            command.envs(git_env.iter().cloned());
        }
        confine(&mut command, &context.limits);
        let child = command.spawn().map_err(|source| RunError::Spawn {
            program: program.clone(),
            source,
        })?;
        // `command` drops here with this side's copies of the pipe ends,
        // so each pipe closes when the processes using it end.
        drop(command);
        children.push((program, child));
        stdin = next_stdin;
    }
    Ok(())
}

/// Kills every stage not yet reaped (`running[i]`), on Unix with its
/// whole process group, and reaps it.
fn kill_all(children: &mut [(String, Child)], running: &[bool]) {
    for ((program, child), running) in children.iter_mut().zip(running) {
        if !running {
            continue;
        }
        #[cfg(unix)]
        {
            // Ignored when the group is already gone.
            let pid = rustix::process::Pid::from_child(child);
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        if let Err(e) = child.kill() {
            log::debug!("killing {program}: {e}");
        }
        let _ = child.wait();
    }
}

/// The environment every stage gets: what locates programs, files and
/// languages, the private temporary folder, and settings that keep
/// pagers, colours and prompts away.
fn environment(temp: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            matches!(k.as_str(), "PATH" | "HOME" | "LANG" | "TZ") || k.starts_with("LC_")
        })
        .collect();
    for (k, v) in [
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_OPTIONAL_LOCKS", "0"),
        // A partial clone fetches missing objects on demand, through the
        // transport its configuration names (a network, or an `ext::`
        // command); never for a read-only command.
        ("GIT_NO_LAZY_FETCH", "1"),
        ("NO_COLOR", "1"),
        ("TERM", "dumb"),
    ] {
        env.push((k.to_owned(), v.to_owned()));
    }
    env.push(("TMPDIR".to_owned(), temp.to_string_lossy().into_owned()));
    env
}

/// A stage with its glob words replaced by the paths they match (or left
/// as they are when they match nothing), judged again by the policy.
fn expand_globs(stage: &Stage, cwd: &Path) -> Result<Stage, RunError> {
    if stage.globs.is_empty() {
        return Ok(stage.clone());
    }
    let mut argv = Vec::with_capacity(stage.argv.len());
    let mut found = 0;
    for (i, arg) in stage.argv.iter().enumerate() {
        let Some(glob) = stage.globs.iter().find(|g| g.arg == i) else {
            argv.push(arg.clone());
            continue;
        };
        let paths =
            glob::expand(&Pattern::parse(&glob.pattern), cwd, &mut found).map_err(|overflow| {
                match overflow {
                    Overflow::Matches => RunError::TooManyMatches {
                        pattern: glob.pattern.clone(),
                        limit: MAX_GLOB_MATCHES,
                    },
                    Overflow::Entries => RunError::TooManyEntries {
                        pattern: glob.pattern.clone(),
                        limit: MAX_GLOB_ENTRIES,
                    },
                }
            })?;
        if paths.is_empty() {
            argv.push(arg.clone());
        } else {
            argv.extend(paths);
        }
    }
    let expanded = Stage {
        argv,
        stderr: stage.stderr,
        globs: Vec::new(),
    };
    programs::check_stage(&expanded).map_err(RunError::Denied)?;
    Ok(expanded)
}

/// The private temporary folder of one run, removed when dropped.
struct PrivateTemp {
    path: PathBuf,
}

impl PrivateTemp {
    fn new() -> Result<Self, RunError> {
        let dir = tempfile::Builder::new()
            .prefix("memdir-bash-")
            .tempdir()
            .map_err(RunError::TempFolder)?;
        Ok(Self { path: dir.keep() })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateTemp {
    fn drop(&mut self) {
        // A process of a killed stage may still be dying and writing;
        // try again briefly until nothing is left.
        for _ in 0..50 {
            match std::fs::remove_dir_all(&self.path) {
                Ok(()) => return,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return,
                Err(_) => thread::sleep(Duration::from_millis(20)),
            }
        }
        log::warn!("cannot remove the temporary folder {}", self.path.display());
    }
}

/// The configuration that turns off every program git's configuration
/// names for filters, text conversion, external diffs and signatures,
/// as `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n` and `GIT_CONFIG_VALUE_n`;
/// `None` when the run's time is up first.
fn git_program_keys(context: &Context<'_>) -> Result<Option<Vec<(String, String)>>, RunError> {
    let fail = |detail: String| RunError::GitConfig { detail };
    let mut command = Command::new("git");
    command
        .args([
            "config",
            "-z",
            "--name-only",
            "--get-regexp",
            git::PROGRAM_KEYS,
        ])
        .current_dir(context.cwd)
        .env_clear()
        .envs(context.env.iter().cloned())
        // Bytes, not characters: in a UTF-8 locale `.` would not match a
        // byte that is not UTF-8, and a key holding one would go unlisted.
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    confine(&mut command, &context.limits);
    let mut child = command
        .spawn()
        .map_err(|e| fail(format!("cannot run git config: {e}")))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = thread::spawn(move || {
        let mut out = Vec::new();
        (&mut stdout)
            .take(MAX_GIT_CONFIG_BYTES)
            .read_to_end(&mut out)?;
        // Whatever is beyond the cap is drained, so git never blocks.
        let beyond = io::copy(&mut stdout, &mut io::sink())?;
        Ok::<_, io::Error>((out, beyond))
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= context.deadline => {
                kill_all(&mut [("git config".to_owned(), child)], &[true]);
                let _ = reader.join();
                return Ok(None);
            }
            Ok(None) => thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(fail(format!("cannot wait for git config: {e}"))),
        }
    };
    let Ok(Ok((out, beyond))) = reader.join() else {
        return Err(fail("cannot read its answer".to_owned()));
    };
    // Keys left unread would be programs left on: stop rather.
    if beyond > 0 {
        return Err(fail(format!(
            "it names more than {MAX_GIT_CONFIG_BYTES} bytes of program keys"
        )));
    }
    // 1: no key matched.
    if status.code() == Some(1) && out.is_empty() {
        return Ok(Some(Vec::new()));
    }
    if !status.success() {
        return Err(fail(format!("git config ended with {status}")));
    }
    let mut keys = Vec::new();
    for key in out.split(|b| *b == 0).filter(|k| !k.is_empty()) {
        // A key changed by a lossy conversion would turn nothing off.
        let Ok(key) = String::from_utf8(key.to_vec()) else {
            return Err(fail(format!(
                "the key {} is not UTF-8",
                String::from_utf8_lossy(key)
            )));
        };
        keys.push(key);
    }
    let config = git::neutralising_config(&keys);
    let mut env = vec![("GIT_CONFIG_COUNT".to_owned(), config.len().to_string())];
    for (i, (key, value)) in config.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), key));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), value));
    }
    Ok(Some(env))
}

/// On Unix: the stage runs in a session of its own (no controlling
/// terminal to read; its process group is the session's, which a timeout
/// kills whole), with the memory and file-size limits and no core dumps.
#[cfg(unix)]
#[allow(
    unsafe_code,
    reason = "limits must be set in the child after fork and before exec, which only \
              `pre_exec` allows"
)]
fn confine(command: &mut Command, limits: &RunLimits) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit, setsid};
    use std::os::unix::process::CommandExt as _;
    // Never above the limits this process already has.
    let lower = |resource: Resource, wanted: u64| -> u64 {
        getrlimit(resource)
            .maximum
            .map_or(wanted, |hard| hard.min(wanted))
    };
    let memory = lower(Resource::Data, limits.max_memory_bytes);
    let file = lower(Resource::Fsize, limits.max_file_bytes);
    let set = |resource: Resource, value: u64| {
        setrlimit(
            resource,
            Rlimit {
                current: Some(value),
                maximum: Some(value),
            },
        )
    };
    // SAFETY: the closure runs in the child between fork and exec, where
    // only async-signal-safe calls may be made. It makes four system calls
    // (setsid, setrlimit) through rustix, which calls the kernel directly,
    // allocates nothing and takes no lock; the values it uses were
    // computed before the fork.
    unsafe {
        command.pre_exec(move || {
            setsid()?;
            set(Resource::Data, memory)?;
            set(Resource::Fsize, file)?;
            set(Resource::Core, 0)?;
            Ok(())
        });
    }
}

/// Elsewhere: no limits beyond the timeout and the output cap.
#[cfg(not(unix))]
fn confine(_command: &mut Command, _limits: &RunLimits) {}
