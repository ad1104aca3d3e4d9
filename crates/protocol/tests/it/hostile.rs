//! Hostile team-memory keys, in quantity, across every category of R4.10,
//! against the text rules alone, and the benign keys that must still pass.
//! The corpus is in `corpus.rs`.

use memdir_protocol::{KeyReason, validate_team_mem_key_text};

use crate::corpus::{BENIGN, HOSTILE};
use KeyReason::*;

#[test]
fn there_are_enough_hostile_keys() {
    assert!(HOSTILE.len() >= 40, "{}", HOSTILE.len());
}

#[test]
fn the_text_rules_alone_reject_every_hostile_key_for_its_reason() {
    let mut wrong = Vec::new();
    for &(key, reason) in HOSTILE {
        match validate_team_mem_key_text(key) {
            Ok(nfc) => wrong.push(format!("{key:?} was accepted as {nfc:?}")),
            Err(e) if e.reason != reason => {
                wrong.push(format!("{key:?}: {:?}, expected {reason:?}", e.reason));
            }
            Err(e) => assert_eq!(e.input, key),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn every_reason_has_its_own_code_and_a_one_line_message() {
    let mut codes: Vec<&str> = HOSTILE.iter().map(|&(_, r)| r.code()).collect();
    codes.sort_unstable();
    codes.dedup();
    for new in [
        "format-character",
        "separator-lookalike",
        "hidden-segment",
        "trailing-dot-or-space",
        "colon",
        "reserved-name",
    ] {
        assert!(codes.contains(&new), "no hostile key for {new}");
    }
    for &(_, reason) in HOSTILE {
        let text = reason.to_string();
        assert!(
            !text.is_empty() && !text.contains('\n') && !text.ends_with('.'),
            "{text:?}"
        );
        assert!(
            reason
                .code()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{}",
            reason.code()
        );
    }
}

/// `check(key, expected)`: the text rules' verdict on one key.
fn check(key: &str, expected: Result<&str, KeyReason>) {
    let got = validate_team_mem_key_text(key);
    let got = got.as_deref().map_err(|e| e.reason);
    assert_eq!(got, expected, "{key:?}");
}

#[test]
fn lengths_are_counted_in_bytes_of_the_nfc_key() {
    let segment = "a".repeat(255);
    check(&segment, Ok(&segment));
    check(&"a".repeat(256), Err(TooLong));
    // Three bytes a character: 85 fit, 86 do not.
    let cjk = "規".repeat(85);
    check(&cjk, Ok(&cjk));
    check(&"規".repeat(86), Err(TooLong));
    // 1,024 bytes in all is the limit.
    let key = format!("{}{}", "abc/".repeat(255), "b.md");
    assert_eq!(key.len(), 1024);
    check(&key, Ok(&key));
    check(&format!("{key}x"), Err(KeyTooLong));
    check(&"abcdefg/".repeat(200), Err(EmptySegment));
    check(&format!("{}x.md", "abcdefg/".repeat(200)), Err(KeyTooLong));
    // A segment over 255 bytes is named before the whole key.
    check(
        &format!("{}/{}", "a".repeat(300), "b/".repeat(400)),
        Err(EmptySegment),
    );
    check(
        &format!("{}/{}x", "a".repeat(300), "b/".repeat(400)),
        Err(TooLong),
    );
}

#[test]
fn a_decomposed_key_is_normalised_never_refused_for_it() {
    check("cafe\u{301}.md", Ok("caf\u{e9}.md"));
    check(
        "notes/Cafe\u{301}/re\u{301}sume\u{301}.md",
        Ok("notes/Caf\u{e9}/r\u{e9}sum\u{e9}.md"),
    );
    // Hangul in conjoining jamo composes to syllables.
    check("\u{1112}\u{1161}\u{11ab}.md", Ok("\u{d55c}.md"));
    // 127 decomposed é are 381 bytes as given but 254 in NFC: accepted.
    let nfd = format!("{}a", "e\u{301}".repeat(127));
    let nfc = format!("{}a", "\u{e9}".repeat(127));
    assert!(nfd.len() > 255 && nfc.len() == 255);
    check(&nfd, Ok(&nfc));
}

#[test]
fn benign_keys_pass_the_text_rules_in_nfc() {
    use unicode_normalization::UnicodeNormalization;
    for key in BENIGN {
        let nfc: String = key.nfc().collect();
        check(key, Ok(&nfc));
    }
}
