//! `memdir hooks install|uninstall`: memdir's entries in the agent's
//! settings `hooks` key, and nothing else.

use std::fmt::Write as _;
use std::path::Path;

use clap::{Args, Subcommand, ValueEnum};
use memdir_ops::{HooksChange, SettingsScope};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
#[command(after_help = "\
Each event (SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd) gets one entry \
{\"matcher\": \"\", \"hooks\": [{\"type\": \"command\", \"command\": \"<this memdir> hook <event>\"}]}. \
Every other key and hook is kept; installing twice changes nothing; a copy of the file as it was \
is kept beside it (<file>.memdir-backup-<time>, the newest 5). A file that is not a JSON object, \
or that lies behind a linked folder (a project's .claude that is a symbolic link), is refused and \
left as it is. The lock is taken in <base>/memdir/locks/, never beside the file.

Examples:
  memdir hooks install                  into <base>/settings.json (~/.claude/settings.json)
  memdir hooks install --scope local    into .claude/settings.local.json of this project
  memdir hooks uninstall --json

JSON: {file, added: [event], removed: [event], backup}")]
pub(crate) enum HooksCommand {
    /// Add memdir's hooks to the agent's settings.
    Install(ScopeArgs),
    /// Remove memdir's hooks from the agent's settings.
    Uninstall(ScopeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ScopeArgs {
    /// Which settings file.
    #[arg(long, value_enum, default_value_t = ScopeArg::User)]
    scope: ScopeArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ScopeArg {
    /// <base>/settings.json: every project of this user.
    User,
    /// <project>/.claude/settings.json: shared with the repository.
    Project,
    /// <project>/.claude/settings.local.json: this checkout only.
    Local,
}

#[derive(Serialize)]
struct ChangeJson {
    file: String,
    added: Vec<&'static str>,
    removed: Vec<&'static str>,
    backup: Option<String>,
}

pub(crate) fn run(cmd: &HooksCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let change = match cmd {
        HooksCommand::Install(args) => {
            let program = program()?;
            project.install_hooks(scope(args.scope), &program)
        }
        HooksCommand::Uninstall(args) => project.uninstall_hooks(scope(args.scope)),
    }
    .map_err(ops_error)?;
    report(&change, global.json)?;
    Ok(Outcome::Success)
}

fn scope(arg: ScopeArg) -> SettingsScope {
    match arg {
        ScopeArg::User => SettingsScope::User,
        ScopeArg::Project => SettingsScope::Project,
        ScopeArg::Local => SettingsScope::Local,
    }
}

/// This memdir's absolute path as a shell word: quoted when it has
/// spaces or other characters a shell would split on.
fn program() -> anyhow::Result<String> {
    let exe = std::env::current_exe()?;
    let exe = exe
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("this memdir's path {} is not UTF-8", exe.display()))?;
    Ok(shell_word(exe))
}

fn shell_word(path: &str) -> String {
    let plain = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@".contains(c));
    if plain {
        path.to_owned()
    } else if !path.contains('"')
        && !path.contains('$')
        && !path.contains('`')
        && !path.contains('\\')
    {
        format!("\"{path}\"")
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

fn names(events: &[memdir_ops::HookEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.name()).collect()
}

fn report(change: &HooksChange, json: bool) -> anyhow::Result<()> {
    let file = change.file.display().to_string();
    if json {
        return print_json(&ChangeJson {
            file,
            added: names(&change.added),
            removed: names(&change.removed),
            backup: change
                .backup
                .as_deref()
                .map(|p: &Path| p.display().to_string()),
        });
    }
    let mut text = String::new();
    if change.added.is_empty() && change.removed.is_empty() {
        let _ = writeln!(text, "{file}: unchanged");
    }
    if !change.added.is_empty() {
        let _ = writeln!(text, "{file}: added {}", names(&change.added).join(", "));
    }
    if !change.removed.is_empty() {
        let _ = writeln!(
            text,
            "{file}: removed {}",
            names(&change.removed).join(", ")
        );
    }
    if let Some(backup) = &change.backup {
        let _ = writeln!(text, "backup: {}", backup.display());
    }
    print(&text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn paths_are_quoted_when_a_shell_would_split_them() {
        assert_eq!(shell_word("/usr/bin/memdir"), "/usr/bin/memdir");
        assert_eq!(shell_word("/my tools/memdir"), "\"/my tools/memdir\"");
        assert_eq!(shell_word("/a$b/it's/memdir"), "'/a$b/it'\\''s/memdir'");
    }
}
