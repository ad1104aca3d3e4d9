//! `relative-date`: dates relative to when the memory was written (SPEC
//! R2.3), which mean nothing a week later. See the `dates` module for
//! what counts.

use crate::dates::{find, reference_date};
use crate::text::{body_first_line, line_of};
use crate::{Check, Finding, Fix, FolderView, Severity};

/// The `relative-date` check; a finding carries its repair when the
/// memory's `modified` time decides the date.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelativeDates;

impl Check for RelativeDates {
    fn name(&self) -> &'static str {
        "relative-date"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let mut findings = Vec::new();
        for memory in &folder.memories {
            let body = &memory.parsed.body;
            let first = body_first_line(&memory.text, body);
            let reference = reference_date(memory.parsed.modified);
            for found in find(body) {
                let from = &body[found.start..found.end];
                let line = first + line_of(body, found.start) - 1;
                let finding = match found.replacement(reference) {
                    Some(to) => Finding::new(
                        self.name(),
                        Severity::Warning,
                        memory.rel.clone(),
                        format!("relative date {from:?}: write {to:?} (from `modified`)"),
                    )
                    .with_fix(Fix::AbsoluteDate {
                        from: from.to_owned(),
                        to,
                    }),
                    None => Finding::new(
                        self.name(),
                        Severity::Warning,
                        memory.rel.clone(),
                        format!("relative date {from:?}: write the absolute date"),
                    ),
                };
                findings.push(finding.at_line(line));
            }
        }
        findings
    }
}
