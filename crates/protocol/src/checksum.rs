//! The checksums of SPEC R8.1: the server computes them for what it
//! stores, the client for its local files, to compare the two.
//!
//! An entry's checksum is `"sha256:" + hex(sha256(text))` over its UTF-8
//! bytes (lowercase hex). A repository's checksum is `"sha256:" + hex(sha256(lines))`
//! where `lines` is the concatenation, sorted by key, of one
//! `key NUL entryChecksum LF` line per entry. Sorting by key sorts the
//! lines too, because a key cannot hold NUL (keys are validated first).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// The prefix of every checksum on the wire.
pub const CHECKSUM_PREFIX: &str = "sha256:";

/// The checksum of one entry's text, or of a local file's bytes (which
/// need not be UTF-8: a file that is not text still gets a checksum to
/// compare with, and matches no entry).
///
/// ```
/// use memdir_protocol::entry_checksum;
/// assert_eq!(
///     entry_checksum(""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
/// );
/// assert_eq!(entry_checksum(b"abc"), entry_checksum("abc"));
/// ```
#[must_use]
pub fn entry_checksum(text: impl AsRef<[u8]>) -> String {
    format!(
        "{CHECKSUM_PREFIX}{}",
        hex::encode(Sha256::digest(text.as_ref()))
    )
}

/// The checksum of a whole repository, from its entries' checksums
/// (key → entry checksum). An empty repository has the checksum of no
/// lines, which is the checksum of the empty text.
///
/// ```
/// use std::collections::BTreeMap;
/// use memdir_protocol::{entry_checksum, repo_checksum};
/// let mut sums = BTreeMap::new();
/// sums.insert("a.md".to_owned(), entry_checksum("hello"));
/// assert!(repo_checksum(&sums).starts_with("sha256:"));
/// assert_eq!(repo_checksum(&BTreeMap::new()), entry_checksum(""));
/// ```
#[must_use]
pub fn repo_checksum(entry_checksums: &BTreeMap<String, String>) -> String {
    let mut hasher = Sha256::new();
    for (key, sum) in entry_checksums {
        hasher.update(key.as_bytes());
        hasher.update([0u8]);
        hasher.update(sum.as_bytes());
        hasher.update([b'\n']);
    }
    format!("{CHECKSUM_PREFIX}{}", hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(entries: &[(&str, &str)], expected_lines: &str) {
        let sums: BTreeMap<String, String> = entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), entry_checksum(v)))
            .collect();
        let expected = format!(
            "{CHECKSUM_PREFIX}{}",
            hex::encode(Sha256::digest(expected_lines.as_bytes()))
        );
        assert_eq!(repo_checksum(&sums), expected);
    }

    #[test]
    fn entry_checksum_is_sha256_of_utf8_bytes() {
        // SHA-256("abc"), the FIPS 180-2 test vector.
        assert_eq!(
            entry_checksum("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            entry_checksum("é"),
            format!("sha256:{}", hex::encode(Sha256::digest("é".as_bytes())))
        );
    }

    #[test]
    fn repo_checksum_hashes_sorted_key_nul_checksum_lines() {
        let a = entry_checksum("one");
        let b = entry_checksum("two");
        check(
            &[("b.md", "two"), ("a.md", "one")],
            &format!("a.md\0{a}\nb.md\0{b}\n"),
        );
    }

    #[test]
    fn repo_checksum_of_nothing_is_checksum_of_empty_text() {
        check(&[], "");
    }

    #[test]
    fn repo_checksum_changes_with_any_entry() {
        let mut sums = BTreeMap::new();
        sums.insert("k".to_owned(), entry_checksum("v1"));
        let before = repo_checksum(&sums);
        sums.insert("k".to_owned(), entry_checksum("v2"));
        assert_ne!(before, repo_checksum(&sums));
    }
}
