//! `memdir team pull|push|sync|status|watch`: share the team folder
//! through a team server.

use std::fmt::Write as _;

use anyhow::bail;
use clap::{Args, Subcommand};
use memdir_ops::{OpsError, TeamOverrides};
use memdir_teamsync::{Client, SyncResult};

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::print;

#[derive(Debug, Subcommand)]
pub(crate) enum TeamCommand {
    /// Write the server's entries into the team folder (the server wins;
    /// a locally edited file is first copied to `.conflicts/`).
    Pull(TeamArgs),
    /// Send the team folder's changed files to the server, after a secret
    /// scan: a file holding a secret is never sent.
    Push(TeamArgs),
    /// Pull, then push.
    Sync(TeamArgs),
    /// Show what a push would send and a pull would write (and which local
    /// edits a pull would set aside), changing nothing.
    Status(TeamArgs),
    /// Pull once, then push the team folder a moment after each change,
    /// until interrupted; one line per push.
    Watch(WatchArgs),
}

#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    #[command(flatten)]
    team: TeamArgs,
    /// How long after the last change to push, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2_000)]
    debounce_ms: u64,
}

#[derive(Debug, Args)]
#[command(
    after_help = "The server is --url, else MEMDIR_TEAM_URL, else teamMemory.url in your \
    user, local, command-line or managed settings (never the project's committed settings). \
    The token is MEMDIR_TEAM_TOKEN. The repository is --repo, else the github.com origin \
    remote of the project.\n\n\
    JSON: {success, filesUploaded, checksum?, conflict?, skippedSecrets?, errorType?, error?, \
    filesPulled?, skipped?, conflictCopies?}"
)]
pub(crate) struct TeamArgs {
    /// The repository (`owner/name`) whose team memory to sync.
    #[arg(long, value_name = "OWNER/NAME")]
    repo: Option<String>,
    /// The team server's base URL.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
}

pub(crate) fn run(cmd: &TeamCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let (TeamCommand::Pull(args)
    | TeamCommand::Push(args)
    | TeamCommand::Sync(args)
    | TeamCommand::Status(args)
    | TeamCommand::Watch(WatchArgs { team: args, .. })) = cmd;
    let overrides = TeamOverrides {
        url: args.url.clone(),
        repo: args.repo.clone(),
    };
    let client = global
        .project()?
        .team_client(&overrides)
        .map_err(|e| match e {
            OpsError::NoTeamServer => anyhow::anyhow!(
                "no team server is configured: give --url, or set MEMDIR_TEAM_URL or teamMemory.url in your settings"
            ),
            e => ops_error(e),
        })?;
    let results: Vec<(&str, SyncResult)> = match cmd {
        TeamCommand::Pull(_) => vec![("pull", client.pull())],
        TeamCommand::Push(_) => vec![("push", client.push())],
        TeamCommand::Status(_) => return status(&client, global.json),
        TeamCommand::Watch(w) => return watch(client, w.debounce_ms, global.json),
        TeamCommand::Sync(_) => {
            let pulled = client.pull();
            if pulled.success {
                vec![("pull", pulled), ("push", client.push())]
            } else {
                vec![("pull", pulled)]
            }
        }
    };
    let success = results.iter().all(|(_, r)| r.success);
    if global.json {
        let text = match results.as_slice() {
            [(_, only)] => serde_json::to_string(only)?,
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .map(|(op, r)| Ok(format!("\"{op}\": {}", serde_json::to_string(r)?)))
                    .collect::<serde_json::Result<_>>()?;
                format!("{{{}}}", parts.join(", "))
            }
        };
        print(&text)?;
    } else {
        print(&report(&results))?;
    }
    Ok(if success {
        Outcome::Success
    } else {
        Outcome::ProblemsFound
    })
}

