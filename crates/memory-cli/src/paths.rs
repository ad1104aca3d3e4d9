//! `memdir paths`: where memory lives and why; `check-key` and
//! `check-write` against the path-security rules.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use memdir_paths::{
    PathTraversalError, Resolution, RootKind, validate_team_mem_key, validate_team_mem_write_path,
};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "JSON: {enabled, enabledBy, autoMemPath, autoMemPathSource, teamEnabled, \
    teamEnabledBy, teamMemPath, dailyLogPath, projectRoot, workTree, memoryBase, warnings}\n\n\
    Sources: enabledBy is env:<VAR>, settings:<user|project|local|flag|managed> or default; \
    autoMemPathSource is flag:--memory-dir, env:CLAUDE_COWORK_MEMORY_PATH_OVERRIDE, \
    settings:<source>, env:CLAUDE_CODE_PROJECT_DIR_NAME (the folder name under \
    <base>/projects/, read only with CLAUDE_CONFIG_DIR) or default (the sanitised project \
    root). autoMemoryDirectory is never taken from the committed .claude/settings.json,     nor from a .claude/settings.local.json that the project's git tracks."
)]
pub(crate) struct PathsArgs {
    #[command(subcommand)]
    command: Option<PathsCommand>,
}

#[derive(Debug, Subcommand)]
enum PathsCommand {
    /// Check a team-memory key (as a sync server sends it) against the
    /// path-security rules: exit 0 with the path it would be written to, or
    /// exit 3 with the rule it breaks. Creates nothing.
    #[command(
        after_help = "JSON: {ok: true, path} or {ok: false, error: \"PathTraversalError\", \
        reason, code}"
    )]
    CheckKey {
        /// The key, a `/`-separated path relative to the team folder. A KEY
        /// that starts with '-' is taken as it is (`check-key -dash.md`); put
        /// -- before one that looks like an option (`check-key -- --json`).
        #[arg(allow_hyphen_values = true)]
        key: String,
        /// The team folder [default: the project's <auto memory>/team/].
        #[arg(long, value_name = "DIR")]
        team_dir: Option<PathBuf>,
    },
    /// Check a path about to be written in the team folder: lexically, then
    /// with symbolic links resolved. Exit 0 with the normalised path, or
    /// exit 3 with the rule it breaks. Creates nothing.
    #[command(
        after_help = "JSON: {ok: true, path} or {ok: false, error: \"PathTraversalError\", \
        reason, code}"
    )]
    CheckWrite {
        /// The path (relative paths are relative to the working directory).
        /// A PATH that starts with '-' is taken as it is; put -- before one
        /// that looks like an option (`check-write -- --json`).
        #[arg(allow_hyphen_values = true)]
        path: PathBuf,
        /// The team folder [default: the project's <auto memory>/team/].
        #[arg(long, value_name = "DIR")]
        team_dir: Option<PathBuf>,
    },
}

pub(crate) fn run(args: &PathsArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match &args.command {
        None => show(global),
        Some(PathsCommand::CheckKey { key, team_dir }) => {
            let team = team_folder(team_dir.as_deref(), global)?;
            report(validate_team_mem_key(key, &team), global.json)
        }
        Some(PathsCommand::CheckWrite { path, team_dir }) => {
            let team = team_folder(team_dir.as_deref(), global)?;
            report(validate_team_mem_write_path(path, &team), global.json)
        }
    }
}

fn team_folder(given: Option<&Path>, global: &GlobalArgs) -> anyhow::Result<PathBuf> {
    match given {
        Some(dir) => Ok(dir.to_owned()),
        None => Ok(global
            .project()?
            .resolution()
            .team_mem_path()
            .into_std_path_buf()),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckJson<'a> {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
}

fn report(result: Result<PathBuf, PathTraversalError>, json: bool) -> anyhow::Result<Outcome> {
    match result {
        Ok(path) => {
            let path = path.display().to_string();
            if json {
                print_json(&CheckJson {
                    ok: true,
                    path: Some(path),
                    error: None,
                    reason: None,
                    code: None,
                })?;
            } else {
                print(&format!("ok: {path}"))?;
            }
            Ok(Outcome::Success)
        }
        Err(e) => {
            if json {
                print_json(&CheckJson {
                    ok: false,
                    path: None,
                    error: Some("PathTraversalError"),
                    reason: Some(e.reason.to_string()),
                    code: Some(e.reason.code()),
                })?;
            }
            eprintln!("memdir: {e}");
            Ok(Outcome::Rejected)
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PathsJson {
    enabled: bool,
    enabled_by: String,
    auto_mem_path: String,
    auto_mem_path_source: String,
    team_enabled: bool,
    team_enabled_by: String,
    team_mem_path: String,
    daily_log_path: String,
    project_root: String,
    work_tree: String,
    memory_base: String,
    warnings: Vec<String>,
}

impl PathsJson {
    fn new(r: &Resolution) -> Self {
        let text = |p: &camino::Utf8Path| p.to_string();
        PathsJson {
            enabled: r.enablement.enabled,
            enabled_by: r.enablement.by.to_string(),
            auto_mem_path: text(&r.auto_mem_path),
            auto_mem_path_source: r.auto_mem_path_source.to_string(),
            team_enabled: r.team_enabled,
            team_enabled_by: r.team_enabled_by.to_string(),
            team_mem_path: text(&r.team_mem_path()),
            daily_log_path: text(&r.daily_log_path(memdir_paths::today_local())),
            project_root: text(&r.project.canonical),
            work_tree: text(&r.project.work_tree),
            memory_base: text(&r.base),
            warnings: r.warnings.clone(),
        }
    }
}

fn show(global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let resolution = project.resolution();
    let j = PathsJson::new(resolution);
    if global.json {
        print_json(&j)?;
        return Ok(Outcome::Success);
    }
    let on_off = |b: bool| if b { "on" } else { "off" };
    let mut out = String::new();
    let mut row = |label: &str, value: &str, why: &str| {
        let _ = writeln!(
            out,
            "{label:<17}{value}{}",
            if why.is_empty() {
                String::new()
            } else {
                format!("  ({why})")
            }
        );
    };
    let kind = match resolution.project.kind {
        RootKind::NotGit => "not a git repository: the working directory",
        RootKind::Repository => "git repository",
        RootKind::LinkedWorktree => "main repository of this linked worktree",
        RootKind::Submodule => "git submodule",
        RootKind::Bare => "bare git repository",
    };
    row("project root", &j.project_root, kind);
    if j.work_tree != j.project_root {
        row("work tree", &j.work_tree, "settings are read here");
    }
    row("memory base", &j.memory_base, "");
    row("auto memory", on_off(j.enabled), &j.enabled_by);
    row("auto memory dir", &j.auto_mem_path, &j.auto_mem_path_source);
    row("team memory", on_off(j.team_enabled), &j.team_enabled_by);
    row("team memory dir", &j.team_mem_path, "");
    row("daily log", &j.daily_log_path, "today");
    print(&out)?;
    Ok(Outcome::Success)
}
