//! The doctor use case: every check of `memdir-doctor` over a memory
//! folder and its `team/` subfolder, and with `fix` the safe repairs,
//! written through the folders' locks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use memdir_doctor::{Doctor, Finding, Fix, MAX_MEMORY_BYTES, fix_relative_dates};
use memdir_folder::MemoryFolder;

use crate::OpsError;

/// How long `doctor` may search the project for what memories cite: a
/// report a person asked for, so far longer than recall's budget.
pub const DOCTOR_CITATIONS_BUDGET: Duration = Duration::from_secs(10);

/// The team subfolder, which has its own lock and index.
const TEAM_DIR: &str = "team";

/// One repair `doctor` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorFixed {
    /// The file changed, relative to the checked folder.
    pub file: String,
    /// What changed, in one line.
    pub change: String,
}

/// What [`doctor`] found and, with `fix`, repaired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DoctorReport {
    /// What the checks find (after the repairs, when `fix` was asked).
    pub findings: Vec<Finding>,
    /// The repairs made, in order.
    pub fixed: Vec<DoctorFixed>,
}

/// Runs every doctor check over the memory folder `folder` (and its
/// `team/` subfolder). With `fix`, first makes the repairs that are safe
/// without asking, each under the lock of the folder it writes: index
/// lines for unindexed memories (as `memdir index fix` gives them), and
/// relative dates made absolute where the memory's `modified` time
/// decides the date. Never deletes a memory; never changes a frontmatter.
///
/// With `project_root`, what the memories cite about the project (paths,
/// identifiers, flags) is checked against it too, within
/// [`DOCTOR_CITATIONS_BUDGET`].
pub fn doctor(
    folder: &Path,
    project_root: Option<&Path>,
    fix: bool,
    lock_timeout: Duration,
) -> Result<DoctorReport, OpsError> {
    let mut checks = Doctor::builtin();
    if let Some(root) = project_root {
        checks = checks.with_check(Box::new(memdir_doctor::CitationsCheck::new(
            root,
            DOCTOR_CITATIONS_BUDGET,
        )));
    }
    let mut findings = checks.run(folder)?;
    let mut fixed = Vec::new();
    if fix && findings.iter().any(|f| f.fix.is_some()) {
        fix_indexes(folder, &findings, lock_timeout, &mut fixed)?;
        fix_dates(folder, &findings, lock_timeout, &mut fixed)?;
        findings = checks.run(folder)?;
    }
    Ok(DoctorReport { findings, fixed })
}

/// The folder a file relative to the checked folder belongs to, and the
/// file's path relative to that folder.
fn owner(root: &Path, rel: &str) -> (PathBuf, String, &'static str) {
    match rel.strip_prefix("team/") {
        Some(inner) => (root.join(TEAM_DIR), inner.to_owned(), "team/"),
        None => (root.to_owned(), rel.to_owned(), ""),
    }
}

fn fix_indexes(
    root: &Path,
    findings: &[Finding],
    timeout: Duration,
    fixed: &mut Vec<DoctorFixed>,
) -> Result<(), OpsError> {
    let mut indexes: Vec<&str> = findings
        .iter()
        .filter(|f| f.fix == Some(Fix::IndexLine))
        .map(|f| f.file.as_str())
        .collect();
    indexes.dedup();
    for index in indexes {
        let (dir, _, prefix) = owner(root, index);
        let folder = MemoryFolder::open(&dir)?;
        let report = folder.lock(timeout)?.fix_index()?;
        for file in report.added {
            fixed.push(DoctorFixed {
                file: index.to_owned(),
                change: format!("added the index line of {prefix}{file}"),
            });
        }
    }
    Ok(())
}

fn fix_dates(
    root: &Path,
    findings: &[Finding],
    timeout: Duration,
    fixed: &mut Vec<DoctorFixed>,
) -> Result<(), OpsError> {
    let mut by_folder: BTreeMap<PathBuf, Vec<(String, &str)>> = BTreeMap::new();
    for f in findings {
        if matches!(f.fix, Some(Fix::AbsoluteDate { .. })) {
            let (dir, rel, _) = owner(root, &f.file);
            let files = by_folder.entry(dir).or_default();
            if !files.iter().any(|(r, _)| *r == rel) {
                files.push((rel, f.file.as_str()));
            }
        }
    }
    for (dir, files) in by_folder {
        let folder = MemoryFolder::open(&dir)?;
        let lock = folder.lock(timeout)?;
        for (rel, shown) in files {
            // Read again under the lock: what is repaired is what is there.
            let Some(bytes) = lock.folder().read(&rel, MAX_MEMORY_BYTES)? else {
                continue;
            };
            let Ok(text) = String::from_utf8(bytes) else {
                log::debug!("doctor: {shown} is not UTF-8; its dates are left alone");
                continue;
            };
            let Some(fix) = fix_relative_dates(&text) else {
                continue;
            };
            lock.write(&rel, fix.text.as_bytes())?;
            for change in fix.changes {
                fixed.push(DoctorFixed {
                    file: shown.to_owned(),
                    change: format!("line {}: {:?} -> {:?}", change.line, change.from, change.to),
                });
            }
        }
    }
    Ok(())
}
