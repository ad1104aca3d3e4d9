//! `memdir index fix`: repair a memory folder after interrupted writes
//! (SPEC R18.3), through the folder's one write path.

use std::fmt::Write as _;
use std::path::Path;

use memdir_paths::Environment;
use serde::Serialize;

use crate::Outcome;
use crate::context::ops_error;
use crate::index::LintJson;
use crate::output::{print, print_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixJson<'a> {
    added: &'a [String],
    temp_files_removed: usize,
    superseded_lines_removed: &'a [String],
    remaining: Vec<LintJson<'a>>,
}

pub(crate) fn run(file: &Path, json: bool) -> anyhow::Result<Outcome> {
    let timeout = memdir_ops::lock_timeout(&Environment::from_process());
    let report = memdir_ops::fix_index(file, timeout).map_err(ops_error)?;
    if json {
        print_json(&FixJson {
            added: &report.added,
            temp_files_removed: report.temp_files_removed,
            superseded_lines_removed: &report.superseded_removed,
            remaining: report.remaining.iter().map(LintJson::from).collect(),
        })?;
    } else {
        let mut out = String::new();
        for file in &report.added {
            let _ = writeln!(out, "indexed {file}");
        }
        for file in &report.superseded_removed {
            let _ = writeln!(
                out,
                "removed the line of {file}, which another memory supersedes"
            );
        }
        if report.temp_files_removed > 0 {
            let _ = writeln!(
                out,
                "removed {} temporary file{} left by interrupted writes",
                report.temp_files_removed,
                if report.temp_files_removed == 1 {
                    ""
                } else {
                    "s"
                }
            );
        }
        for lint in &report.remaining {
            match lint.line {
                Some(line) => {
                    let _ = writeln!(out, "line {line}: {}: {}", lint.kind, lint.message);
                }
                None => {
                    let _ = writeln!(out, "{}: {}", lint.kind, lint.message);
                }
            }
        }
        if out.is_empty() {
            let _ = writeln!(out, "{} is in order; nothing to fix", file.display());
        }
        print(out.trim_end())?;
    }
    Ok(if report.remaining.is_empty() {
        Outcome::Success
    } else {
        Outcome::ProblemsFound
    })
}
