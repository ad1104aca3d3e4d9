//! `memdir index fix`: repair a memory folder after interrupted writes
//! (SPEC R18.3), through the folder's one write path.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::bail;
use memdir_entrypoint::ENTRYPOINT_NAME;
use memdir_folder::MemoryFolder;
use serde::Serialize;

use crate::Outcome;
use crate::context::{folder_error, lock_timeout};
use crate::index::LintJson;
use crate::output::{print, print_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixJson<'a> {
    added: &'a [String],
    temp_files_removed: usize,
    remaining: Vec<LintJson<'a>>,
}

pub(crate) fn run(file: &Path, json: bool) -> anyhow::Result<Outcome> {
    if file.file_name().is_none_or(|n| n != ENTRYPOINT_NAME) {
        bail!(
            "{} is not a MEMORY.md; give the index of the memory folder to repair",
            file.display()
        );
    }
    let folder_path = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = MemoryFolder::open(folder_path).map_err(folder_error)?;
    let report = folder
        .lock(lock_timeout())
        .and_then(|lock| lock.fix_index())
        .map_err(folder_error)?;
    if json {
        print_json(&FixJson {
            added: &report.added,
            temp_files_removed: report.temp_files_removed,
            remaining: report.remaining.iter().map(LintJson::from).collect(),
        })?;
    } else {
        let mut out = String::new();
        for file in &report.added {
            let _ = writeln!(out, "indexed {file}");
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
