//! The checksums of R8.1, pinned to known values: a change in how they are
//! computed would make every client and server disagree with the last.

use std::collections::BTreeMap;

use memdir_protocol::{CHECKSUM_PREFIX, entry_checksum, repo_checksum};

fn sums(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|(k, v)| ((*k).to_owned(), entry_checksum(v)))
        .collect()
}

#[test]
fn entry_checksums_are_pinned() {
    assert_eq!(CHECKSUM_PREFIX, "sha256:");
    assert_eq!(
        entry_checksum(""),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        entry_checksum("abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    // SHA-256 of the two UTF-8 bytes of "é" (c3 a9).
    assert_eq!(
        entry_checksum("é"),
        "sha256:4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"
    );
    // Text and bytes of the same UTF-8 agree; other bytes are hashed as they are.
    assert_eq!(entry_checksum("é".as_bytes()), entry_checksum("é"));
    assert_ne!(entry_checksum([0xe9u8]), entry_checksum("é"));
}

#[test]
fn repo_checksums_are_pinned() {
    assert_eq!(repo_checksum(&BTreeMap::new()), entry_checksum(""));
    assert_eq!(
        repo_checksum(&sums(&[("a.md", "one"), ("b.md", "two")])),
        "sha256:94cd3ea4ddf11dbde8620b2650bd80266f10217eb65a9286291e4cfbe47eb5bf"
    );
    assert_eq!(
        repo_checksum(&sums(&[("notes/caf\u{e9}.md", "x")])),
        "sha256:003f3f8c192d4d3e5b28260e6ac024afb9e241bcb9147072ad60d138355be4d0"
    );
}

#[test]
fn a_repo_checksum_hashes_sorted_key_nul_checksum_lines() {
    let a = entry_checksum("one");
    let b = entry_checksum("two");
    let lines = format!("a.md\0{a}\nb.md\0{b}\n");
    assert_eq!(
        repo_checksum(&sums(&[("b.md", "two"), ("a.md", "one")])),
        entry_checksum(lines)
    );
}
