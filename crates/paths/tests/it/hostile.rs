//! Hostile team-memory keys, in quantity, across every category of R4.10,
//! and the benign keys that must still pass.

use std::path::Path;

use memdir_paths::{TraversalReason, validate_team_mem_key, validate_team_mem_key_text};

use TraversalReason::*;

/// Every hostile key and the rule that must reject it.
const HOSTILE: &[(&str, TraversalReason)] = &[
    // Dot segments.
    ("..", DotDotSegment),
    ("../x.md", DotDotSegment),
    ("../../etc/passwd", DotDotSegment),
    ("a/../../x.md", DotDotSegment),
    ("a/..", DotDotSegment),
    ("./a.md", DotSegment),
    ("a/./b.md", DotSegment),
    (".", DotSegment),
    // Empty segments.
    ("a//b.md", EmptySegment),
    ("a/", EmptySegment),
    ("", Empty),
    // Absolute, drive and UNC forms.
    ("/etc/passwd", Absolute),
    ("/a.md", Absolute),
    ("C:x.md", DriveLetter),
    ("c:/windows/system32", DriveLetter),
    ("Z:", DriveLetter),
    ("\\\\server\\share\\x.md", Unc),
    ("//server/share/x.md", Unc),
    // Backslashes.
    ("..\\x.md", Backslash),
    ("a\\b.md", Backslash),
    ("a\\..\\..\\x.md", Backslash),
    // NUL and control characters.
    ("a\0.md", NulByte),
    ("\0", NulByte),
    ("a\n/../x.md", ControlCharacter),
    ("a\r.md", ControlCharacter),
    ("a\u{1b}[2J.md", ControlCharacter),
    // Percent-encoding, in any case and depth.
    ("%2e%2e%2fx.md", PercentEncoded),
    ("%2E%2E%2Fx.md", PercentEncoded),
    ("%2e%2E/x.md", PercentEncoded),
    ("..%2fx.md", PercentEncoded),
    ("..%5cx.md", PercentEncoded),
    ("..%5Cx.md", PercentEncoded),
    ("a%2fb.md", PercentEncoded),
    ("%252e%252e%252fx.md", PercentEncoded),
    ("%25252e%25252e/x.md", PercentEncoded),
    ("a%00.md", PercentEncoded),
    ("%c0%ae%c0%ae/x.md", PercentEncoded),
    ("%e0%80%ae.md", PercentEncoded),
    ("%u002e%u002e/x.md", PercentEncoded),
    ("%U002F", PercentEncoded),
    ("%ef%bc%8e%ef%bc%8e/x.md", UnicodeLookalike),
    // NFKC look-alikes of `.`, `/`, `\` and `:`.
    ("\u{ff0e}\u{ff0e}/x.md", UnicodeLookalike),
    ("\u{ff0e}\u{ff0e}\u{ff0f}x.md", UnicodeLookalike),
    ("a\u{ff0f}b.md", UnicodeLookalike),
    ("a\u{ff3c}b.md", UnicodeLookalike),
    ("\u{2024}\u{2024}/x.md", UnicodeLookalike),
    ("\u{2025}/x.md", UnicodeLookalike),
    ("\u{2026}/x.md", UnicodeLookalike),
    ("\u{fe52}\u{fe52}/x.md", UnicodeLookalike),
    ("C\u{ff1a}x.md", UnicodeLookalike),
    ("a\u{fe68}b.md", UnicodeLookalike),
    ("\u{2488}md", UnicodeLookalike),
    // Characters that look like a separator or a dot without becoming one.
    ("a\u{2215}b.md", SeparatorLookalike),
    ("\u{2215}\u{2215}/x.md", SeparatorLookalike),
    ("a\u{2044}b.md", SeparatorLookalike),
    ("a\u{29f8}b.md", SeparatorLookalike),
    ("a\u{29f5}b.md", SeparatorLookalike),
    ("a\u{29f9}b.md", SeparatorLookalike),
    ("a\u{2216}b.md", SeparatorLookalike),
    ("a\u{2571}b.md", SeparatorLookalike),
    ("a\u{2572}b.md", SeparatorLookalike),
    ("a\u{27cb}b.md", SeparatorLookalike),
    ("notes\u{3002}md", SeparatorLookalike),
    ("notes\u{ff61}md", SeparatorLookalike),
    ("notes\u{fe12}md", SeparatorLookalike),
    ("a\u{2e2e}b.md", SeparatorLookalike),
    ("notes\u{2e3c}md", SeparatorLookalike),
    ("notes\u{701}md", SeparatorLookalike),
    ("notes\u{702}md", SeparatorLookalike),
    ("notes\u{a4f8}md", SeparatorLookalike),
    ("notes\u{1362}md", SeparatorLookalike),
    ("%e2%88%95x.md", SeparatorLookalike),
    // Format characters (Cf): bidi controls, zero-width characters, BOM,
    // soft hyphen, tags.
    ("notes/\u{202e}evil.md", FormatCharacter),
    ("\u{202a}a.md", FormatCharacter),
    ("a\u{202c}.md", FormatCharacter),
    ("a\u{2066}b.md", FormatCharacter),
    ("a\u{2069}.md", FormatCharacter),
    ("zero\u{200b}width.md", FormatCharacter),
    ("a\u{200d}b.md", FormatCharacter),
    ("a\u{200f}.md", FormatCharacter),
    ("a\u{2060}b.md", FormatCharacter),
    ("a\u{2064}b.md", FormatCharacter),
    ("\u{feff}bom.md", FormatCharacter),
    ("soft\u{ad}hyphen.md", FormatCharacter),
    ("a\u{61c}b.md", FormatCharacter),
    ("a\u{180e}b.md", FormatCharacter),
    ("a\u{fffa}b.md", FormatCharacter),
    ("tag\u{e0001}.md", FormatCharacter),
    ("tag\u{e0041}\u{e007f}.md", FormatCharacter),
    ("a\u{600}b.md", FormatCharacter),
    ("a\u{1343f}.md", FormatCharacter),
    ("a\u{1d173}.md", FormatCharacter),
    // Encoded, they are refused too.
    ("%e2%80%ae.md", PercentEncoded),
    ("a%e2%80%8bb.md", PercentEncoded),
    // Hidden segments.
    (".git/config", HiddenSegment),
    (".git", HiddenSegment),
    (".conflicts/a.md.20260101T000000Z", HiddenSegment),
    (".sync-state.json", HiddenSegment),
    ("notes/.hidden.md", HiddenSegment),
    ("a/.b/c.md", HiddenSegment),
    (".hidden-file.md", HiddenSegment),
    ("..hidden.md", HiddenSegment),
    ("...md", HiddenSegment),
    ("..a/b.md", HiddenSegment),
    // Trailing dots and spaces.
    ("notes./a.md", TrailingDotOrSpace),
    ("a.md.", TrailingDotOrSpace),
    ("a.md ", TrailingDotOrSpace),
    ("notes /a.md", TrailingDotOrSpace),
    ("a..", TrailingDotOrSpace),
    ("a. ", TrailingDotOrSpace),
    (" ", TrailingDotOrSpace),
    // Colons (NTFS streams); a leading drive stays a drive.
    ("ab:c.md", Colon),
    ("notes/a:b.md", Colon),
    ("notes: b.md", Colon),
    ("x.md::$DATA", Colon),
    ("a/C:x.md", Colon),
    (":x.md", Colon),
    ("ab:", Colon),
    // Windows device names, as a segment or a stem, in any case.
    ("CON", ReservedName),
    ("con.md", ReservedName),
    ("Con.tar.gz", ReservedName),
    ("PRN.txt", ReservedName),
    ("aux", ReservedName),
    ("notes/nul", ReservedName),
    ("NUL.md", ReservedName),
    ("COM0.md", ReservedName),
    ("com1", ReservedName),
    ("CoM9.log", ReservedName),
    ("lpt0", ReservedName),
    ("LPT9.md", ReservedName),
    ("COM\u{b9}.md", ReservedName),
    ("lpt\u{b2}", ReservedName),
    ("LPT\u{b3}.txt", ReservedName),
    ("CONIN$", ReservedName),
    ("conout$.md", ReservedName),
    ("CON .md", ReservedName),
    ("con  .md", ReservedName),
    ("CON.", ReservedName),
    ("nul ", ReservedName),
    ("aux/notes.md", ReservedName),
    // When a key breaks several rules, the most specific one is named:
    // traversal before portability, a device before its disguise.
    (".git/../x.md", DotDotSegment),
    ("ab:c/../x.md", DotDotSegment),
    ("\u{202e}/../x.md", FormatCharacter),
    ("a\u{2215}/CON", SeparatorLookalike),
    ("CON/.git", HiddenSegment),
    ("a./CON", ReservedName),
    ("ab:c/CON", Colon),
    ("a:b.md", DriveLetter),
    // Too long a segment.
    (
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md",
        TooLong,
    ),
];

