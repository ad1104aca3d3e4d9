//! The repository identity of R8.7: `owner/name` from the `origin` remote,
//! read from `.git/config` without running git.

use std::path::{Path, PathBuf};

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
    let config = std::fs::read_to_string(git_config_path(project_root)?).ok()?;
    parse_github_remote(&origin_url(&config)?)
}

/// Where the configuration of the repository at `root` lives.
fn git_config_path(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git.join("config"));
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("gitdir:"))?
        .trim();
    let git_dir = root.join(target);
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(c) => git_dir.join(c.trim()),
        Err(_) => git_dir,
    };
    Some(common.join("config"))
}

/// The `url` of `[remote "origin"]` in git configuration text.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for raw in config.lines() {
        let line = raw.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(section) = line.strip_prefix('[') {
            let section = section.split(']').next().unwrap_or_default();
            let mut parts = section.splitn(2, char::is_whitespace);
            let name = parts.next().unwrap_or_default();
            let sub = parts.next().unwrap_or_default().trim().trim_matches('"');
            in_origin = name.eq_ignore_ascii_case("remote") && sub == "origin";
            continue;
        }
        if !in_origin {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("url") {
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            return Some(value.to_owned());
        }
    }
    None
}

/// `owner/name` from a github.com remote URL in any of git's forms: https
/// (with or without `.git`, with credentials), `ssh://`, `git://` and
/// scp-like `git@github.com:owner/name.git`; `None` for any other host.
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
    if segments.next().is_some() || !valid_segment(owner) || !valid_segment(name) {
        return None;
    }
    Some(format!("{owner}/{name}"))
}

fn valid_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests;
