//! `memdir index check|show|fix`: MEMORY.md as the model sees it, its lint,
//! and its repair.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Subcommand;
use memdir_entrypoint::{
    FolderListing, Lint, MAX_ENTRYPOINT_BYTES, MAX_ENTRYPOINT_LINES, MAX_INDEX_READ_BYTES,
    Truncation, decode_index, lint_index, truncate_entrypoint_content,
};
use memdir_memtypes::read_regular_file;
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum IndexCommand {
    /// Check a MEMORY.md: size against the prompt limits, the entries the cut
    /// drops, and lint (long lines, missing or unlinked files, duplicate
    /// links, frontmatter).
    ///
    /// Exits 0 when the index fits and is clean, 1 when anything was found.
    #[command(
        after_help = "JSON: {lineCount, byteCount, wasLineTruncated, wasByteTruncated, \
        warning, droppedEntries: [{line, title, target}], lint: [{line, kind, message}]}"
    )]
    Check {
        /// The MEMORY.md to check; its folder is the memory folder linted
        /// against [default: the project's auto memory MEMORY.md].
        /// A FILE that starts with '-' is taken as it is; put -- before one
        /// that looks like an option (`-- --json`).
        #[arg(allow_hyphen_values = true)]
        file: Option<PathBuf>,
    },
    /// Print a MEMORY.md exactly as it is injected into the prompt: trimmed,
    /// cut to the limits, with the warning when anything was cut.
    #[command(after_help = "JSON: {content}")]
    Show {
        /// The MEMORY.md to show [default: the project's auto memory
        /// MEMORY.md].
        /// A FILE that starts with '-' is taken as it is; put -- before one
        /// that looks like an option (`-- --json`).
        #[arg(allow_hyphen_values = true)]
        file: Option<PathBuf>,
    },
    /// Repair a memory folder after interrupted writes: give every memory
    /// file without an index line its line (title and hook from its
    /// frontmatter) and remove memdir's leftover temporary files. Never
    /// deletes or changes a memory file.
    ///
    /// Exits 0 when the index is clean afterwards, 1 when lint that a fix
    /// cannot decide remains (a link to a missing file, a long line, …).
    #[command(
        after_help = "Runs under the folder's lock, like every memdir write.\n\n\
        JSON: {added: [file], tempFilesRemoved, supersededLinesRemoved: [file], remaining: [{line, kind, message}]}\n\n\
        Example:\n  memdir index fix            the project's auto memory folder\n  \
        memdir index fix ~/.claude/projects/-home-me-app/memory/team/MEMORY.md"
    )]
    Fix {
        /// The MEMORY.md of the folder to repair; it need not exist yet
        /// [default: the project's auto memory MEMORY.md].
        /// A FILE that starts with '-' is taken as it is; put -- before one
        /// that looks like an option (`-- --json`).
        #[arg(allow_hyphen_values = true)]
        file: Option<PathBuf>,
    },
}

pub(crate) fn run(cmd: &IndexCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        IndexCommand::Check { file } => {
            check(&given_or_default(file.as_ref(), global)?, global.json)
        }
        IndexCommand::Show { file } => show(&given_or_default(file.as_ref(), global)?, global.json),
        IndexCommand::Fix { file } => {
            let file = match file {
                Some(file) => file.clone(),
                None => global
                    .project()?
                    .resolution()
                    .entrypoint()
                    .into_std_path_buf(),
            };
            crate::index_fix::run(&file, global.json)
        }
    }
}

fn given_or_default(file: Option<&PathBuf>, global: &GlobalArgs) -> anyhow::Result<PathBuf> {
    match file {
        Some(file) => Ok(file.clone()),
        None => default_index(global),
    }
}

/// The project's auto memory MEMORY.md, which must exist (as something:
/// a FIFO or a folder in its place is reported by the read).
fn default_index(global: &GlobalArgs) -> anyhow::Result<PathBuf> {
    let project = global.project()?;
    let resolution = project.resolution();
    let path = resolution.entrypoint();
    if !path.exists() {
        bail!(
            "no MEMORY.md in {} (the auto memory folder of {}); give a FILE, --project or --memory-dir",
            resolution.auto_mem_path,
            resolution.project.canonical
        );
    }
    Ok(path.into_std_path_buf())
}

