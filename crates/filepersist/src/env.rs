//! When file persistence runs (SPEC R15.1, R15.2), decided from values the
//! caller gathered: the library never reads the process environment but
//! in [`PersistEnv::from_process`].

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::PersistError;

/// The feature switch: on unless `0`, `false` or `off` (any case).
pub const ENV_FEATURE: &str = "MEMDIR_FILE_PERSISTENCE";
/// The kind of environment the agent runs in: `byoc` or `anthropic_cloud`.
pub const ENV_ENVIRONMENT_KIND: &str = "CLAUDE_CODE_ENVIRONMENT_KIND";
/// The remote session's access token, sent as `Authorization: Bearer`.
pub const ENV_SESSION_TOKEN: &str = "CLAUDE_CODE_SESSION_ACCESS_TOKEN";
/// An API key, sent as `x-api-key` when there is no session token.
pub const ENV_API_KEY: &str = "ANTHROPIC_API_KEY";
/// The remote session's id, which names its folder under the working
/// directory.
pub const ENV_SESSION_ID: &str = "CLAUDE_CODE_REMOTE_SESSION_ID";
/// The API's base URL.
pub const ENV_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// The base URL when [`ENV_BASE_URL`] is unset.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The kind of environment the agent runs in (R15.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EnvironmentKind {
    /// Bring your own cloud: the user's infrastructure, where output files
    /// are persisted through the Files API.
    Byoc,
    /// Anthropic's cloud, which keeps the files itself.
    AnthropicCloud,
}

impl EnvironmentKind {
    /// The kind a `CLAUDE_CODE_ENVIRONMENT_KIND` value names: exactly
    /// `byoc` or `anthropic_cloud`; anything else is none.
    ///
    /// ```
    /// use memdir_filepersist::EnvironmentKind;
    /// assert_eq!(EnvironmentKind::parse("byoc"), Some(EnvironmentKind::Byoc));
    /// assert_eq!(EnvironmentKind::parse("BYOC"), None);
    /// ```
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "byoc" => Some(EnvironmentKind::Byoc),
            "anthropic_cloud" => Some(EnvironmentKind::AnthropicCloud),
            _ => None,
        }
    }

    /// The value that names this kind.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            EnvironmentKind::Byoc => "byoc",
            EnvironmentKind::AnthropicCloud => "anthropic_cloud",
        }
    }
}

/// How uploads authenticate. `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credential {
    /// A session access token: `Authorization: Bearer <token>`.
    SessionToken(String),
    /// An API key: `x-api-key: <key>`.
    ApiKey(String),
}

impl Credential {
    /// The secret itself, so errors can be checked for it.
    pub(crate) fn secret(&self) -> &str {
        match self {
            Credential::SessionToken(s) | Credential::ApiKey(s) => s,
        }
    }

    /// The header that carries it: name and value.
    pub(crate) fn header(&self) -> (&'static str, String) {
        match self {
            Credential::SessionToken(token) => ("authorization", format!("Bearer {token}")),
            Credential::ApiKey(key) => ("x-api-key", key.clone()),
        }
    }
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Credential::SessionToken(_) => "SessionToken([redacted])",
            Credential::ApiKey(_) => "ApiKey([redacted])",
        })
    }
}

/// The values file persistence is decided by, gathered by the caller.
/// An empty value counts as unset.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PersistEnv {
    /// [`ENV_FEATURE`].
    pub feature: Option<String>,
    /// [`ENV_ENVIRONMENT_KIND`].
    pub environment_kind: Option<String>,
    /// [`ENV_SESSION_TOKEN`].
    pub session_token: Option<String>,
    /// [`ENV_API_KEY`].
    pub api_key: Option<String>,
    /// [`ENV_SESSION_ID`].
    pub session_id: Option<String>,
    /// [`ENV_BASE_URL`].
    pub base_url: Option<String>,
}

impl fmt::Debug for PersistEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PersistEnv")
            .field("feature", &self.feature)
            .field("environment_kind", &self.environment_kind)
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "[redacted]"),
            )
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("session_id", &self.session_id)
            .field("base_url", &self.base_url)
            .finish()
    }
}

/// Why file persistence does not run (R15.2).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisabledReason {
    /// The feature switch is off.
    FeatureOff {
        /// The value that turned it off.
        value: String,
    },
    /// The environment is not a BYOC one.
    NotByoc {
        /// The kind it is, when it names one.
        kind: Option<EnvironmentKind>,
    },
    /// Neither a session token nor an API key is set.
    NoCredential,
    /// No remote session id is set.
    NoSessionId,
}

