//! The subscription recorded beside the agent's tokens, read without ever
//! holding a token.

use std::fmt;
use std::path::Path;

use memdir_memtypes::read_regular_file;
use serde::Deserialize;

/// At most this many bytes of the credentials file are read.
const MAX_CREDENTIALS_BYTES: u64 = 1024 * 1024;

/// The plan a migration may depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscription {
    /// `subscriptionType: "pro"`.
    Pro,
    /// `subscriptionType: "max"`.
    Max,
    /// `subscriptionType: "team"` with a `…max…` `rateLimitTier`.
    TeamPremium,
    /// `subscriptionType: "team"` on another tier.
    Team,
    /// `subscriptionType: "enterprise"`.
    Enterprise,
    /// Another value, kept as written.
    Other(String),
    /// No credentials file, or one without a subscription (an API-key
    /// user, or tokens kept in the system keychain).
    Unknown,
}

impl Subscription {
    /// Reads `claudeAiOauth.subscriptionType` and `rateLimitTier` from the
    /// credentials file at `path`. Only those two fields are ever
    /// deserialised: the tokens beside them are skipped by the parser and
    /// never held, so neither an error nor a `Debug` can show one.
    ///
    /// A missing file is [`Subscription::Unknown`]; a file that cannot be
    /// read or is not a JSON object of the expected shape is an error whose
    /// text names the file and the problem, never its content.
    pub(crate) fn read(path: &Path) -> Result<Subscription, String> {
        let bytes = match read_regular_file(path, MAX_CREDENTIALS_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.is_not_found() => return Ok(Subscription::Unknown),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        Subscription::parse(&bytes).map_err(|what| format!("{} {what}", path.display()))
    }

    /// The subscription in a credentials file's text; the error says what
    /// is wrong with its shape (never a value).
    pub(crate) fn parse(bytes: &[u8]) -> Result<Subscription, &'static str> {
        #[derive(Deserialize)]
        struct File {
            #[serde(rename = "claudeAiOauth")]
            oauth: Option<Oauth>,
        }
        #[derive(Deserialize)]
        struct Oauth {
            #[serde(rename = "subscriptionType")]
            subscription_type: Option<String>,
            #[serde(rename = "rateLimitTier")]
            rate_limit_tier: Option<String>,
        }
        let file: File = serde_json::from_slice(bytes)
            .map_err(|_| "is not a JSON object whose claudeAiOauth fields are strings")?;
        let Some(oauth) = file.oauth else {
            return Ok(Subscription::Unknown);
        };
        let tier = oauth.rate_limit_tier.unwrap_or_default();
        Ok(match oauth.subscription_type.as_deref() {
            None => Subscription::Unknown,
            Some("pro") => Subscription::Pro,
            Some("max") => Subscription::Max,
            Some("team") if tier.contains("max") => Subscription::TeamPremium,
            Some("team") => Subscription::Team,
            Some("enterprise") => Subscription::Enterprise,
            Some(other) => Subscription::Other(other.to_owned()),
        })
    }
}

impl fmt::Display for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subscription::Pro => f.write_str("Pro"),
            Subscription::Max => f.write_str("Max"),
            Subscription::TeamPremium => f.write_str("Team Premium"),
            Subscription::Team => f.write_str("Team"),
            Subscription::Enterprise => f.write_str("Enterprise"),
            Subscription::Other(other) => write!(f, "{other:?}"),
            Subscription::Unknown => f.write_str("unknown"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Subscription, &'static str> {
        Subscription::parse(text.as_bytes())
    }

    #[test]
    fn plans_and_tiers() {
        let with = |kind: &str, tier: &str| {
            parse(&format!(
                r#"{{"claudeAiOauth": {{"accessToken": "sk-ant-oat01-secret", "refreshToken": "r",
                    "expiresAt": 1, "scopes": ["user:inference"],
                    "subscriptionType": "{kind}", "rateLimitTier": "{tier}"}}}}"#
            ))
            .unwrap()
        };
        assert_eq!(with("pro", "default_claude_pro"), Subscription::Pro);
        assert_eq!(with("max", "default_claude_max_20x"), Subscription::Max);
        assert_eq!(
            with("team", "default_claude_max_5x"),
            Subscription::TeamPremium
        );
        assert_eq!(with("team", "default_raven"), Subscription::Team);
        assert_eq!(with("enterprise", ""), Subscription::Enterprise);
        assert_eq!(with("free", ""), Subscription::Other("free".into()));
        assert_eq!(parse("{}").unwrap(), Subscription::Unknown);
        assert_eq!(
            parse(r#"{"claudeAiOauth": {}}"#).unwrap(),
            Subscription::Unknown
        );
    }

    #[test]
    fn a_bad_shape_is_an_error_that_shows_no_value() {
        for bad in [
            "not json sk-ant-oat01-secret",
            "[]",
            r#"{"claudeAiOauth": {"subscriptionType": 5, "accessToken": "sk-ant-oat01-secret"}}"#,
            r#"{"claudeAiOauth": "sk-ant-oat01-secret"}"#,
        ] {
            let error = parse(bad).unwrap_err();
            assert!(!error.contains("secret"), "{error}");
        }
    }
}
