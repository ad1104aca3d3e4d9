//! `memdir import FORMAT PATH` and `memdir export FORMAT [PATH]`: memories
//! in from other tools and out to them.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use memdir_ops::{ExportReport, FileChange, ImportOutcome, ImportReport, InteropFormat, Scope};
use serde_json::json;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

const EXPORT_HELP: &str = "\
Writes the project's memories (superseded ones left out) in another tool's format. A file \
the user also writes keeps every byte outside memdir's part: the pointer block between \
<!-- memdir:begin --> and <!-- memdir:end --> of AGENTS.md or CLAUDE.md, the added-memories \
section of GEMINI.md or QWEN.md (whose own bullets are kept). Files are written atomically, \
never through a symbolic link; a second export changes nothing.

Examples:
  memdir export agents-md --dry-run      # the change as a diff
  memdir export cursor                   # .cursor/rules/<name>.mdc in the project
  memdir export mcp-memory /tmp/out --json   # /tmp/out/memory.jsonl
  memdir export mcp-memory backup.jsonl      # that file; memdir import mcp-memory backup.jsonl reads it

JSON: {memories, files: [{path, change, diff?}], notes, dryRun}

Formats:
  mcp-memory   the MCP reference memory server's memory.jsonl (entities, relations, observations)
  cline        Cline's Memory Bank folder (memory-bank/*.md)
  cursor       Cursor rules (.cursor/rules/*.mdc)
  gemini       the \"Gemini Added Memories\" section of a GEMINI.md
  qwen         the \"Qwen Added Memories\" section of a QWEN.md
  agents-md    AGENTS.md: a block of pointers between <!-- memdir:begin --> and <!-- memdir:end -->
  claude-md    CLAUDE.md: the same block";

#[derive(Debug, Args)]
#[command(after_help = IMPORT_HELP)]
pub(crate) struct ImportArgs {
    /// The format of PATH (see below).
    #[arg(value_name = "FORMAT")]
    format: InteropFormat,
    /// The file or folder to read; for a one-file format, a folder is the
    /// folder holding its file (as `memdir export FORMAT DIR` wrote it).
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// Import into the team folder (secret-checked) instead of the private one.
    #[arg(long)]
    team: bool,
    /// Say what would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

const IMPORT_HELP: &str = "Each memory of PATH is written through memdir's write API (frontmatter, index line, \
the folder's lock; a team memory holding a secret is refused). A memory whose name is \
taken, or whose text another memory already holds, is not written: a second import of \
the same input changes nothing. What could not be mapped is listed with its place.\n\n\
Examples:\n  memdir import mcp-memory ~/.local/share/memory.jsonl --dry-run\n  \
memdir import cline ./memory-bank\n  memdir import cursor . --json\n\n\
Formats: mcp-memory, cline, cursor, gemini, qwen, agents-md, claude-md (see memdir export --help).\n\n\
Exit status: 0; 1 when some memory was not written or some input not mapped.\n\n\
JSON: {memories: [{name, type, description, outcome, file?, reason?}], skipped: [{at, reason}]}";

#[derive(Debug, Args)]
#[command(after_help = EXPORT_HELP)]
pub(crate) struct ExportArgs {
    /// The format to write (see below).
    #[arg(value_name = "FORMAT")]
    format: InteropFormat,
    /// The folder to write into; default: the project's work tree, where
    /// the other tool looks. For a one-file format (mcp-memory, gemini,
    /// qwen, agents-md, claude-md), PATH may name the file itself: an
    /// existing file, or a new name with an extension (`out.jsonl`). A file
    /// the user also writes (AGENTS.md, CLAUDE.md, GEMINI.md, QWEN.md)
    /// changes only in memdir's part.
    #[arg(value_name = "PATH")]
    path: Option<PathBuf>,
    /// Export the team folder instead of the private one.
    #[arg(long)]
    team: bool,
    /// Print each change as a diff, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

fn scope(team: bool) -> Scope {
    if team { Scope::Team } else { Scope::Private }
}

pub(crate) fn run_import(args: &ImportArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let report = project
        .import_memories(args.format, &args.path, scope(args.team), args.dry_run)
        .map_err(ops_error)?;
    let incomplete = !report.skipped.is_empty()
        || report.memories.iter().any(|m| {
            matches!(
                m.outcome,
                ImportOutcome::NameTaken(_) | ImportOutcome::Refused(_)
            )
        });
    if global.json {
        print_json(&import_json(&report))?;
    } else {
        print(&import_text(&report, args.dry_run))?;
    }
    Ok(if incomplete {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

fn import_json(report: &ImportReport) -> serde_json::Value {
    let memories: Vec<serde_json::Value> = report
        .memories
        .iter()
        .map(|m| {
            let (outcome, file, reason) = match &m.outcome {
                ImportOutcome::Written(f) => ("written", Some(f), None),
                ImportOutcome::WouldWrite(f) => ("wouldWrite", Some(f), None),
                ImportOutcome::AlreadyPresent(f) => ("alreadyPresent", Some(f), None),
                ImportOutcome::NameTaken(f) => ("nameTaken", Some(f), None),
                ImportOutcome::SameContentAs(f) => ("sameContentAs", Some(f), None),
                ImportOutcome::Refused(r) => ("refused", None, Some(r)),
                _ => ("refused", None, None),
            };
            let mut v = json!({
                "name": m.name,
                "type": m.memory_type.as_str(),
                "description": m.description,
                "outcome": outcome,
            });
            if let Some(f) = file {
                v["file"] = json!(f);
            }
            if let Some(r) = reason {
                v["reason"] = json!(r);
            }
            v
        })
        .collect();
    let skipped: Vec<serde_json::Value> = report
        .skipped
        .iter()
        .map(|s| json!({"at": s.at, "reason": s.reason}))
        .collect();
    json!({"memories": memories, "skipped": skipped})
}

fn import_text(report: &ImportReport, dry_run: bool) -> String {
    let mut out = String::new();
    for m in &report.memories {
        let _ = match &m.outcome {
            ImportOutcome::Written(f) => writeln!(out, "wrote {f}"),
            ImportOutcome::WouldWrite(f) => writeln!(out, "would write {f}"),
            ImportOutcome::AlreadyPresent(f) => writeln!(out, "{f}: already here"),
            ImportOutcome::NameTaken(f) => {
                writeln!(out, "{f}: a different memory has this name; not written")
            }
            ImportOutcome::SameContentAs(f) => {
                writeln!(out, "{}: {f} already holds its text; not written", m.name)
            }
            ImportOutcome::Refused(r) => writeln!(out, "{}: not written: {r}", m.name),
            _ => writeln!(out, "{}: not written", m.name),
        };
    }
    for s in &report.skipped {
        let _ = writeln!(out, "skipped {}: {}", s.at, s.reason);
    }
    let written = report
        .memories
        .iter()
        .filter(|m| {
            matches!(
                m.outcome,
                ImportOutcome::Written(_) | ImportOutcome::WouldWrite(_)
            )
        })
        .count();
    let _ = writeln!(
        out,
        "{} {written} of {} memories{}",
        if dry_run { "would import" } else { "imported" },
        report.memories.len(),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(
                "; {} entries of the input could not be mapped",
                report.skipped.len()
            )
        }
    );
    out
}

pub(crate) fn run_export(args: &ExportArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let report = project
        .export_memories(
            args.format,
            args.path.as_deref(),
            scope(args.team),
            args.dry_run,
        )
        .map_err(ops_error)?;
    if global.json {
        print_json(&export_json(&report, args.dry_run))?;
    } else {
        print(&export_text(&report, args.dry_run))?;
    }
    Ok(Outcome::Success)
}

fn change_name(change: FileChange) -> &'static str {
    match change {
        FileChange::Created => "created",
        FileChange::Updated => "updated",
        _ => "unchanged",
    }
}

fn export_json(report: &ExportReport, dry_run: bool) -> serde_json::Value {
    let files: Vec<serde_json::Value> = report
        .files
        .iter()
        .map(|f| {
            let mut v =
                json!({"path": f.path.display().to_string(), "change": change_name(f.change)});
            if dry_run {
                v["diff"] = json!(diff(&f.before, &f.after, &f.path.display().to_string()));
            }
            v
        })
        .collect();
    json!({"memories": report.memories, "files": files, "notes": report.notes, "dryRun": dry_run})
}

fn export_text(report: &ExportReport, dry_run: bool) -> String {
    let mut out = String::new();
    for f in &report.files {
        let path = f.path.display().to_string();
        if dry_run && f.change != FileChange::Unchanged {
            out.push_str(&diff(&f.before, &f.after, &path));
        } else {
            let verb = if dry_run { "would be " } else { "" };
            let _ = writeln!(out, "{path}: {verb}{}", change_name(f.change));
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let _ = writeln!(
        out,
        "{} {} memories to {} files",
        if dry_run { "would export" } else { "exported" },
        report.memories,
        report.files.len()
    );
    out
}

/// A unified diff of one file, as a dry run shows it.
fn diff(before: &str, after: &str, path: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .header(&format!("{path} (now)"), &format!("{path} (after export)"))
        .to_string()
}