fn status(client: &Client, json: bool) -> anyhow::Result<Outcome> {
    let s = memdir_teamsync::status(client);
    if json {
        print(&serde_json::to_string(&s)?)?;
    } else if s.success {
        let mut out = String::new();
        for k in &s.to_push {
            let _ = writeln!(out, "would push {k}");
        }
        for k in &s.to_pull {
            let conflict = if s.conflicts.contains(k) {
                " (your local edit would be kept in .conflicts/)"
            } else {
                ""
            };
            let _ = writeln!(out, "would pull {k}{conflict}");
        }
        held_back(&mut out, "held back", &s.skipped_secrets, &s.skipped);
        if let Some(reason) = &s.suppressed {
            let _ = writeln!(
                out,
                "pushes are held back by the watcher after: {reason} (delete a file to retry)"
            );
        }
        if out.is_empty() {
            out.push_str("in sync: nothing to push or pull\n");
        }
        print(&out)?;
    } else {
        bail!(
            "status failed: {}",
            s.error.as_deref().unwrap_or("no details")
        );
    }
    Ok(Outcome::Success)
}

fn watch(client: Client, debounce_ms: u64, json: bool) -> anyhow::Result<Outcome> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let options = memdir_teamsync::WatchOptions {
        debounce: Duration::from_millis(debounce_ms),
    };
    let watcher = match memdir_teamsync::Watcher::start(client, options) {
        Ok(w) => w,
        Err(memdir_teamsync::WatchError::Sync(result)) => {
            bail!(
                "cannot watch: {}",
                result
                    .error
                    .as_deref()
                    .unwrap_or("no credentials or repository")
            )
        }
        Err(e) => return Err(anyhow::Error::new(e).context("cannot watch the team folder")),
    };
    let log = |op: &str, r: &SyncResult| -> anyhow::Result<()> {
        if json {
            print(&serde_json::to_string(r)?)
        } else {
            print(report(&[(op, r.clone())]).trim_end())
        }
        .map_err(Into::into)
    };
    log("pull", watcher.initial_pull())?;
    eprintln!("memdir: watching the team folder (stop with Ctrl-C)");
    while !stop.load(Ordering::Relaxed) {
        match watcher.results().recv_timeout(Duration::from_millis(200)) {
            Ok(result) => log("push", &result)?,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    watcher.stop();
    eprintln!("memdir: stopped watching");
    Ok(Outcome::Success)
}

/// One line per file held back: for a secret (its rules and lines, never
/// the secret), or for another reason.
fn held_back(
    out: &mut String,
    verb: &str,
    secrets: &[memdir_teamsync::SkippedSecret],
    skipped: &[memdir_teamsync::SkippedKey],
) {
    for f in secrets {
        let lines: Vec<String> = f.lines.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            "{verb} {} — secret ({}) on line {}",
            f.file,
            f.rule_ids.join(", "),
            lines.join(", ")
        );
    }
    for k in skipped {
        let _ = writeln!(out, "{verb} {} — {}", k.key, k.reason);
    }
}

/// One line per fact: files pulled and uploaded, each file skipped and why.
fn report(results: &[(&str, SyncResult)]) -> String {
    let mut out = String::new();
    for (op, r) in results {
        held_back(
            &mut out,
            &format!("{op}: not sent"),
            &r.skipped_secrets,
            &r.skipped,
        );
        for c in &r.conflict_copies {
            let _ = writeln!(out, "{op}: your local edit was kept as {c}");
        }
        for k in r.pulled.iter().chain(&r.uploaded) {
            let verb = if *op == "pull" { "wrote" } else { "uploaded" };
            let _ = writeln!(out, "{op}: {verb} {k}");
        }
        if r.success {
            let _ = match *op {
                "pull" => writeln!(
                    out,
                    "pull: {} files written from the server",
                    r.files_pulled
                ),
                _ => writeln!(out, "push: {} files uploaded", r.files_uploaded),
            };
        } else {
            let kind = r
                .error_type
                .and_then(|t| serde_json::to_value(t).ok()?.as_str().map(str::to_owned))
                .unwrap_or_else(|| "error".to_owned());
            let _ = writeln!(
                out,
                "{op}: failed ({kind}): {}",
                r.error.as_deref().unwrap_or("no details")
            );
        }
    }
    out
}
