//! `memdir team pull|push|sync`: share the team folder through a team
//! server. Not built yet: `status` and `watch`.

use std::fmt::Write as _;

use anyhow::bail;
use clap::{Args, Subcommand};
use memdir_paths::{Settings, SettingsLocations, SettingsSource};
use memdir_teamsync::{Client, SyncResult, repo_from_git_config};

use crate::Outcome;
use crate::context::GlobalArgs;
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
    let (TeamCommand::Pull(args) | TeamCommand::Push(args) | TeamCommand::Sync(args)) = cmd;
    let resolution = global.resolve()?;
    if !resolution.team_enabled {
        bail!(
            "team memory is off ({}); turn it on with teamMemoryEnabled: true in settings or MEMDIR_TEAM=1",
            resolution.team_enabled_by
        );
    }
    let Some(url) = server_url(args, &resolution, global) else {
        bail!("no team server is configured: give --url, or set MEMDIR_TEAM_URL or teamMemory.url");
    };
    let repo = args
        .repo
        .clone()
        .or_else(|| repo_from_git_config(&resolution.project.work_tree));
    let token = std::env::var("MEMDIR_TEAM_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    let client = Client::new(url, resolution.team_mem_path())
        .with_token(token)
        .with_repo(repo);
    let results: Vec<(&str, SyncResult)> = match cmd {
        TeamCommand::Pull(_) => vec![("pull", client.pull())],
        TeamCommand::Push(_) => vec![("push", client.push())],
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
            [(_, only)] => only.to_json(),
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .map(|(op, r)| format!("\"{op}\": {}", r.to_json()))
                    .collect();
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

/// The server: `--url`, else `MEMDIR_TEAM_URL`, else `teamMemory.url` from
/// a trusted settings file. Never the project's committed settings: a
/// repository must not be able to send a team's memory, and its token, to
/// a server of its choosing.
fn server_url(
    args: &TeamArgs,
    resolution: &memdir_paths::Resolution,
    global: &GlobalArgs,
) -> Option<String> {
    if let Some(url) = args.url.clone().or_else(|| {
        std::env::var("MEMDIR_TEAM_URL")
            .ok()
            .filter(|u| !u.is_empty())
    }) {
        return Some(url);
    }
    let locations = SettingsLocations::standard(
        &resolution.base,
        &resolution.project.work_tree,
        global.settings.clone(),
    );
    Settings::load(&locations)
        .find("teamMemory", SettingsSource::is_trusted)
        .and_then(|(_, v)| v.get("url")?.as_str().map(str::to_owned))
}

/// One line per fact: files pulled and uploaded, each file skipped and why.
fn report(results: &[(&str, SyncResult)]) -> String {
    let mut out = String::new();
    for (op, r) in results {
        for s in &r.skipped_secrets {
            let lines: Vec<String> = s.lines.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "{op}: not sent {} — secret ({}) on line {}",
                s.file,
                s.rule_ids.join(", "),
                lines.join(", ")
            );
        }
        for s in &r.skipped {
            let _ = writeln!(out, "{op}: skipped {} — {}", s.key, s.reason);
        }
        for c in &r.conflict_copies {
            let _ = writeln!(out, "{op}: your local edit was kept as {c}");
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
