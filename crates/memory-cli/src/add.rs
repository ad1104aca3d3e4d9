//! `memdir add`: write one memory and its index line.

use std::io::{IsTerminal, Read};
use std::path::Path;

use anyhow::{Context as _, bail};
use clap::Args;
use memdir_entrypoint::{ENTRYPOINT_NAME, IndexEntry, decode_index, upsert_entry};
use memdir_memtypes::{Header, MemoryType, atomic_write, render_memory};
use memdir_paths::validate_team_mem_key;
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, Rejected};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "The body comes from --body, or from stdin when it is not a terminal. \
    The topic file <name>.md is written first, then its line in MEMORY.md, each atomically. \
    A name that exists already (in any letter case) is refused: edit that memory instead.\n\n\
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
    let folder = if args.team {
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
    let file_name = format!("{}.md", args.name);
    // The same rules as a key from a sync server: no separators, dot
    // segments, encodings or look-alikes that could leave the folder.
    let path = validate_team_mem_key(&file_name, &folder)
        .map_err(|e| Rejected(format!("--name {:?}: {}", args.name, e.reason)))?;
    if args.name.contains('/') || file_name == ENTRYPOINT_NAME {
        return Err(Rejected(format!(
            "--name {:?}: give a plain name, not a path or the index",
            args.name
        ))
        .into());
    }
    if let Some(existing) = existing_case_insensitive(&folder, &file_name)? {
        bail!(
            "a memory named {existing} already exists in {}; edit it instead of adding a near-duplicate",
            folder.display()
        );
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
        // Team memories are shared: nothing holding a secret is written there.
        let findings = memdir_secrets::scan_for_secrets(&rendered);
        if !findings.is_empty() {
            let found: Vec<String> = findings
                .iter()
                .map(|f| format!("{} on line {}", f.rule_id, f.line))
                .collect();
            return Err(Rejected(format!(
                "refused: the memory holds {} ({}); team memories are shared, so take it out (the secret is not shown)",
                if findings.len() == 1 { "a secret" } else { "secrets" },
                found.join(", "),
            ))
            .into());
        }
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    atomic_write(&path, rendered.as_bytes())?;

    let index_path = folder.join(ENTRYPOINT_NAME);
    let index = match std::fs::read(&index_path) {
        Ok(bytes) => decode_index(&bytes).0.into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", index_path.display())),
    };
    let entry = IndexEntry {
        title: args.title.clone().unwrap_or_else(|| args.name.clone()),
        file: file_name,
        hook: description,
    };
    atomic_write(&index_path, upsert_entry(&index, &entry)?.as_bytes())?;

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

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The memory's text: `--body`, or stdin when it is not a terminal.
fn read_body(body: Option<&str>) -> anyhow::Result<String> {
    if let Some(body) = body {
        return Ok(body.to_owned());
    }
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        bail!("give the memory's text with --body, or pipe it on stdin");
    }
    let mut text = String::new();
    stdin
        .read_to_string(&mut text)
        .context("cannot read the memory's text from stdin (is it UTF-8?)")?;
    Ok(text)
}

/// The name of a file in `folder` equal to `name` ignoring letter case, so
/// that `Use-Pnpm.md` does not sit beside `use-pnpm.md` (on a
/// case-insensitive disk they would be one file).
fn existing_case_insensitive(folder: &Path, name: &str) -> anyhow::Result<Option<String>> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot list {}", folder.display())),
    };
    let wanted = name.to_lowercase();
    Ok(entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .find(|n| n.to_lowercase() == wanted))
}