/// Reads an index file's bytes, at most [`MAX_INDEX_READ_BYTES`], refusing
/// a folder with a clear message and a FIFO, socket or device without
/// waiting on it.
fn read_index(path: &Path) -> anyhow::Result<Vec<u8>> {
    if path.is_dir() {
        bail!(
            "{} is a folder; give the path of a MEMORY.md file",
            path.display()
        );
    }
    Ok(read_regular_file(path, MAX_INDEX_READ_BYTES)?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckJson<'a> {
    line_count: usize,
    byte_count: usize,
    was_line_truncated: bool,
    was_byte_truncated: bool,
    warning: Option<&'a str>,
    dropped_entries: Vec<DroppedJson<'a>>,
    lint: Vec<LintJson<'a>>,
}

#[derive(Serialize)]
struct DroppedJson<'a> {
    line: usize,
    title: &'a str,
    target: &'a str,
}

#[derive(Serialize)]
pub(crate) struct LintJson<'a> {
    line: Option<usize>,
    kind: &'static str,
    message: &'a str,
}

impl<'a> From<&'a Lint> for LintJson<'a> {
    fn from(l: &'a Lint) -> Self {
        LintJson {
            line: l.line,
            kind: l.kind.as_str(),
            message: &l.message,
        }
    }
}

fn check(path: &Path, json: bool) -> anyhow::Result<Outcome> {
    let bytes = read_index(path)?;
    let (text, utf8_lint) = decode_index(&bytes);
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let listing = FolderListing::read(folder)?;
    let truncation = truncate_entrypoint_content(&text);
    let mut lints: Vec<Lint> = utf8_lint.into_iter().collect();
    lints.extend(lint_index(&text, Some(&listing)));

    if json {
        print_json(&CheckJson {
            line_count: truncation.line_count,
            byte_count: truncation.byte_count,
            was_line_truncated: truncation.was_line_truncated,
            was_byte_truncated: truncation.was_byte_truncated,
            warning: truncation.warning.as_deref(),
            dropped_entries: truncation
                .dropped
                .iter()
                .map(|d| DroppedJson {
                    line: d.line,
                    title: &d.title,
                    target: &d.target,
                })
                .collect(),
            lint: lints.iter().map(LintJson::from).collect(),
        })?;
    } else {
        print(&check_report(path, &truncation, &lints))?;
    }
    Ok(if truncation.was_truncated() || !lints.is_empty() {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

/// The human-readable report of `index check`.
fn check_report(path: &Path, t: &Truncation, lints: &[Lint]) -> String {
    let mut out = String::new();
    let limits = format!("limits: {MAX_ENTRYPOINT_LINES} lines, {MAX_ENTRYPOINT_BYTES} bytes");
    let verdict = if t.was_truncated() {
        "TRUNCATED, only part is loaded"
    } else {
        "fits"
    };
    let _ = writeln!(
        out,
        "{}: {} lines, {} bytes: {verdict} ({limits})",
        path.display(),
        t.line_count,
        t.byte_count
    );
    if !t.dropped.is_empty() {
        let n = t.dropped.len();
        let _ = writeln!(
            out,
            "{n} {} the model will not see:",
            plural(n, "entry", "entries")
        );
        for d in &t.dropped {
            let _ = writeln!(out, "  line {}: [{}]({})", d.line, d.title, d.target);
        }
    }
    for lint in lints {
        match lint.line {
            Some(line) => {
                let _ = writeln!(out, "line {line}: {}: {}", lint.kind, lint.message);
            }
            None => {
                let _ = writeln!(out, "{}: {}", lint.kind, lint.message);
            }
        }
    }
    let problems = lints.len() + usize::from(t.was_truncated());
    if problems == 0 {
        out.push_str("no problems found\n");
    } else {
        let _ = writeln!(
            out,
            "{problems} {} found",
            plural(problems, "problem", "problems")
        );
    }
    out
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[derive(Serialize)]
struct ShowJson<'a> {
    content: &'a str,
}

fn show(path: &Path, json: bool) -> anyhow::Result<Outcome> {
    let bytes = read_index(path)?;
    let truncation = truncate_entrypoint_content(&decode_index(&bytes).0);
    if json {
        print_json(&ShowJson {
            content: &truncation.content,
        })?;
    } else if !truncation.content.is_empty() {
        print(&truncation.content)?;
    }
    Ok(Outcome::Success)
}
