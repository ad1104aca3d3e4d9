//! `memdir migrate`: the reference agent's settings migrations, on demand.

use std::fmt::Write as _;

use clap::Args;
use memdir_ops::{Environment, MigrationReport, migrate};

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "\
Runs the eleven migrations of the agent's configuration, in order, over ~/.claude.json (or \
$CLAUDE_CONFIG_DIR/.claude.json), <base>/settings.json and this project's \
.claude/settings.local.json: old keys move to where today's agent reads them, retired model \
names become current ones (some only on the plans recorded in <base>/.credentials.json, whose \
tokens are never read out). Each migration runs once: those that move a value run whenever the \
old value is there, the others are recorded as done in <base>/memdir/state.json. Every applied \
change is a line in <base>/memdir/migrations.jsonl; ~/.claude.json is backed up first to \
<base>/backups/ (five newest kept). A file that is not valid JSON, is a symbolic link, lies \
behind a linked folder (a .claude that is a link) or holds a value of an unexpected type where a \
migration reads one (a projects entry that is null) is left untouched, whole, and reported; the \
other files' migrations still run. memdir's locks are kept in <base>/memdir/locks/.

Any memdir command that reads settings runs the migrations first when one of those files \
changed since the last run; MEMDIR_AUTO_MIGRATE=0 turns that off.

Examples:
  memdir migrate --dry-run      # each change as a diff; nothing is written
  memdir migrate
  memdir migrate --json --project ~/src/app

Exit status: 0, or 1 when a file was left untouched or a migration could not be applied.

JSON: [{id, applied, file?, change?, skippedBecause?}] (with --dry-run, each applied one also \
has its diff)")]
pub(crate) struct MigrateArgs {
    /// Show what would change, as a unified diff per migration, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub(crate) fn run(args: &MigrateArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let report = migrate(
        &Environment::from_process(),
        global.project.as_deref(),
        args.dry_run,
    )
    .map_err(ops_error)?;
    for problem in &report.problems {
        eprintln!("memdir: warning: {problem}");
    }
    if global.json {
        print_json(&report.outcomes)?;
    } else {
        print(&text(&report))?;
    }
    let held_back = !report.problems.is_empty() || report.outcomes.iter().any(|o| o.blocked);
    Ok(if held_back {
        Outcome::ProblemsFound
    } else {
        Outcome::Success
    })
}

fn text(report: &MigrationReport) -> String {
    let mut out = String::new();
    let verb = if report.dry_run {
        "would apply"
    } else {
        "applied"
    };
    for outcome in &report.outcomes {
        match (&outcome.change, &outcome.skipped_because) {
            (Some(change), _) => {
                let _ = writeln!(out, "{verb} {}: {change}", outcome.id);
                if let Some(diff) = &outcome.diff {
                    out.push_str(diff);
                }
            }
            (None, why) => {
                let mark = if outcome.blocked {
                    "held back"
                } else {
                    "skipped"
                };
                let _ = writeln!(
                    out,
                    "{mark} {}: {}",
                    outcome.id,
                    why.as_deref().unwrap_or("")
                );
            }
        }
    }
    if let Some(backup) = &report.backup {
        let _ = writeln!(out, "backup: {}", backup.display());
    }
    let applied = report.applied().count();
    let _ = writeln!(
        out,
        "{applied} of {} migrations {}{}",
        report.outcomes.len(),
        if report.dry_run {
            "would change something; nothing was written"
        } else {
            "changed something"
        },
        if report.problems.is_empty() {
            String::new()
        } else {
            format!("; {} file(s) left untouched", report.problems.len())
        }
    );
    out
}
