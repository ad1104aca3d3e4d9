//! `secret`: API keys, tokens and private keys in memories and in their
//! indexes (SPEC R10), found with the built-in gitleaks rules of
//! `memdir-secrets`. The secret itself is never shown; a finding names the
//! file, the line and the rule.
//!
//! How much it matters follows where the text goes:
//!
//! - a team memory: an error (it is shared, and a push refuses it);
//! - a private memory: a warning (it stays on the machine, and is read
//!   only when recalled);
//! - either index, `MEMORY.md` or `team/MEMORY.md`: an error. An index is
//!   loaded whole into every conversation (R3), so a secret in a title or
//!   a link is sent with every prompt; the team's index is shared as well.

use memdir_memtypes::Scope;
use memdir_secrets::{Scanner, SecretMatch};

use crate::{Check, Finding, FolderView, Severity};

/// The `secret` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SecretsCheck;

impl SecretsCheck {
    fn finding(self, file: &str, severity: Severity, found: &SecretMatch, why: &str) -> Finding {
        Finding::new(
            self.name(),
            severity,
            file,
            format!(
                "{} ({}): {why}",
                found.label.trim_end_matches('.'),
                found.rule_id
            ),
        )
        .at_line(found.line)
    }
}

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
                findings.push(self.finding(&memory.rel, severity, &found, why));
            }
        }
        for index in folder.indexes.iter().filter(|i| i.exists) {
            let why = if index.rel.starts_with("team/") {
                "the team index is shared and goes into every prompt; take it out of the line"
            } else {
                "the index goes into every prompt; take it out of the line"
            };
            // The whole text, so that a key spread over lines is found
            // too; each finding carries the line it starts on.
            for found in scanner.scan(&index.text()) {
                findings.push(self.finding(&index.rel, Severity::Error, &found, why));
            }
        }
        findings
    }
}
