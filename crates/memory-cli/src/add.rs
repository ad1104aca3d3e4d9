//! `memdir add`: write one memory and its index line.

use std::io::{IsTerminal, Read};

use anyhow::{Context as _, bail};
use clap::Args;
use memdir_memtypes::MemoryType;
use memdir_ops::{MAX_MEMORY_BYTES, NewMemory, OpsError, SaveOptions, Scope};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "The body comes from --body, or from stdin when it is not a terminal. \
    The topic file <name>.md is created first, then its line in MEMORY.md, each atomically, \
    under the folder's lock (.memdir.lock; another writer is waited for up to 10 s, or \
    MEMDIR_LOCK_TIMEOUT_MS). A name that exists already (in any letter case) is refused: \
    edit that memory instead. Memories an interrupted write left without an index line get \
    theirs too.\n\n\
    Refused (exit 3): a memory whose text, title or description holds a secret (in the \
    team folder always; in the private folder unless --allow-secret), or a control \
    character (escape sequences, NUL, bidirectional overrides). A title or description \
    longer than an index line allows is shortened in MEMORY.md (about 200 characters a \
    line); the memory's file keeps the whole text.\n\n\
    JSON: {path}\n\n\
    Example:\n  echo 'Use pnpm, never npm.' | memdir add --type feedback --name use-pnpm \\\n      \
    --description 'The repo uses pnpm; npm breaks the lockfile'"
)]
pub(crate) struct AddArgs {
    /// The memory type: user, feedback, project or reference.
    #[arg(long = "type", value_name = "TYPE")]
    memory_type: MemoryType,
    /// A short kebab-case name; the file is <name>.md.
    #[arg(long)]
    name: String,
    /// One specific line saying what the memory holds; it is what recall
    /// reads.
    #[arg(long)]
    description: String,
    /// The memory's text (default: read stdin).
    #[arg(long)]
    body: Option<String>,
    /// The title of its index line (default: the name).
    #[arg(long)]
    title: Option<String>,
    /// Save to the team folder, shared through team sync. Not for user
    /// memories, and refused (exit 3) when the memory holds a secret.
    #[arg(long)]
    team: bool,
    /// Keep a secret (an API key, a token, a private key) that the scan
    /// finds, in a private memory: without it such a memory is refused
    /// (exit 3), since private memories still go to the model with every
    /// prompt and into every export. Never allowed with --team.
    #[arg(long, conflicts_with = "team")]
    allow_secret: bool,
    /// A memory of the same folder this one replaces (name or file name;
    /// repeatable): it keeps its file but loses its index line and is never
    /// recalled again.
    #[arg(long, value_name = "NAME")]
    supersedes: Vec<String>,
}

#[derive(Serialize)]
struct AddJson {
    path: String,
}

pub(crate) fn run(args: &AddArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    // Checked before stdin is read, so a refused --team does not wait on it.
    if args.team && !args.memory_type.may_be_shared() {
        return Err(ops_error(OpsError::NotShareable));
    }
    let body = read_body(args.body.as_deref())?;
    let project = global.project()?;
    let scope = if args.team {
        Scope::Team
    } else {
        Scope::Private
    };
    let memory = NewMemory {
        name: args.name.clone(),
        description: args.description.clone(),
        memory_type: args.memory_type,
        body,
        title: args.title.clone(),
    };
    let options = SaveOptions {
        supersedes: args.supersedes.clone(),
        allow_secret: args.allow_secret,
    };
    let saved = project
        .save_memory_with(scope, &memory, &options)
        .map_err(ops_error)?;
    for kept in &saved.kept_secrets {
        eprintln!(
            "memdir: warning: kept a secret ({} on line {}) in a private memory, as --allow-secret asks; it goes to the model with the memory",
            kept.rule_id, kept.line
        );
    }
    for repaired in &saved.repaired {
        eprintln!(
            "memdir: indexed {repaired}, which an interrupted write had left without an index line"
        );
    }
    if global.json {
        print_json(&AddJson {
            path: saved.path.to_string(),
        })?;
    } else {
        print(&format!(
            "saved {} and its line in {}",
            saved.path, saved.index_path
        ))?;
    }
    Ok(Outcome::Success)
}

/// The memory's text: `--body`, or stdin when it is not a terminal.
fn read_body(body: Option<&str>) -> anyhow::Result<String> {
    if let Some(body) = body {
        return Ok(body.to_owned());
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        bail!("give the memory's text with --body, or pipe it on stdin");
    }
    let mut bytes = Vec::new();
    stdin
        .take(MAX_MEMORY_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the memory's text from stdin")?;
    if bytes.len() as u64 > MAX_MEMORY_BYTES {
        bail!(
            "the memory's text on stdin is over {MAX_MEMORY_BYTES} bytes; a memory is a short note, keep detail elsewhere"
        );
    }
    String::from_utf8(bytes).context("the memory's text on stdin is not UTF-8")
}
