//! The settings migrations (SPEC R14) as a use case: on demand
//! ([`migrate`]), and once at the start of any command that reads settings
//! (inside [`Project::open`](crate::Project::open)).

use std::path::{Path, PathBuf};

use memdir_migrations::{Locations, Problem as MigrationProblem, ProblemKind, Report, RunOptions};
use memdir_paths::{ENV_CONFIG_DIR, Environment, find_project_roots, memory_base};

use crate::OpsError;

/// Turns the start-up run off when `0`, `false` or `off`.
pub const ENV_AUTO_MIGRATE: &str = "MEMDIR_AUTO_MIGRATE";

/// Runs every migration now, waiting for another process's run: what
/// `memdir migrate` does. `dir` is the project folder (`None`: the working
/// directory); its working tree's entry in the global `projects` map and
/// its local settings are migrated.
pub fn migrate(env: &Environment, dir: Option<&Path>, dry_run: bool) -> Result<Report, OpsError> {
    let at = locations(env, dir)?;
    memdir_migrations::run(&at, &RunOptions { dry_run, now: None }).map_err(OpsError::Migration)
}

/// The start-up run: cheap when nothing changed, never waits, never fails
/// the command. Each applied migration is logged (`info`), each problem
/// warned about, once per change of the inputs.
pub(crate) fn at_start_up(env: &Environment, dir: &Path) {
    if env
        .var(ENV_AUTO_MIGRATE)
        .is_some_and(|v| matches!(v.trim(), "0" | "false" | "off"))
    {
        return;
    }
    // A folder that does not resolve is reported by the resolution itself.
    let Ok(at) = locations(env, Some(dir)) else {
        return;
    };
    match memdir_migrations::run_if_needed(&at) {
        Ok(None) => {}
        Ok(Some(report)) => {
            for outcome in report.applied() {
                if let Some(change) = &outcome.change {
                    log::info!("memdir: migrated settings ({}): {change}", outcome.id);
                }
            }
            // The settings reader warns about settings files it cannot
            // use itself (and reads a linked one as the agent does); a
            // value of the wrong type it does not judge.
            let read_anyway = |problem: &MigrationProblem| {
                problem.kind == ProblemKind::Unusable
                    && (problem.path == at.user_settings
                        || at
                            .project
                            .as_ref()
                            .is_some_and(|p| p.local_settings == problem.path))
            };
            for problem in report.problems.iter().filter(|p| !read_anyway(p)) {
                log::warn!("memdir: warning: settings migrations: {problem}");
            }
        }
        Err(e) => log::warn!("memdir: warning: settings migrations did not run: {e}"),
    }
}

/// The files of a run for the project in `dir`.
fn locations(env: &Environment, dir: Option<&Path>) -> Result<Locations, OpsError> {
    let base = memory_base(env)?;
    let dir: PathBuf = match dir {
        Some(dir) => dir.to_owned(),
        None => std::env::current_dir().map_err(OpsError::WorkingDirectory)?,
    };
    let roots = find_project_roots(&dir)?;
    Ok(Locations::standard(
        base.as_std_path(),
        env.home(),
        env.var(ENV_CONFIG_DIR).is_some(),
        Some(roots.work_tree.as_std_path()),
    ))
}