/// Keys that look odd but are harmless and must pass.
const BENIGN: &[&str] = &[
    "MEMORY.md",
    "testing.md",
    "conventions/testing.md",
    "deep/er/still/fine.md",
    "team/backend/api/errors.md",
    "a..b.md",
    "a.b.c.md",
    "v1.2-notes.md",
    "notes 2026-11-29.md",
    "my notes.md",
    "my notes/more notes.md",
    "规约/测试.md",
    "規約/テスト.md",
    "数据/部署说明.md",
    "日本語のメモ.md",
    "한국어.md",
    "팀/규칙.md",
    "ملاحظات/المشروع.md",
    "הערות/פרויקט.md",
    "café.md",
    "cafe\u{301}.md",
    "emoji 🦀.md",
    "100%.md",
    "50%off.md",
    "my%20notes.md",
    "-dash.md",
    "-leading-dash.md",
    "_underscore.md",
    "con-notes.md",
    "console.md",
    "CONSOLE",
    "auxiliary.md",
    "nul-terminated.md",
    "prn_printer.md",
    "COM10.md",
    "LPT10.md",
    "COM.md",
    "lpt.md",
    "CONIN.md",
    "notes/con-x/aux-y.md",
];

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
fn check(key: &str, expected: Result<&str, TraversalReason>) {
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
fn every_hostile_key_is_rejected_for_its_reason() {
    let team = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    for &(key, reason) in HOSTILE {
        match validate_team_mem_key(key, team.path()) {
            Ok(path) => wrong.push(format!("{key:?} was accepted as {}", path.display())),
            Err(e) if e.reason != reason => {
                wrong.push(format!("{key:?}: {:?}, expected {reason:?}", e.reason));
            }
            Err(e) => {
                assert_eq!(e.input, key);
                assert!(!e.to_string().contains('\n'), "one-line message: {e}");
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Checking creates nothing on disk.
    assert_eq!(std::fs::read_dir(team.path()).unwrap().count(), 0);
}

#[test]
fn benign_keys_pass_the_text_rules_in_nfc() {
    use unicode_normalization::UnicodeNormalization;
    for key in BENIGN {
        let nfc: String = key.nfc().collect();
        check(key, Ok(&nfc));
    }
}

#[test]
fn benign_keys_pass_and_stay_inside() {
    let team = tempfile::tempdir().unwrap();
    for key in BENIGN {
        let path = validate_team_mem_key(key, team.path())
            .unwrap_or_else(|e| panic!("{key:?} was rejected: {e}"));
        assert!(
            path.starts_with(team.path()),
            "{key:?} -> {}",
            path.display()
        );
    }
}

#[test]
fn keys_are_written_in_nfc() {
    let team = tempfile::tempdir().unwrap();
    let nfd = validate_team_mem_key("cafe\u{301}.md", team.path()).unwrap();
    let nfc = validate_team_mem_key("caf\u{e9}.md", team.path()).unwrap();
    assert_eq!(nfd, nfc);
    assert_eq!(nfc, team.path().join("caf\u{e9}.md"));
}

#[test]
fn a_relative_team_folder_works_too() {
    let path = validate_team_mem_key("a.md", Path::new("some/team")).unwrap();
    assert!(path.ends_with("some/team/a.md"));
}
