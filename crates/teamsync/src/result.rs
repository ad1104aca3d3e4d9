//! The result of a pull or a push, in the JSON shape of R8.6: a
//! `serde::Serialize` type, which callers serialise (`serde_json`).

use serde::{Deserialize, Serialize};

use crate::error::{ErrorType, SyncError};

/// A file that was not pushed because the secret scanner found something
/// in it. It names the rules and lines, never the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedSecret {
    /// The key (path relative to the team folder, with `/`).
    pub file: String,
    /// The gitleaks rule ids that matched, without repeats.
    pub rule_ids: Vec<String>,
    /// The 1-based lines of the findings, without repeats.
    pub lines: Vec<usize>,
}

/// A key or file that was left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedKey {
    /// The key as the server or the folder gave it.
    pub key: String,
    /// Why it was skipped.
    pub reason: String,
}

/// The outcome of a pull or a push (R8.6), with a few
/// fields of this project's own (files pulled, skipped keys, conflict
/// copies, an error message). Empty and absent fields are left out of the
/// JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncResult {
    /// Whether the operation completed.
    pub success: bool,
    /// How many entries the server accepted from this push.
    pub files_uploaded: usize,
    /// The repository checksum last seen on the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Set when a push gave up after repeated 412 answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<bool>,
    /// Files not pushed because of a secret-scanner finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_secrets: Vec<SkippedSecret>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<ErrorType>,
    /// A human-readable message for a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many files a pull wrote.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub files_pulled: usize,
    /// The keys a pull wrote, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pulled: Vec<String>,
    /// The keys a push uploaded, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uploaded: Vec<String>,
    /// Keys not written (pull) or files not sent (push) for reasons other
    /// than secrets: an invalid key, a file too large, unreadable text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedKey>,
    /// Copies of local edits saved under `.conflicts/` before a pull
    /// overwrote them, relative to the team folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflict_copies: Vec<String>,
    /// Pull: keys whose local edit was kept because the server still holds
    /// the version it was edited from; the next push sends them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_local: Vec<String>,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SyncResult {
    /// A failed result: the error's `errorType`, and its message with its
    /// causes.
    pub(crate) fn from_error(e: &SyncError) -> Self {
        let mut result = Self::default();
        result.fail(e);
        result
    }

    /// Marks the result failed by `e`, keeping what it already holds.
    pub(crate) fn fail(&mut self, e: &SyncError) {
        self.success = false;
        self.error_type = e.error_type();
        self.error = Some(e.describe());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let ok = SyncResult {
            success: true,
            files_uploaded: 2,
            checksum: Some("sha256:ab".into()),
            ..SyncResult::default()
        };
        assert_eq!(
            serde_json::to_string(&ok).unwrap(),
            r#"{"success":true,"filesUploaded":2,"checksum":"sha256:ab"}"#
        );
        let mut bad = SyncResult::from_error(&SyncError::NoToken);
        bad.skipped_secrets.push(SkippedSecret {
            file: "a.md".into(),
            rule_ids: vec!["github-pat".into()],
            lines: vec![3],
        });
        assert_eq!(
            serde_json::to_string(&bad).unwrap(),
            r#"{"success":false,"filesUploaded":0,"skippedSecrets":[{"file":"a.md","ruleIds":["github-pat"],"lines":[3]}],"errorType":"no_oauth","error":"no team sync token is configured"}"#
        );
        let back: SyncResult = serde_json::from_str(&serde_json::to_string(&bad).unwrap()).unwrap();
        assert_eq!(back, bad);
    }
}
