//! The repository rule: which `owner/name` texts name a repository.
//!
//! The rule, for both the server (every request's `repo` parameter) and
//! the client (the name it reads from a github.com remote, R8.7):
//!
//! - exactly one `/`, between an owner and a name;
//! - each part 1 to [`MAX_REPO_PART_BYTES`] bytes of ASCII letters,
//!   digits, `.`, `_` and `-` (GitHub's alphabet);
//! - neither part starts with `.` — which rules out `.` and `..`, and any
//!   part that a file system or a URL would read as hidden or relative.
//!
//! It is the stricter of the two rules the server and client used to
//! apply apart (the server allowed a leading dot, the client any length),
//! so every name one side accepts the other accepts too. The price is
//! that a GitHub repository whose name starts with a dot (`acme/.github`)
//! has no team memory: a client finds no repository there (`no_repo`),
//! and a server refuses it (`invalid_repo`). Case is kept as given.

use crate::ProtocolError;

/// The longest owner or name, in bytes (GitHub's limit for a repository
/// name).
pub const MAX_REPO_PART_BYTES: usize = 100;

/// Checks that `repo` is `owner/name` by the rule of this module.
///
/// ```
/// use memdir_protocol::validate_repo;
/// assert!(validate_repo("acme/widgets").is_ok());
/// assert!(validate_repo("my-org/my_repo.name").is_ok());
/// assert!(validate_repo("acme/../x").is_err());
/// assert!(validate_repo("acme/.github").is_err());
/// ```
pub fn validate_repo(repo: &str) -> Result<(), ProtocolError> {
    let valid = repo
        .split_once('/')
        .is_some_and(|(owner, name)| valid_part(owner) && valid_part(name));
    if valid {
        Ok(())
    } else {
        Err(ProtocolError::InvalidRepo {
            repo: repo.to_owned(),
        })
    }
}

/// One side of `owner/name`.
fn valid_part(part: &str) -> bool {
    (1..=MAX_REPO_PART_BYTES).contains(&part.len())
        && !part.starts_with('.')
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_pass() {
        for ok in [
            "owner/name",
            "a-b/c.d_e",
            "O/N",
            "acme/widgets",
            "my-org/my_repo.name",
            "a/b",
            "0/9",
            "a/b..c",
            "a/b.",
            "-/_",
            "user_emu/repo-",
        ] {
            assert!(validate_repo(ok).is_ok(), "{ok}");
        }
        let longest = format!("{}/{}", "o".repeat(100), "n".repeat(100));
        assert!(validate_repo(&longest).is_ok());
    }

    #[test]
    fn hostile_names_fail() {
        let too_long_owner = format!("{}/n", "o".repeat(101));
        let too_long_name = format!("o/{}", "n".repeat(101));
        for bad in [
            "",
            "/",
            "owner",
            "/name",
            "owner/",
            "a/b/c",
            "a//b",
            "../x",
            "./x",
            "a/..",
            "a/.",
            "..",
            ".git/config",
            "a/.github",
            ".hidden/x",
            "a b/c",
            "a/b c",
            "a/%2e",
            "a/%2e%2e",
            "a%2fb/c",
            "a\\b/c",
            "a/b\\..",
            "a/b\0",
            "a/b\n",
            "a/b?view=full",
            "a/b&repo=c/d",
            "a/b#x",
            "a:b/c",
            "C:/x",
            "a/b\u{2215}c",
            "\u{ff0e}\u{ff0e}/x",
            "caf\u{e9}/x",
            "a/b\u{202e}",
            " a/b",
            "a/b ",
            &too_long_owner,
            &too_long_name,
        ] {
            let err = validate_repo(bad).unwrap_err();
            assert!(
                matches!(&err, ProtocolError::InvalidRepo { repo } if repo == bad),
                "{bad:?}: {err:?}"
            );
        }
    }

    #[test]
    fn the_message_states_the_rule() {
        let err = validate_repo("a/.b").unwrap_err();
        assert_eq!(
            err.to_string(),
            "repo must be owner/name: each part 1-100 letters, digits, '.', '_' or '-', \
             not starting with '.'"
        );
    }
}