impl fmt::Display for DisabledReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisabledReason::FeatureOff { value } => write!(
                f,
                "file persistence is turned off ({ENV_FEATURE}={value}); unset {ENV_FEATURE} to turn it on"
            ),
            DisabledReason::NotByoc { kind: Some(kind) } => write!(
                f,
                "file persistence runs only in BYOC environments, and this one is {}; set {ENV_ENVIRONMENT_KIND}=byoc",
                kind.as_str()
            ),
            DisabledReason::NotByoc { kind: None } => write!(
                f,
                "file persistence runs only in BYOC environments; set {ENV_ENVIRONMENT_KIND}=byoc"
            ),
            DisabledReason::NoCredential => write!(
                f,
                "file persistence needs a credential; set {ENV_SESSION_TOKEN} (or {ENV_API_KEY})"
            ),
            DisabledReason::NoSessionId => write!(
                f,
                "file persistence needs the remote session; set {ENV_SESSION_ID}"
            ),
        }
    }
}

/// What file persistence runs with when it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enabled {
    /// How uploads authenticate.
    pub credential: Credential,
    /// The remote session id.
    pub session_id: String,
    /// The API's base URL, without a trailing `/`.
    pub base_url: String,
}

impl Enabled {
    /// The outputs folder of the session under `cwd`:
    /// `<cwd>/<session id>/outputs` (R15.3). A session id that is not one
    /// plain folder name (empty, `.`, `..`, a `/`, a `\` or a NUL) is
    /// refused: it would point the upload at another folder.
    pub fn outputs_dir(&self, cwd: &Path) -> Result<PathBuf, PersistError> {
        let id = self.session_id.as_str();
        if id.is_empty() || id == "." || id == ".." || id.contains(['/', '\\', '\0']) {
            return Err(PersistError::UnsafeSessionId { id: id.to_owned() });
        }
        Ok(cwd.join(id).join("outputs"))
    }
}

/// Whether file persistence runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enablement {
    /// It runs, with this.
    Enabled(Enabled),
    /// It does not, for this reason.
    Disabled(DisabledReason),
}

impl PersistEnv {
    /// The values of the process environment.
    #[must_use]
    pub fn from_process() -> Self {
        PersistEnv::from_lookup(|name| std::env::var(name).ok())
    }

    /// The values `lookup` gives for each variable name.
    #[must_use]
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        PersistEnv {
            feature: lookup(ENV_FEATURE),
            environment_kind: lookup(ENV_ENVIRONMENT_KIND),
            session_token: lookup(ENV_SESSION_TOKEN),
            api_key: lookup(ENV_API_KEY),
            session_id: lookup(ENV_SESSION_ID),
            base_url: lookup(ENV_BASE_URL),
        }
    }

    /// Whether file persistence runs, checked in the order of R15.2: the
    /// switch, the kind, the credential (a session token wins over an API
    /// key), the session id.
    ///
    /// ```
    /// use memdir_filepersist::{DisabledReason, Enablement, PersistEnv};
    /// let env = PersistEnv {
    ///     environment_kind: Some("byoc".into()),
    ///     api_key: Some("sk-ant-test".into()),
    ///     ..PersistEnv::default()
    /// };
    /// assert_eq!(env.enablement(), Enablement::Disabled(DisabledReason::NoSessionId));
    /// ```
    #[must_use]
    pub fn enablement(&self) -> Enablement {
        let set = |v: &Option<String>| v.as_deref().filter(|v| !v.is_empty()).map(str::to_owned);
        if let Some(value) = set(&self.feature)
            && matches!(
                value.trim().to_ascii_lowercase().as_str(),
                "0" | "false" | "off"
            )
        {
            return Enablement::Disabled(DisabledReason::FeatureOff { value });
        }
        let kind = self
            .environment_kind
            .as_deref()
            .and_then(EnvironmentKind::parse);
        if kind != Some(EnvironmentKind::Byoc) {
            return Enablement::Disabled(DisabledReason::NotByoc { kind });
        }
        let credential = match (set(&self.session_token), set(&self.api_key)) {
            (Some(token), _) => Credential::SessionToken(token),
            (None, Some(key)) => Credential::ApiKey(key),
            (None, None) => return Enablement::Disabled(DisabledReason::NoCredential),
        };
        let Some(session_id) = set(&self.session_id) else {
            return Enablement::Disabled(DisabledReason::NoSessionId);
        };
        let base_url = set(&self.base_url).unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        Enablement::Enabled(Enabled {
            credential,
            session_id,
            base_url: base_url.trim_end_matches('/').to_owned(),
        })
    }
}
