//! The labelled set of the `not-to-save` check: the memories of
//! `fixtures/doctor/not-to-save/` and those of `fixtures/doctor/memory/`,
//! each with the check's verdict. Shared by the tests and the
//! `doctor_eval` example (which includes this file by path).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use memdir_doctor::{Doctor, NotToSave};

/// `fixtures/doctor/`.
pub(crate) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/doctor")
}

/// One labelled memory and what the check said of it.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// The file, relative to its folder.
    pub(crate) file: String,
    /// What R1.3 says it is (`code`, `debugging`, …), or `keep`.
    pub(crate) kind: String,
    /// `fixture` (the doctor's labelled folder), `tuning` or `fresh`.
    pub(crate) set: String,
    /// Whether the check reported it.
    pub(crate) flagged: bool,
}

impl Case {
    /// Whether the check should report it.
    pub(crate) fn wanted(&self) -> bool {
        self.kind != "keep"
    }
}

#[derive(serde::Deserialize)]
struct SetLabels {
    files: BTreeMap<String, SetLabel>,
}

#[derive(serde::Deserialize)]
struct SetLabel {
    kind: String,
    set: String,
}

#[derive(serde::Deserialize)]
struct FixtureLabels {
    files: BTreeMap<String, Vec<String>>,
}

fn read_toml<T: serde::de::DeserializeOwned>(path: &std::path::Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The files of `folder` on which the `not-to-save` check fires.
fn flagged_in(folder: &std::path::Path) -> Result<Vec<String>, String> {
    let doctor = Doctor::empty().with_check(Box::new(NotToSave));
    let findings = doctor.run(folder).map_err(|e| e.to_string())?;
    Ok(findings.into_iter().map(|f| f.file).collect())
}

/// Every labelled memory of both folders, with the check's verdict; an
/// error when a label names no file or a file has no label.
pub(crate) fn cases() -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let set_dir = fixtures().join("not-to-save");
    let labels: SetLabels = read_toml(&set_dir.join("labels.toml"))?;
    let flagged = flagged_in(&set_dir.join("memory"))?;
    let mut on_disk: Vec<String> = std::fs::read_dir(set_dir.join("memory"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            std::path::Path::new(n)
                .extension()
                .is_some_and(|e| e == "md")
                && n != "MEMORY.md"
        })
        .collect();
    on_disk.sort();
    let labelled: Vec<String> = labels.files.keys().cloned().collect();
    if on_disk != labelled {
        return Err(format!(
            "labels and files differ: unlabelled {:?}, missing {:?}",
            on_disk
                .iter()
                .filter(|f| !labelled.contains(f))
                .collect::<Vec<_>>(),
            labelled
                .iter()
                .filter(|f| !on_disk.contains(f))
                .collect::<Vec<_>>()
        ));
    }
    for (file, label) in labels.files {
        if !["tuning", "fresh"].contains(&label.set.as_str()) {
            return Err(format!("{file}: unknown set {}", label.set));
        }
        cases.push(Case {
            flagged: flagged.contains(&file),
            file,
            kind: label.kind,
            set: label.set,
        });
    }
    let fixture: FixtureLabels = read_toml(&fixtures().join("labels.toml"))?;
    let flagged = flagged_in(&fixtures().join("memory"))?;
    for (file, checks) in fixture.files {
        if file.ends_with("MEMORY.md") {
            continue;
        }
        let kind = if checks.iter().any(|c| c == "not-to-save") {
            "labelled"
        } else {
            "keep"
        };
        cases.push(Case {
            flagged: flagged.contains(&file),
            file,
            kind: kind.to_owned(),
            set: "fixture".to_owned(),
        });
    }
    Ok(cases)
}

/// True and false positives and negatives.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Score {
    pub(crate) tp: usize,
    pub(crate) fp: usize,
    pub(crate) fn_: usize,
}

impl Score {
    /// The score of `cases`.
    pub(crate) fn of<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Self {
        let mut score = Score::default();
        for case in cases {
            score.add(case.wanted(), case.flagged);
        }
        score
    }

    /// Counts one verdict.
    pub(crate) fn add(&mut self, want: bool, got: bool) {
        match (want, got) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => {}
        }
    }

    #[allow(clippy::cast_precision_loss, reason = "counts are small")]
    fn ratio(n: usize, d: usize) -> f64 {
        if d == 0 { 1.0 } else { n as f64 / d as f64 }
    }

    /// Of the reported, the share that should be.
    pub(crate) fn precision(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fp)
    }

    /// Of those that should be reported, the share that is.
    pub(crate) fn recall(&self) -> f64 {
        Self::ratio(self.tp, self.tp + self.fn_)
    }
}

/// The table of precision and recall per set, then recall per kind, then
/// every wrong verdict.
pub(crate) fn table(cases: &[Case]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<12} {:>5} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "set", "files", "tp", "fp", "fn", "precision", "recall"
    );
    for set in ["fixture", "tuning", "fresh", "all"] {
        let of: Vec<&Case> = cases
            .iter()
            .filter(|c| set == "all" || c.set == set)
            .collect();
        let s = Score::of(of.iter().copied());
        let _ = writeln!(
            out,
            "{set:<12} {:>5} {:>4} {:>4} {:>4} {:>9.2} {:>7.2}",
            of.len(),
            s.tp,
            s.fp,
            s.fn_,
            s.precision(),
            s.recall()
        );
    }
    let mut kinds: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in cases {
        let entry = kinds.entry(c.kind.as_str()).or_default();
        entry.0 += usize::from(c.flagged);
        entry.1 += 1;
    }
    let _ = writeln!(out, "\nflagged per kind:");
    for (kind, (flagged, all)) in kinds {
        let _ = writeln!(out, "  {kind:<13} {flagged}/{all}");
    }
    for c in cases.iter().filter(|c| c.wanted() != c.flagged) {
        let what = if c.flagged { "false alarm" } else { "missed" };
        let _ = writeln!(out, "  {what}: {} {} ({})", c.set, c.file, c.kind);
    }
    out
}
