//! `memdir persist`: upload the files a turn wrote in its outputs folder to
//! the Files API (BYOC environments).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use clap::Args;
use memdir_ops::{Environment, PersistOutcome, PersistRequest, persist_outputs};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

/// Progress goes to stderr every this many files.
const PROGRESS_EVERY: usize = 25;

#[derive(Debug, Args)]
#[command(after_help = "\
Runs at the end of a turn in a BYOC environment: every regular file in the outputs folder \
modified at or after the turn's start is uploaded to the Files API (POST {base}/v1/files), at most \
5 at once by default. Symbolic links, FIFOs, sockets and anything resolving outside the folder are \
skipped. Files holding a secret (an API key, a token), whether written in UTF-8, UTF-16 or \
Latin-1 or in the text of a binary file, are not uploaded, nor are archives whose compressed \
contents cannot be scanned (zip, gzip, 7-zip, ...; documents such as .docx, images and PDFs go \
when what they show uncompressed is clean), unless --no-secret-scan is given. A batch of more \
files than --max-files uploads nothing.

It runs only when MEMDIR_FILE_PERSISTENCE is not 0/false/off, CLAUDE_CODE_ENVIRONMENT_KIND=byoc, \
CLAUDE_CODE_SESSION_ACCESS_TOKEN (sent as a bearer token) or else ANTHROPIC_API_KEY is set, and \
CLAUDE_CODE_REMOTE_SESSION_ID names the session; otherwise it says why and exits 0. \
ANTHROPIC_BASE_URL overrides https://api.anthropic.com.

Exit status: 0 when every file was uploaded, nothing was to do, or persistence is off; 1 when a \
file failed or the batch was refused.

Examples:
  memdir persist --turn-start 1767225600000
  memdir persist --turn-start \"$(($(date +%s) - 300))000\" --outputs ./out --json

JSON: {ran, reason?, outputsDir?, files: [{path, id?, error?}], limit?: {count, limit}, \
skipped: [{path, reason}]}")]
pub(crate) struct PersistArgs {
    /// When the turn started, in milliseconds since the Unix epoch.
    #[arg(long, value_name = "MS")]
    turn_start: u64,
    /// The outputs folder [default: ./<session id>/outputs, the remote
    /// session id read from the environment].
    #[arg(long, value_name = "DIR")]
    outputs: Option<PathBuf>,
    /// Upload files even when they contain API keys or tokens, and archives
    /// the scan cannot see into.
    #[arg(long)]
    no_secret_scan: bool,
    /// The most files one run uploads; more upload nothing [default: 1000].
    #[arg(long, value_name = "N")]
    max_files: Option<usize>,
    /// Uploads in flight at once [default: 5].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: Option<u16>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileJson {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LimitJson {
    count: usize,
    limit: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SkippedJson {
    path: String,
    reason: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PersistJson {
    ran: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outputs_dir: Option<String>,
    files: Vec<FileJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    limit: Option<LimitJson>,
    skipped: Vec<SkippedJson>,
}

pub(crate) fn run(args: &PersistArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let mut request =
        PersistRequest::new(SystemTime::UNIX_EPOCH + Duration::from_millis(args.turn_start));
    request.outputs_dir.clone_from(&args.outputs);
    request.scan_secrets = !args.no_secret_scan;
    request.max_files = args.max_files;
    request.concurrency = args.concurrency.map(usize::from);
    let done = AtomicUsize::new(0);
    let report = persist_outputs(&Environment::from_process(), &request, &|_| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(PROGRESS_EVERY) {
            eprintln!("memdir: persist: {n} files done");
        }
    })
    .map_err(ops_error)?;
    let json = to_json(&report);
    if global.json {
        print_json(&json)?;
    } else {
        print(&text(&json, report.outcome.as_ref()))?;
    }
    Ok(if report.failed() {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

fn to_json(report: &memdir_ops::PersistReport) -> PersistJson {
    let (files, limit, refusal) = match &report.outcome {
        Some(refused @ PersistOutcome::Refused { count, limit }) => (
            Vec::new(),
            Some(LimitJson {
                count: *count,
                limit: *limit,
            }),
            Some(refused.to_string()),
        ),
        Some(PersistOutcome::Uploaded(files)) => (
            files
                .iter()
                .map(|f| match &f.result {
                    Ok(uploaded) => FileJson {
                        path: f.path.clone(),
                        id: Some(uploaded.id.clone()),
                        error: None,
                    },
                    Err(e) => FileJson {
                        path: f.path.clone(),
                        id: None,
                        error: Some(e.to_string()),
                    },
                })
                .collect(),
            None,
            None,
        ),
        None => (Vec::new(), None, None),
    };
    PersistJson {
        ran: report.ran(),
        reason: report
            .disabled
            .as_ref()
            .map(ToString::to_string)
            .or(refusal),
        outputs_dir: report.outputs_dir.as_ref().map(|d| d.display().to_string()),
        files,
        limit,
        skipped: report
            .skipped
            .iter()
            .map(|s| SkippedJson {
                path: s.path.clone(),
                reason: s.reason.to_string(),
            })
            .collect(),
    }
}

fn text(json: &PersistJson, outcome: Option<&PersistOutcome>) -> String {
    let mut text = String::new();
    for file in &json.files {
        match (&file.id, &file.error) {
            (Some(id), _) => {
                let _ = writeln!(text, "uploaded {} {id}", file.path);
            }
            (None, error) => {
                let _ = writeln!(
                    text,
                    "failed {}: {}",
                    file.path,
                    error.as_deref().unwrap_or("unknown error")
                );
            }
        }
    }
    for skipped in &json.skipped {
        let _ = writeln!(text, "skipped {}: {}", skipped.path, skipped.reason);
    }
    match (outcome, &json.reason) {
        (Some(PersistOutcome::Refused { .. }), Some(reason)) => {
            let _ = writeln!(text, "{reason} (raise the limit with --max-files)");
        }
        (Some(PersistOutcome::Uploaded(files)), _) if files.is_empty() => {
            let _ = writeln!(text, "no file was modified since the turn started");
        }
        (Some(outcome), _) => {
            let _ = writeln!(text, "{outcome}");
        }
        (None, Some(reason)) => {
            let _ = writeln!(text, "{reason}");
        }
        (None, None) => {}
    }
    text
}
