//! A team sync client built from a project's resolution: the server URL
//! under the settings trust policy, the token, the repository.

use memdir_settings::SettingsFile;
use memdir_teamsync::{Client, repo_from_git_config};

use crate::{OpsError, Project, Scope};

/// The team server's base URL, above every settings file.
pub const ENV_TEAM_URL: &str = "MEMDIR_TEAM_URL";
/// The bearer token for the team server.
pub const ENV_TEAM_TOKEN: &str = "MEMDIR_TEAM_TOKEN";

/// What the caller chose explicitly, above the environment and settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamOverrides {
    /// The server's base URL.
    pub url: Option<String>,
    /// The repository (`owner/name`).
    pub repo: Option<String>,
}

impl Project {
    /// A client for the project's team folder. The server is the override,
    /// else [`ENV_TEAM_URL`], else `teamMemory.url` from a *trusted*
    /// settings file (never the project's committed settings: a
    /// repository must not be able to send a team's memory, and its token,
    /// to a server of its choosing). The token is [`ENV_TEAM_TOKEN`]; the
    /// repository is the override, else the project's github.com origin.
    pub fn team_client(&self, overrides: &TeamOverrides) -> Result<Client, OpsError> {
        let team_dir = self.folder(Scope::Team)?;
        let url = self.team_url(overrides).ok_or(OpsError::NoTeamServer)?;
        let resolution = self.resolution();
        let repo = overrides
            .repo
            .clone()
            .or_else(|| repo_from_git_config(resolution.project.work_tree.as_std_path()));
        let token = self.env().var(ENV_TEAM_TOKEN).map(str::to_owned);
        Ok(Client::new(url, team_dir.into_std_path_buf())
            .with_token(token)
            .with_repo(repo))
    }

    fn team_url(&self, overrides: &TeamOverrides) -> Option<String> {
        if let Some(url) = overrides
            .url
            .clone()
            .filter(|u| !u.is_empty())
            .or_else(|| self.env().var(ENV_TEAM_URL).map(str::to_owned))
        {
            return Some(url);
        }
        // The settings the resolution read: every source, the caller's
        // settings file and the managed one included, read once.
        self.resolution()
            .settings
            .find("teamMemory", SettingsFile::is_trusted)
            .and_then(|(_, v)| v.get("url")?.as_str().map(str::to_owned))
    }
}
