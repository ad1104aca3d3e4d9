//! Bearer tokens: `mdt_<id>_<secret>`, 16 hex digits of id and 64 of
//! secret (256 random bits). The id is public and names the token for
//! revocation; only the SHA-256 of the whole token is stored, which is safe
//! without a salt because the token is random, not chosen by a person.

use sha2::{Digest, Sha256};

use crate::store::StoreError;

/// The start of every token.
pub const TOKEN_PREFIX: &str = "mdt_";

const ID_HEX: usize = 16;
const SECRET_HEX: usize = 64;

/// A fresh token and its id.
pub(crate) fn generate() -> Result<(String, String), StoreError> {
    let mut bytes = [0u8; ID_HEX / 2 + SECRET_HEX / 2];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Random(e.to_string()))?;
    let id = hex::encode(&bytes[..ID_HEX / 2]);
    let secret = hex::encode(&bytes[ID_HEX / 2..]);
    Ok((format!("{TOKEN_PREFIX}{id}_{secret}"), id))
}

/// The stored form of a token.
pub(crate) fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The public prefix shown for a token id.
pub(crate) fn prefix_of(id: &str) -> String {
    format!("{TOKEN_PREFIX}{id}")
}

/// The id in a prefix such as `mdt_0123456789abcdef` or a whole token.
pub(crate) fn id_from_prefix(prefix: &str) -> Option<&str> {
    let rest = prefix.strip_prefix(TOKEN_PREFIX)?;
    let id = rest.get(..ID_HEX)?;
    let tail = &rest[ID_HEX..];
    let well_formed = id
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        && (tail.is_empty() || tail.starts_with('_'));
    well_formed.then_some(id)
}

/// Organisation names: printable, without surrounding spaces, 1–200 bytes.
pub(crate) fn check_org(org: &str) -> Result<(), StoreError> {
    let ok = !org.is_empty()
        && org.len() <= 200
        && org.trim() == org
        && !org.chars().any(char::is_control);
    if ok {
        Ok(())
    } else {
        Err(StoreError::InvalidOrganization(org.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_distinct_and_parse_back() {
        let (a, id_a) = generate().expect("randomness");
        let (b, _) = generate().expect("randomness");
        assert_ne!(a, b);
        assert_eq!(a.len(), TOKEN_PREFIX.len() + ID_HEX + 1 + SECRET_HEX);
        assert_eq!(id_from_prefix(&a), Some(id_a.as_str()));
        assert_eq!(id_from_prefix(&prefix_of(&id_a)), Some(id_a.as_str()));
    }

    #[test]
    fn malformed_prefixes_name_no_id() {
        for bad in [
            "",
            "mdt_",
            "mdt_0123",
            "xyz_0123456789abcdef",
            "mdt_0123456789abcdefX",
            "mdt_0123456789ABCDEF",
        ] {
            assert_eq!(id_from_prefix(bad), None, "{bad}");
        }
    }

    #[test]
    fn hash_is_hex_sha256() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn org_names() {
        assert!(check_org("acme").is_ok());
        for bad in ["", " acme", "a\nb"] {
            assert!(check_org(bad).is_err(), "{bad:?}");
        }
    }
}
