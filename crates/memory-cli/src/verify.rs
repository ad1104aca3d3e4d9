//! `memdir verify`: check what memories cite about the project, and record
//! `verified:` in those whose citations all hold.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use memdir_ops::{CacheRefresh, Project, VerifiedMemory, VerifyRequest, VerifyStatus};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "Each memory's citations are checked against the project's work tree: \
    paths (`src/billing/retry.rs`) must exist, identifiers (`RetryPolicy`) and flags \
    (`--legacy-auth`) must occur in some file (.gitignore honoured, hidden and binary files \
    skipped, the memory folder left out). A memory whose citations all hold gets \
    `verified: <now>` in its frontmatter; one with broken citations is named with them, and \
    the exit status is 1.\n\n\
    Example:\n  memdir verify                 # every memory of the project\n  \
    memdir verify retry-policy.md --json\n  \
    memdir verify --cache-only    # what the hooks run in the background\n\n\
    Recall checks paths live and reads identifiers and flags from a per-project cache \
    (<base>/memdir/citations/): a verdict of \"found in file F\" is re-checked against F at \
    each recall, \"found nowhere\" is trusted for a day and refreshed in the background \
    once it is five minutes old. `verify` updates the cache too.\n\n\
    JSON: [{file, path, status, note?, verified?}] (status: verified, broken or unchecked); \
    with --cache-only: {status: refreshed|busy, cache, memories?, citations?, unchecked?}"
)]
pub(crate) struct VerifyArgs {
    /// Memories to verify: names relative to the memory folder, or paths of
    /// files in it. None: every memory of the private folder.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// How long the check may take, in milliseconds; what is not settled
    /// by then is unchecked (never broken) and not recorded.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    budget_ms: u64,
    /// Check every memory (team/ included) and refresh the citation cache
    /// that recall reads instead of searching the project; write nothing
    /// into the memories. The hooks run this in the background; it
    /// returns at once while another refresh of the project runs.
    #[arg(long, conflicts_with = "files")]
    cache_only: bool,
}

#[derive(Serialize)]
struct VerifyJson {
    file: String,
    path: String,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<String>,
}

pub(crate) fn run(args: &VerifyArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    if args.cache_only {
        return refresh(&project, args, global);
    }
    let request = VerifyRequest {
        files: args.files.clone(),
        budget: Some(Duration::from_millis(args.budget_ms)),
    };
    let report = project.verify(&request).map_err(ops_error)?;
    let broken = report
        .iter()
        .any(|m| matches!(m.status, VerifyStatus::Broken(_)));
    if global.json {
        let rows: Vec<VerifyJson> = report.iter().map(json_row).collect();
        print_json(&rows)?;
    } else if report.is_empty() {
        eprintln!("memdir: no memory to verify");
    } else {
        let mut out = String::new();
        for m in &report {
            let _ = match &m.status {
                VerifyStatus::Verified(_) => writeln!(out, "{}: verified", m.file),
                VerifyStatus::Broken(note) => writeln!(out, "{}: broken: {note}", m.file),
                VerifyStatus::Unchecked => writeln!(
                    out,
                    "{}: unchecked (not every citation was settled in time; nothing recorded)",
                    m.file
                ),
                _ => writeln!(out, "{}: unchecked", m.file),
            };
        }
        print(&out)?;
    }
    Ok(if broken {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

fn json_row(m: &VerifiedMemory) -> VerifyJson {
    let (status, note, verified) = match &m.status {
        VerifyStatus::Verified(t) => ("verified", None, Some(t.to_string())),
        VerifyStatus::Broken(note) => ("broken", Some(note.clone()), None),
        _ => ("unchecked", None, None),
    };
    VerifyJson {
        file: m.file.clone(),
        path: m.path.to_string(),
        status,
        note,
        verified,
    }
}

/// `--cache-only`: one refresh of the citation cache.
fn refresh(project: &Project, args: &VerifyArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let budget = Duration::from_millis(args.budget_ms);
    let done = project
        .refresh_citation_cache(Some(budget))
        .map_err(ops_error)?;
    let cache = project.citation_cache_path();
    if global.json {
        let value = match done {
            CacheRefresh::Done {
                memories,
                citations,
                unchecked,
            } => serde_json::json!({
                "status": "refreshed",
                "cache": cache.display().to_string(),
                "memories": memories,
                "citations": citations,
                "unchecked": unchecked,
            }),
            _ => serde_json::json!({"status": "busy", "cache": cache.display().to_string()}),
        };
        print_json(&value)?;
    } else {
        let line = match done {
            CacheRefresh::Done {
                memories,
                citations,
                unchecked: 0,
            } => format!(
                "citation cache refreshed: {citations} citations of {memories} memories ({})\n",
                cache.display()
            ),
            CacheRefresh::Done {
                memories,
                citations,
                unchecked,
            } => format!(
                "citation cache refreshed: {citations} citations of {memories} memories, {unchecked} not settled within {} ms ({})\n",
                args.budget_ms,
                cache.display()
            ),
            _ => "another refresh of this project's citation cache is running; nothing done\n"
                .to_owned(),
        };
        print(&line)?;
    }
    Ok(Outcome::Success)
}
