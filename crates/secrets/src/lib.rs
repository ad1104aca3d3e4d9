//! A secret scanner with gitleaks' rules and matching semantics: the guard
//! that keeps credentials out of shared team memory (SPEC R10).
//!
//! - [`scan_for_secrets`] — every finding of the built-in rules in a text,
//!   as [`SecretMatch`]es with the byte span of the secret, its rule and its
//!   line. The secret itself is never stored in a finding.
//! - [`redact_secrets`] — the text with every finding replaced by
//!   `[REDACTED:<rule-id>]`, repeated until the result scans clean
//!   ([`Scanner::redaction`] also says which spans it replaced).
//! - [`Scanner`] — the same with other rules: [`Scanner::from_toml`] reads
//!   a gitleaks configuration file (a team's own rules and allowlists;
//!   `[extend] useDefault = true` adds them to the built-in ones).
//! - [`Scanner::scan_content`] — bytes of any kind, as a file holds them:
//!   the [`ContentKind`] (UTF-8, UTF-16, single-byte text or binary)
//!   decides the [`Reading`]s scanned (UTF-16 and Windows-1252 decoded,
//!   the printable runs of binary data in 8-bit and UTF-16 code units, as
//!   `strings` shows them), and a [`ContentScan`] says which found each
//!   [`ContentMatch`] and whether the bytes are [`Compressed`], which no
//!   reading sees into.
//!
//! Matching follows gitleaks v8: a case-insensitive keyword prefilter
//! (Aho-Corasick) decides which rules run; each rule's RE2-dialect regex
//! runs over bytes with ASCII classes; the secret is the first non-empty
//! capture group (or `secretGroup`); its Shannon entropy must be strictly
//! above the rule's threshold; the global and then the rule's allowlists
//! (`regexes` against the secret, match or line, `stopwords`, `paths`,
//! with OR or AND) can let it go; a line holding `gitleaks:allow` is
//! skipped; overlapping rules both report; an empty secret is no finding. Rules compile once, lazily.
//!
//! This crate knows nothing of files: callers pass text or bytes (and, for
//! allowlists by path, a path).
//!
//! ```
//! use memdir_secrets::{redact_secrets, scan_for_secrets};
//!
//! let text = "GITHUB_TOKEN=ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS\n";
//! let found = scan_for_secrets(text);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].rule_id, "github-pat");
//! assert_eq!(found[0].line, 1);
//! assert_eq!(redact_secrets(text), "GITHUB_TOKEN=[REDACTED:github-pat]\n");
//! assert!(scan_for_secrets("no secrets here").is_empty());
//!
//! // The same token in a file saved as UTF-16 by a Windows editor.
//! use memdir_secrets::{ContentKind, Reading, Scanner};
//! let utf16: Vec<u8> = [0xFF, 0xFE]
//!     .into_iter()
//!     .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
//!     .collect();
//! let scan = Scanner::builtin().scan_content(&utf16, None);
//! assert_eq!(scan.kind, ContentKind::Utf16Le);
//! assert_eq!(scan.findings[0].rule_id, "github-pat");
//! assert_eq!(scan.findings[0].reading, Reading::Utf16Le);
//! assert_eq!((scan.findings[0].start, scan.findings[0].end), (28, 108));
//! ```

mod config;
mod content;
mod decode;
mod keywords;
mod packed;
mod pattern;
mod reach;
mod redact;
mod rules;
mod scan;

use std::sync::OnceLock;

use config::ConfigFile;
use rules::RuleSet;

pub use content::{ContentKind, ContentMatch, ContentScan, MIN_PRINTABLE_RUN, Reading};
pub use packed::Compressed;
pub use redact::{RedactedSpan, Redaction};

/// The built-in rules, in gitleaks' configuration format.
pub const DEFAULT_RULES: &str = include_str!("../rules/default.toml");

/// A secret found in a text. It holds where the secret is, never the
/// secret: slice the scanned text with `start..end` to get it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SecretMatch {
    /// The rule that found it (a gitleaks rule id, kebab-case).
    pub rule_id: String,
    /// What the rule detects, in words.
    pub label: String,
    /// Byte offset where the secret starts.
    pub start: usize,
    /// Byte offset just past the secret.
    pub end: usize,
    /// 1-based line on which the secret starts.
    pub line: usize,
}

/// A rule's identity, for listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    /// The rule id.
    pub id: String,
    /// What it detects.
    pub description: String,
    /// Its keywords (lower-cased); a rule with none runs on every text.
    pub keywords: Vec<String>,
}

/// Errors reading a rule configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretsError {
    /// The configuration is not valid TOML or not a gitleaks configuration.
    #[error("invalid secret-scanning config: {0}")]
    Config(String),
    /// A regex in the configuration does not compile.
    #[error("invalid regex in {what}: {message}")]
    Regex {
        /// Where the regex is (the rule or allowlist).
        what: String,
        /// The compiler's message.
        message: String,
    },
}

/// A compiled set of rules.
#[derive(Debug, Clone)]
pub struct Scanner {
    rules: RuleSet,
}

