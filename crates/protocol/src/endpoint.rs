//! The protocol's endpoints (SPEC R8.1): the one resource, its `repo` and
//! `view` query parameters, and the health check — built by a client,
//! parsed by a server, spelled once.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use crate::ProtocolError;
use crate::repo::validate_repo;

/// The path of the team-memory resource: `GET` and `PUT`.
pub const TEAM_MEMORY_PATH: &str = "/api/claude_code/team_memory";

/// The path of the server's health check (no token needed).
pub const HEALTH_PATH: &str = "/healthz";

/// The query parameter naming the repository (`owner/name`).
pub const REPO_PARAM: &str = "repo";

/// The query parameter choosing the [`View`].
pub const VIEW_PARAM: &str = "view";

/// What is left as it is in a `repo` value: the unreserved characters of
/// RFC 3986 and `/`, which is all a valid repository holds.
const REPO_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// How much of a repository a `GET` returns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum View {
    /// Entries with their text and checksums (no `view`, or `view=full`).
    #[default]
    Full,
    /// Checksums only, no entry text (`view=hashes`).
    Hashes,
}

impl View {
    /// The `view` parameter's value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            View::Full => "full",
            View::Hashes => "hashes",
        }
    }
}

/// The query of a team-memory request: which repository, which view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamMemoryQuery {
    /// `owner/name`, valid by [`validate_repo`].
    pub repo: String,
    /// How much to return.
    pub view: View,
}

impl TeamMemoryQuery {
    /// Parses the query of a request target (the text after `?`, without
    /// it). Values are percent-decoded (`+` is a space) and must be UTF-8;
    /// `repo` must appear once and be valid; `view` is `hashes` or `full`
    /// (default full); other parameters are ignored.
    ///
    /// ```
    /// use memdir_protocol::{TeamMemoryQuery, View};
    /// let q = TeamMemoryQuery::parse("repo=acme/widgets&view=hashes")?;
    /// assert_eq!((q.repo.as_str(), q.view), ("acme/widgets", View::Hashes));
    /// assert!(TeamMemoryQuery::parse("repo=../x").is_err());
    /// # Ok::<(), memdir_protocol::ProtocolError>(())
    /// ```
    pub fn parse(query: &str) -> Result<Self, ProtocolError> {
        let mut repo = None;
        let mut view = View::Full;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = value.replace('+', " ");
            let value = percent_decode_str(&value)
                .decode_utf8()
                .map_err(|_| ProtocolError::QueryNotUtf8)?;
            match name {
                REPO_PARAM if repo.is_none() => repo = Some(value.into_owned()),
                REPO_PARAM => return Err(ProtocolError::RepoTwice),
                VIEW_PARAM => {
                    view = match &*value {
                        "hashes" => View::Hashes,
                        "full" => View::Full,
                        _ => {
                            return Err(ProtocolError::InvalidView {
                                view: value.into_owned(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        let repo = repo.ok_or(ProtocolError::MissingRepo)?;
        validate_repo(&repo)?;
        Ok(Self { repo, view })
    }

    /// The request target: [`TEAM_MEMORY_PATH`] and this query, with
    /// `view=hashes` only for [`View::Hashes`].
    ///
    /// ```
    /// use memdir_protocol::{TeamMemoryQuery, View};
    /// let q = TeamMemoryQuery { repo: "acme/widgets".into(), view: View::Hashes };
    /// assert_eq!(q.target(), "/api/claude_code/team_memory?repo=acme/widgets&view=hashes");
    /// ```
    #[must_use]
    pub fn target(&self) -> String {
        let mut target = format!(
            "{TEAM_MEMORY_PATH}?{REPO_PARAM}={}",
            utf8_percent_encode(&self.repo, REPO_VALUE)
        );
        if self.view == View::Hashes {
            target.push('&');
            target.push_str(VIEW_PARAM);
            target.push('=');
            target.push_str(View::Hashes.as_str());
        }
        target
    }

    /// The whole URL at a server's base URL (scheme, host, port; a
    /// trailing `/` is dropped).
    #[must_use]
    pub fn url(&self, base_url: &str) -> String {
        format!("{}{}", base_url.trim_end_matches('/'), self.target())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &str) -> Result<TeamMemoryQuery, ProtocolError> {
        TeamMemoryQuery::parse(query)
    }

    #[test]
    fn queries_parse() {
        let q = parse("repo=o/r").unwrap();
        assert_eq!((q.repo.as_str(), q.view), ("o/r", View::Full));
        let q = parse("view=hashes&repo=o%2Fr&other=x&&").unwrap();
        assert_eq!((q.repo.as_str(), q.view), ("o/r", View::Hashes));
        let q = parse("repo=o/r&view=hashes&view=full").unwrap();
        assert_eq!(q.view, View::Full);
    }

    #[test]
    fn bad_queries_are_refused_for_their_reason() {
        for (query, expected) in [
            ("", "MissingRepo"),
            ("view=hashes", "MissingRepo"),
            ("repo", "InvalidRepo"),
            ("repo=", "InvalidRepo"),
            ("repo=noslash", "InvalidRepo"),
            ("repo=a/b/c", "InvalidRepo"),
            ("repo=../x", "InvalidRepo"),
            ("repo=%2e%2e/x", "InvalidRepo"),
            ("repo=a%20b/c", "InvalidRepo"),
            ("repo=a+b/c", "InvalidRepo"),
            ("repo=a/b%00", "InvalidRepo"),
            ("repo=o/r&repo=o/r", "RepoTwice"),
            ("repo=o/r&view=bodies", "InvalidView"),
            ("repo=o/r&view=", "InvalidView"),
            ("repo=%ff/x", "QueryNotUtf8"),
            ("x=%c0%ae&repo=o/r", "QueryNotUtf8"),
        ] {
            let err = parse(query).unwrap_err();
            let got = format!("{err:?}");
            assert!(got.starts_with(expected), "{query:?}: {got}");
        }
    }

    #[test]
    fn targets_round_trip_through_the_parser() {
        for view in [View::Full, View::Hashes] {
            let q = TeamMemoryQuery {
                repo: "my-org/my_repo.name".to_owned(),
                view,
            };
            let target = q.target();
            let (path, query) = target.split_once('?').unwrap();
            assert_eq!(path, TEAM_MEMORY_PATH);
            assert_eq!(parse(query).unwrap(), q);
        }
        let q = TeamMemoryQuery {
            repo: "o/r".to_owned(),
            view: View::Full,
        };
        assert_eq!(q.target(), "/api/claude_code/team_memory?repo=o/r");
        assert_eq!(
            q.url("http://127.0.0.1:8765/"),
            "http://127.0.0.1:8765/api/claude_code/team_memory?repo=o/r"
        );
    }

    #[test]
    fn a_hostile_repo_is_encoded_never_spliced_into_the_query() {
        let q = TeamMemoryQuery {
            repo: "o/r&view=hashes#x y".to_owned(),
            view: View::Full,
        };
        assert_eq!(
            q.target(),
            "/api/claude_code/team_memory?repo=o/r%26view%3Dhashes%23x%20y"
        );
        let (_, query) = q
            .target()
            .split_once('?')
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .unwrap();
        // The parser reads it back as one (invalid) repository.
        assert!(matches!(
            parse(&query),
            Err(ProtocolError::InvalidRepo { repo }) if repo == "o/r&view=hashes#x y"
        ));
    }
}
