//! Web-view sessions: `mds_<id>`, 64 hex digits (256 random bits), and a
//! form token of as many. The id is the session cookie's value and is
//! stored only as its SHA-256, as tokens are; the form token is stored as
//! it is (it proves that a form came from a page of the session, and is
//! worth nothing without the cookie).

use crate::store::StoreError;
use crate::token;

/// The start of every session id: never a bearer token's `mdt_`.
pub(crate) const SESSION_PREFIX: &str = "mds_";

const SECRET_HEX: usize = 64;

/// A fresh session id and form token.
pub(crate) fn generate() -> Result<(String, String), StoreError> {
    Ok((format!("{SESSION_PREFIX}{}", random_hex()?), random_hex()?))
}

/// 256 random bits as 64 lowercase hex digits.
pub(crate) fn random_hex() -> Result<String, StoreError> {
    let mut bytes = [0u8; SECRET_HEX / 2];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Random(e.to_string()))?;
    Ok(hex::encode(bytes))
}

/// The stored form of a session id.
pub(crate) fn hash(id: &str) -> String {
    token::hash(id)
}

/// Whether `id` has the shape of a session id: anything else is looked
/// up nowhere.
pub(crate) fn well_formed(id: &str) -> bool {
    id.strip_prefix(SESSION_PREFIX).is_some_and(is_secret)
}

/// Whether `text` has the shape of 256 random bits as [`random_hex`]
/// writes them (a form token, or the secret of a session id).
pub(crate) fn is_secret(text: &str) -> bool {
    text.len() == SECRET_HEX
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether two secrets are equal, in time that depends on their length
/// only, so that a guess learns nothing from how fast it was refused.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_form_tokens_are_distinct_and_well_formed() {
        let (id, csrf) = generate().expect("randomness");
        let (other, _) = generate().expect("randomness");
        assert_ne!(id, other);
        assert!(well_formed(&id), "{id}");
        assert!(is_secret(&csrf), "{csrf}");
        assert!(!well_formed(&csrf));
        assert_eq!(hash(&id).len(), 64);
        assert_ne!(hash(&id), id);
    }

    #[test]
    fn malformed_ids_are_refused() {
        let secret = "0".repeat(64);
        for bad in [
            String::new(),
            "mds_".to_owned(),
            format!("mdt_{secret}"),
            format!("mds_{}", "A".repeat(64)),
            format!("mds_{secret}0"),
            format!("mds_{}", &secret[1..]),
        ] {
            assert!(!well_formed(&bad), "{bad:?}");
        }
    }

    #[test]
    fn secrets_compare_by_value() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert!(!same_secret("", "a"));
    }
}
