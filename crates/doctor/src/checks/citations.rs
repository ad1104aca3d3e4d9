//! `citation`: what a memory cites about its project (paths, backticked
//! identifiers and flags, see `memdir-citations`) that no longer holds.
//! A warning: the memory may still be right about the rest, and only a
//! person can tell what replaced the claim.

use std::path::PathBuf;
use std::time::Duration;

use memdir_citations::{Broken, Checker, Verdict, extract_citations};

use crate::{Check, Finding, FolderView, Severity};

/// The `citation` check, over one project root.
#[derive(Debug, Clone)]
pub struct CitationsCheck {
    root: PathBuf,
    budget: Duration,
}

impl CitationsCheck {
    /// Checks citations against the files under `root` (the checked memory
    /// folder itself never counts as the project), all memories together
    /// within `budget`; what is not settled by then is not reported.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>, budget: Duration) -> Self {
        CitationsCheck {
            root: root.into(),
            budget,
        }
    }
}

impl Check for CitationsCheck {
    fn name(&self) -> &'static str {
        "citation"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let Ok(checker) = Checker::new(&self.root) else {
            return Vec::new();
        };
        let checker = checker.exclude(&folder.root);
        let cited: Vec<_> = folder
            .memories
            .iter()
            .map(|m| extract_citations(&m.parsed.body))
            .collect();
        let all: Vec<_> = cited.iter().flatten().cloned().collect();
        let verdicts = checker.check(&all, self.budget);
        let mut findings = Vec::new();
        let mut offset = 0;
        for (memory, citations) in folder.memories.iter().zip(&cited) {
            let front_lines = memory.text.lines().count() - memory.parsed.body.lines().count();
            for checked in &verdicts[offset..offset + citations.len()] {
                let message = match checked.verdict {
                    Verdict::Broken(Broken::DoesNotExist) => {
                        format!(
                            "cites `{}`, which does not exist now",
                            checked.citation.text
                        )
                    }
                    Verdict::Broken(Broken::OccursNowhere) => {
                        format!("`{}` occurs nowhere in the project", checked.citation.text)
                    }
                    _ => continue,
                };
                findings.push(
                    Finding::new(self.name(), Severity::Warning, memory.rel.clone(), message)
                        .at_line(front_lines + checked.citation.line),
                );
            }
            offset += citations.len();
        }
        findings
    }
}
