//! `memdir agent check-bash`: the read-only Bash policy of the extraction
//! agent (SPEC R12.4) for one command, without running it.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use memdir_bashpolicy::{Decision, Plan, Stderr, When, check};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Subcommand)]
pub(crate) enum AgentCommand {
    /// Decide whether the extraction agent may run a Bash command. Exit 0
    /// when allowed, 3 when denied; the command is never run. Allowed: only
    /// read-only programs (ls, cat, grep, find, git log, …), with options
    /// read as each program reads them (abbreviations included) and known
    /// to read only; no redirection; no expansion but globs, expanded
    /// inside the working folder when the command runs; nothing that
    /// writes, runs another program or opens a pager.
    #[command(after_help = "Examples:\n  \
        memdir agent check-bash -- ls -la src\n  \
        memdir agent check-bash 'grep -rn \"fn main\" src | head -5'\n  \
        memdir --json agent check-bash -- cat README.md '>' copy.md\n  \
        memdir agent check-bash 'wc -l *.md'\n\n\
        CMD is the command line as Bash would read it: several words after -- are joined with \
        spaces, or pass it as one quoted string. Options such as --json go before --.\n\n\
        JSON: {allowed, reason, plan?} — plan, for an allowed command, is what would run: \
        [{when: always|ifSucceeded|ifFailed, pipeline: [{argv, stderr: output|null|stdout, globs?: [{arg, pattern}]}]}]")]
    CheckBash(CheckBashArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CheckBashArgs {
    /// The command: one quoted string, or words after -- (joined with
    /// spaces).
    #[arg(value_name = "CMD", required = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

#[derive(Serialize)]
struct DecisionJson<'a> {
    allowed: bool,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<Vec<StepJson<'a>>>,
}

#[derive(Serialize)]
struct StepJson<'a> {
    when: &'static str,
    pipeline: Vec<StageJson<'a>>,
}

#[derive(Serialize)]
struct StageJson<'a> {
    argv: &'a [String],
    stderr: &'static str,
    /// The arguments that are glob patterns, expanded in the working
    /// folder when the command runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    globs: Vec<GlobJson<'a>>,
}

#[derive(Serialize)]
struct GlobJson<'a> {
    arg: usize,
    pattern: &'a str,
}

pub(crate) fn run(cmd: &AgentCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        AgentCommand::CheckBash(args) => check_bash(&args.command.join(" "), global.json),
    }
}

fn check_bash(command: &str, json: bool) -> anyhow::Result<Outcome> {
    let decision = check(command);
    if json {
        print_json(&DecisionJson {
            allowed: decision.is_allowed(),
            reason: decision.reason(),
            plan: decision.plan().map(plan_json),
        })?;
    } else {
        print(&text(&decision))?;
    }
    Ok(if decision.is_allowed() {
        Outcome::Success
    } else {
        Outcome::Rejected
    })
}

fn plan_json(plan: &Plan) -> Vec<StepJson<'_>> {
    plan.steps
        .iter()
        .map(|step| StepJson {
            when: match step.when {
                When::Always => "always",
                When::IfSucceeded => "ifSucceeded",
                When::IfFailed => "ifFailed",
            },
            pipeline: step
                .pipeline
                .iter()
                .map(|stage| StageJson {
                    argv: &stage.argv,
                    stderr: match stage.stderr {
                        Stderr::Output => "output",
                        Stderr::Null => "null",
                        Stderr::Stdout => "stdout",
                    },
                    globs: stage
                        .globs
                        .iter()
                        .map(|g| GlobJson {
                            arg: g.arg,
                            pattern: &g.pattern,
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

/// `allowed: …` and the plan as shell-quoted lines, or `denied: <reason>`.
fn text(decision: &Decision) -> String {
    let Some(plan) = decision.plan() else {
        return format!("denied: {}", decision.reason());
    };
    let mut out = format!("allowed: {}", decision.reason());
    for step in &plan.steps {
        let joiner = match step.when {
            When::Always => "",
            When::IfSucceeded => "&& ",
            When::IfFailed => "|| ",
        };
        let stages: Vec<String> = step
            .pipeline
            .iter()
            .map(|stage| {
                // A glob is shown as the pattern it is, which the run
                // expands; every other word quoted to mean itself.
                let mut words: Vec<String> = stage
                    .argv
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        stage
                            .globs
                            .iter()
                            .find(|g| g.arg == i)
                            .map_or_else(|| quote(a), |g| g.pattern.clone())
                    })
                    .collect();
                match stage.stderr {
                    Stderr::Output => {}
                    Stderr::Null => words.push("2>/dev/null".to_owned()),
                    Stderr::Stdout => words.push("2>&1".to_owned()),
                }
                words.join(" ")
            })
            .collect();
        let _ = write!(out, "\n  {joiner}{}", stages.join(" | "));
    }
    out
}

/// A word as Bash would need it written to mean itself.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+=:,./-^".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
