//! `secret`: API keys, tokens and private keys in memories (SPEC R10),
//! found with the built-in gitleaks rules of `memdir-secrets`. An error in
//! the team folder (it is shared, and a push refuses it), a warning in the
//! private one. The secret itself is never shown.

use memdir_memtypes::Scope;
use memdir_secrets::Scanner;

use crate::{Check, Finding, FolderView, Severity};

/// The `secret` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SecretsCheck;

impl Check for SecretsCheck {
    fn name(&self) -> &'static str {
        "secret"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let scanner = Scanner::builtin();
        let mut findings = Vec::new();
        for memory in &folder.memories {
            let (severity, why) = match memory.scope {
                Scope::Team => (Severity::Error, "team memories are shared; take it out"),
                Scope::Private => (Severity::Warning, "keep secrets out of memory files"),
            };
            for found in scanner.scan(&memory.text) {
                findings.push(
                    Finding::new(
                        self.name(),
                        severity,
                        memory.rel.clone(),
                        format!(
                            "{} ({}): {why}",
                            found.label.trim_end_matches('.'),
                            found.rule_id
                        ),
                    )
                    .at_line(found.line),
                );
            }
        }
        findings
    }
}
