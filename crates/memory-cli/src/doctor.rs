//! `memdir doctor`: every check over the project's memory folder (and its
//! `team/` subfolder), and with `--fix` the safe repairs.

use std::fmt::Write as _;

use clap::Args;
use memdir_ops::{DoctorFinding, DoctorReport, Scope, Severity};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, ops_error};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "\
Checks: near-duplicate (one topic written twice), relative-date (\"tomorrow\", 明天, 明日, 내일, \
\"next week\", … that mean nothing later), not-to-save (code, file lists, git history, debugging \
recipes, ephemeral task details), secret (an error in team/ and in either MEMORY.md, a warning in \
private memories), frontmatter (no type, an unknown type, no name or description) and index (the \
MEMORY.md lint).

--fix makes only the safe repairs, and prints each: index lines for unindexed memories, and \
relative dates made absolute where the memory's `modified` time decides the date (\"tomorrow\" \
written 2026-03-04 becomes 2026-03-05). It never deletes a memory or changes a frontmatter.

Exit status: 0 when nothing is found (after the repairs), 1 when an error or a warning remains.

Examples:
  memdir doctor
  memdir doctor --fix
  memdir --memory-dir fixtures/doctor/memory doctor --json

JSON: {findings:[{check, severity, file, line?, message}], fixed:[{file, change}]}")]
pub(crate) struct DoctorArgs {
    /// Make the safe repairs, each printed, before reporting what remains.
    #[arg(long)]
    fix: bool,
}

#[derive(Serialize)]
struct FindingJson<'a> {
    check: &'a str,
    severity: &'a str,
    file: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    message: &'a str,
}

#[derive(Serialize)]
struct FixedJson<'a> {
    file: &'a str,
    change: &'a str,
}

#[derive(Serialize)]
struct DoctorJson<'a> {
    findings: Vec<FindingJson<'a>>,
    fixed: Vec<FixedJson<'a>>,
}

pub(crate) fn run(args: &DoctorArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let folder = project.folder(Scope::Private).map_err(ops_error)?;
    let root = project.resolution().project.work_tree.clone();
    let report = memdir_ops::doctor(
        folder.as_std_path(),
        Some(root.as_std_path()),
        args.fix,
        project.lock_timeout(),
    )
    .map_err(ops_error)?;
    if global.json {
        print_json(&DoctorJson {
            findings: report.findings.iter().map(finding_json).collect(),
            fixed: report
                .fixed
                .iter()
                .map(|f| FixedJson {
                    file: &f.file,
                    change: &f.change,
                })
                .collect(),
        })?;
    } else {
        print(&text(&report, folder.as_str()))?;
    }
    Ok(if report.findings.is_empty() {
        Outcome::Success
    } else {
        Outcome::ProblemsFound
    })
}

fn finding_json(f: &DoctorFinding) -> FindingJson<'_> {
    FindingJson {
        check: f.check,
        severity: f.severity.as_str(),
        file: &f.file,
        line: f.line,
        message: &f.message,
    }
}

/// Findings grouped by file, then the repairs, then one summary line.
fn text(report: &DoctorReport, folder: &str) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for f in &report.findings {
        if current != Some(f.file.as_str()) {
            let _ = writeln!(out, "{}", f.file);
            current = Some(&f.file);
        }
        let at = f.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        let _ = writeln!(out, "  {} {}{}: {}", f.severity, at, f.check, f.message);
    }
    for f in &report.fixed {
        let _ = writeln!(out, "fixed {}: {}", f.file, f.change);
    }
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = report.findings.len() - errors;
    let mut files: Vec<&str> = report.findings.iter().map(|f| f.file.as_str()).collect();
    files.dedup();
    if report.findings.is_empty() {
        let _ = write!(out, "{folder}: no problems found");
    } else {
        let _ = write!(
            out,
            "{} error{}, {} warning{} in {} file{}",
            errors,
            plural(errors),
            warnings,
            plural(warnings),
            files.len(),
            plural(files.len())
        );
    }
    if !report.fixed.is_empty() {
        let _ = write!(
            out,
            "; {} repair{} made",
            report.fixed.len(),
            plural(report.fixed.len())
        );
    }
    out.push('\n');
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
