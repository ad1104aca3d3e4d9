//! `frontmatter`: memories without a type or with one that is not among
//! the four (SPEC R1.1), without a name or a description (R2.1), and
//! whatever else reading the frontmatter noticed (R2.2).

use memdir_memtypes::Diagnostic;

use crate::{Check, Finding, FolderView, Severity};

/// The `frontmatter` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrontmatterCheck;

impl Check for FrontmatterCheck {
    fn name(&self) -> &'static str {
        "frontmatter"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let mut findings = Vec::new();
        for memory in &folder.memories {
            let parsed = &memory.parsed;
            let mut say = |message: String| {
                findings.push(Finding::new(
                    self.name(),
                    Severity::Warning,
                    memory.rel.clone(),
                    message,
                ));
            };
            if !parsed.has_frontmatter {
                say("no frontmatter: add name, description and type".to_owned());
                continue;
            }
            let mistyped = parsed
                .diagnostics
                .iter()
                .any(|d| matches!(d, Diagnostic::UnknownType { .. }));
            for d in &parsed.diagnostics {
                say(d.to_string());
            }
            if parsed.header.memory_type.is_none() && !mistyped {
                say("no type: add `type:` (user, feedback, project or reference)".to_owned());
            }
            if parsed
                .header
                .name
                .as_deref()
                .is_none_or(|n| n.trim().is_empty())
            {
                say("no name: add `name:`".to_owned());
            }
            if parsed
                .header
                .description
                .as_deref()
                .is_none_or(|d| d.trim().is_empty())
            {
                say("no description: add a one-line `description:`; recall reads it".to_owned());
            }
        }
        findings
    }
}
