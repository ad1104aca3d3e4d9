//! `memdir add`: write one memory and its index line.

use std::io::{IsTerminal, Read};

use anyhow::{Context as _, bail};
use clap::Args;
use memdir_entrypoint::{ENTRYPOINT_NAME, IndexEntry};
use memdir_folder::{FolderError, MemoryFolder, Repair};
use memdir_memtypes::{Header, MemoryType, render_memory};
use memdir_paths::validate_team_mem_key_text;
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, Rejected, folder_error, lock_timeout};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "The body comes from --body, or from stdin when it is not a terminal. \
    The topic file <name>.md is created first, then its line in MEMORY.md, each atomically, \
    under the folder's lock (.memdir.lock; another writer is waited for up to 10 s, or \
    MEMDIR_LOCK_TIMEOUT_MS). A name that exists already (in any letter case) is refused: \
    edit that memory instead. Memories an interrupted write left without an index line get \
    theirs too.\n\n\
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
}

/// The most a memory's text read from stdin may hold: ten times what team
/// sync accepts for one file, so no real note is refused, and no endless
/// stream is read.
const MAX_BODY_BYTES: u64 = 2_500_000;

#[derive(Serialize)]
struct AddJson {
    path: String,
}

pub(crate) fn run(args: &AddArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    if args.team && !args.memory_type.may_be_shared() {
        bail!(
            "user memories describe one person and stay private; --team is refused for type user"
        );
    }
    let description = one_line(&args.description);
    if description.is_empty() {
        bail!("--description is empty; give one specific line saying what the memory holds");
    }
    let body = read_body(args.body.as_deref())?;
    if body.trim().is_empty() {
        bail!("the memory's text is empty; give it with --body or on stdin");
    }

    let resolution = global.resolve()?;
    if args.team && !resolution.team_enabled {
        bail!(
            "team memory is off ({}); turn it on with teamMemoryEnabled: true in settings or MEMDIR_TEAM=1",
            resolution.team_enabled_by
        );
    }
    let folder_path = if args.team {
        resolution.team_mem_path()
    } else {
        resolution.auto_mem_path.clone()
    };
    if args.name.trim().is_empty() || args.name.starts_with('.') {
        // An empty or dot name makes a hidden file, which no scan reads.
        return Err(Rejected(format!(
            "--name {:?}: a name must not be empty or start with '.'",
            args.name
        ))
        .into());
    }
    // The same rules as a key from a sync server: no separators, dot
    // segments, encodings, look-alikes or names another system cannot hold.
    let file_name = validate_team_mem_key_text(&format!("{}.md", args.name))
        .map_err(|e| Rejected(format!("--name {:?}: {}", args.name, e.reason)))?;
    if file_name.contains('/') || file_name == ENTRYPOINT_NAME {
        return Err(Rejected(format!(
            "--name {:?}: give a plain name, not a path or the index",
            args.name
        ))
        .into());
    }

    let header = Header {
        name: Some(args.name.clone()),
        description: Some(description.clone()),
        memory_type: Some(args.memory_type),
    };
    let mut text = body;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let rendered = render_memory(&header, &text);
    if args.team {
        refuse_secrets(&rendered)?;
    }
    let entry = IndexEntry {
        title: args.title.clone().unwrap_or_else(|| args.name.clone()),
        file: file_name.clone(),
        hook: description,
    };
    let folder = MemoryFolder::create(folder_path.as_std_path()).map_err(folder_error)?;
    let lock = folder.lock(lock_timeout()).map_err(folder_error)?;
    // A team folder's index is synced: its pulled files are the team's to
    // index, so only a private folder's orphans are repaired here.
    let repair = if args.team {
        Repair::None
    } else {
        Repair::Orphans
    };
    let added = match lock.add_memory(&file_name, rendered.as_bytes(), &entry, repair) {
        Ok(added) => added,
        Err(FolderError::AlreadyExists { existing, folder }) => bail!(
            "a memory named {existing} already exists in {}; edit it instead of adding a near-duplicate",
            folder.display()
        ),
        Err(e) => return Err(folder_error(e)),
    };
    drop(lock);
    for repaired in &added.repaired {
        eprintln!(
            "memdir: indexed {repaired}, which an interrupted write had left without an index line"
        );
    }
    let path = folder.join(&file_name);
    let index_path = folder.join(ENTRYPOINT_NAME);

    if global.json {
        print_json(&AddJson {
            path: path.display().to_string(),
        })?;
    } else {
        print(&format!(
            "saved {} and its line in {}",
            path.display(),
            index_path.display()
        ))?;
    }
    Ok(Outcome::Success)
}

/// Team memories are shared: nothing holding a secret is written there.
fn refuse_secrets(rendered: &str) -> anyhow::Result<()> {
    let findings = memdir_secrets::scan_for_secrets(rendered);
    if findings.is_empty() {
        return Ok(());
    }
    let found: Vec<String> = findings
        .iter()
        .map(|f| format!("{} on line {}", f.rule_id, f.line))
        .collect();
    Err(Rejected(format!(
        "refused: the memory holds {} ({}); team memories are shared, so take it out (the secret is not shown)",
        if findings.len() == 1 { "a secret" } else { "secrets" },
        found.join(", "),
    ))
    .into())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
        .take(MAX_BODY_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read the memory's text from stdin")?;
    if bytes.len() as u64 > MAX_BODY_BYTES {
        bail!(
            "the memory's text on stdin is over {MAX_BODY_BYTES} bytes; a memory is a short note, keep detail elsewhere"
        );
    }
    String::from_utf8(bytes).context("the memory's text on stdin is not UTF-8")
}
