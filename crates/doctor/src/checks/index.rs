//! `index`: the lint of MEMORY.md and of `team/MEMORY.md` (SPEC R3.5), as
//! `memdir index check` reports it: long lines, links to missing files,
//! memories no line links to, duplicate links, links out of the folder,
//! frontmatter in the index, bytes that are not UTF-8.

use memdir_entrypoint::{FolderListing, LintKind, decode_index, lint_index};

use crate::{Check, Finding, Fix, FolderView, Severity};

/// The `index` check; an unindexed memory's finding carries the
/// [`Fix::IndexLine`] repair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexCheck;

impl Check for IndexCheck {
    fn name(&self) -> &'static str {
        "index"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let mut findings = Vec::new();
        for index in &folder.indexes {
            let listing = match FolderListing::read(&index.dir) {
                Ok(listing) => listing,
                Err(e) => {
                    findings.push(Finding::new(
                        self.name(),
                        Severity::Warning,
                        index.rel.clone(),
                        format!("cannot list the folder: {e}"),
                    ));
                    continue;
                }
            };
            let has_memories = listing.memory_files().next().is_some();
            if !index.exists && !has_memories {
                continue;
            }
            let (text, utf8) = decode_index(&index.bytes);
            for lint in utf8.into_iter().chain(lint_index(&text, Some(&listing))) {
                let mut finding = Finding::new(
                    self.name(),
                    Severity::Warning,
                    index.rel.clone(),
                    lint.message,
                );
                if let Some(line) = lint.line {
                    finding = finding.at_line(line);
                }
                if lint.kind == LintKind::UnlinkedFile {
                    finding = finding.with_fix(Fix::IndexLine);
                }
                findings.push(finding);
            }
        }
        findings
    }
}