impl Scanner {
    /// The built-in rules, compiled on first use and shared.
    ///
    /// # Panics
    ///
    /// Never in practice: the built-in rules are tested to compile.
    #[must_use]
    pub fn builtin() -> &'static Scanner {
        static BUILTIN: OnceLock<Scanner> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            Scanner::parse(DEFAULT_RULES, false).expect("the built-in rules compile (tested)")
        })
    }

    /// Rules from a gitleaks configuration file's text. With
    /// `[extend] useDefault = true` the file's rules and allowlists are
    /// added to the built-in ones (a rule with a built-in rule's id replaces
    /// it; `disabledRules` removes built-in rules).
    pub fn from_toml(text: &str) -> Result<Scanner, SecretsError> {
        Scanner::parse(text, true)
    }

    fn parse(text: &str, may_extend: bool) -> Result<Scanner, SecretsError> {
        let mut config: ConfigFile =
            toml::from_str(text).map_err(|e| SecretsError::Config(e.message().to_owned()))?;
        let extend = config.extend.take().filter(|e| may_extend && e.use_default);
        if let Some(extend) = extend {
            let mut base: ConfigFile = toml::from_str(DEFAULT_RULES)
                .map_err(|e| SecretsError::Config(format!("built-in rules: {}", e.message())))?;
            base.rules.retain(|r| {
                !extend.disabled_rules.contains(&r.id) && !config.rules.iter().any(|u| u.id == r.id)
            });
            base.rules.append(&mut config.rules);
            base.allowlists.extend(config.allowlist.take());
            base.allowlists.append(&mut config.allowlists);
            config = base;
        }
        Ok(Scanner {
            rules: RuleSet::compile(&config)?,
        })
    }

    /// Every finding in `text`.
    #[must_use]
    pub fn scan(&self, text: &str) -> Vec<SecretMatch> {
        self.scan_bytes(text.as_bytes(), None)
    }

    /// Every finding in `text`, which may be any bytes, read as they are
    /// (gitleaks' semantics: the rules match ASCII); `path` (when known)
    /// is what allowlists by path are tested against. To read bytes the
    /// way a file may be written (UTF-16, Latin-1, binary data), use
    /// [`Scanner::scan_content`].
    #[must_use]
    pub fn scan_bytes(&self, text: &[u8], path: Option<&str>) -> Vec<SecretMatch> {
        scan::scan(&self.rules, text, path)
    }

    /// Every finding in `bytes` however they are written: their
    /// [`ContentKind`] decides the [`Reading`]s scanned, and each finding
    /// says which reading found it, at offsets of `bytes`. `path` is as
    /// for [`Scanner::scan_bytes`]; a caller deciding what leaves the
    /// machine passes `None`, so that no file name exempts it.
    ///
    /// For UTF-8 text without a NUL byte this is [`Scanner::scan_bytes`]
    /// (one reading); other text costs one more reading, binary data three
    /// more (of which the two UTF-16 ones see little of most files).
    #[must_use]
    pub fn scan_content(&self, bytes: &[u8], path: Option<&str>) -> ContentScan {
        content::scan_content(self, bytes, path)
    }

    /// `text` with every secret replaced by `[REDACTED:<rule-id>]`: each
    /// maximal run of redacted text by one marker, named by the rule of the
    /// finding that starts it. The result scans clean: redaction repeats
    /// until it does (see [`Scanner::redaction`]).
    #[must_use]
    pub fn redact(&self, text: &str) -> String {
        self.redaction(text).text
    }

    /// The redacted text and the spans of `text` it replaced.
    ///
    /// Replacing a secret can bring another to light (a rule's matches do
    /// not overlap, and a marker changes the context of the text beside
    /// it), so this scans the result again and redacts what that finds,
    /// until a scan finds nothing. Text that no finding of any round
    /// covers is kept byte for byte.
    #[must_use]
    pub fn redaction(&self, text: &str) -> Redaction {
        redact::redaction(self, text)
    }

    /// The rules, in configuration order.
    #[must_use]
    pub fn rules(&self) -> Vec<RuleInfo> {
        self.rules
            .rules
            .iter()
            .map(|r| RuleInfo {
                id: r.id.clone(),
                description: r.description.clone(),
                keywords: r.keywords.clone(),
            })
            .collect()
    }
}

/// Every finding of the built-in rules in `content`.
#[must_use]
pub fn scan_for_secrets(content: &str) -> Vec<SecretMatch> {
    Scanner::builtin().scan(content)
}

/// Every finding of the built-in rules in `bytes`, read every way a secret
/// can hide in them ([`Scanner::scan_content`]: as UTF-8, decoded from
/// UTF-16 or Latin-1, and the printable runs of data that is not text).
/// For text that is about to leave the machine: a file that is valid
/// UTF-8 can still be UTF-16 text, NUL bytes and all, that a scan of the
/// text as written misses.
#[must_use]
pub fn scan_for_secrets_in_bytes(bytes: &[u8]) -> Vec<ContentMatch> {
    Scanner::builtin().scan_content(bytes, None).findings
}

/// `content` with every finding of the built-in rules redacted.
#[must_use]
pub fn redact_secrets(content: &str) -> String {
    Scanner::builtin().redact(content)
}
