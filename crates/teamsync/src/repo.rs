//! The repository identity of R8.7: `owner/name` from the `origin` remote,
//! read from `.git/config` without running git. Which names are valid is
//! the protocol's rule (`memdir_protocol::validate_repo`), not this
//! module's.

use std::path::Path;

/// The `owner/name` of the project's `origin` remote when it is a
/// github.com URL, read from the git configuration on disk; `None` when
/// there is no repository, no `origin`, or the remote is not on github.com.
///
/// A linked worktree has a `.git` file (`gitdir: …`) instead of a folder;
/// it is followed to the worktree's git folder and from there, through its
/// `commondir` file, to the shared configuration.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir(dir.path().join(".git"))?;
/// std::fs::write(
///     dir.path().join(".git/config"),
///     "[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n",
/// )?;
/// assert_eq!(
///     memdir_teamsync::repo_from_git_config(dir.path()).as_deref(),
///     Some("acme/widgets")
/// );
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use]
pub fn repo_from_git_config(project_root: &Path) -> Option<String> {
    let git_dir = memdir_paths::git_common_dir(project_root)?;
    let config = std::fs::read_to_string(git_dir.join("config")).ok()?;
    parse_github_remote(&memdir_paths::git_config_value(
        &config,
        "remote",
        Some("origin"),
        "url",
    )?)
}

/// `owner/name` from a github.com remote URL in any of git's forms: https
/// (with or without `.git`, with credentials), `ssh://`, `git://` and
/// scp-like `git@github.com:owner/name.git`; `None` for any other host, and
/// for a name the protocol refuses ([`memdir_protocol::validate_repo`]).
///
/// ```
/// use memdir_teamsync::parse_github_remote;
/// assert_eq!(parse_github_remote("https://github.com/o/r.git").as_deref(), Some("o/r"));
/// assert_eq!(parse_github_remote("git@gitlab.com:o/r.git"), None);
/// ```
#[must_use]
pub fn parse_github_remote(url: &str) -> Option<String> {
    let url = url.trim();
    let (host, path) = if let Some((scheme, rest)) = url.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        if !matches!(
            scheme.as_str(),
            "https" | "http" | "ssh" | "git" | "git+ssh" | "ssh+git"
        ) {
            return None;
        }
        let (authority, path) = rest.split_once('/')?;
        let host = authority.rsplit('@').next()?;
        let host = host.split(':').next()?;
        (host, path)
    } else {
        // scp-like: `[user@]host:path`, and the host part holds no slash.
        let (authority, path) = url.split_once(':')?;
        if authority.contains('/') {
            return None;
        }
        let host = authority.rsplit('@').next()?;
        (host, path)
    };
    let host = host.to_ascii_lowercase();
    if host != "github.com" && host != "www.github.com" {
        return None;
    }
    let path = path.trim_start_matches('/').trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let mut segments = path.split('/');
    let (owner, name) = (segments.next()?, segments.next()?);
    if segments.next().is_some() {
        return None;
    }
    let repo = format!("{owner}/{name}");
    memdir_protocol::validate_repo(&repo)
        .is_ok()
        .then_some(repo)
}

#[cfg(test)]
mod tests;
