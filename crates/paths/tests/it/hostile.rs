//! Hostile team-memory keys, in quantity, across every category of R4.10,
//! and the benign keys that must still pass.

use std::path::Path;

use memdir_paths::{TraversalReason, validate_team_mem_key};

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
    // Too long a segment.
    (
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md",
        TooLong,
    ),
];

/// Keys that look odd but are harmless and must pass.
const BENIGN: &[&str] = &[
    "testing.md",
    "conventions/testing.md",
    "deep/er/still/fine.md",
    "..hidden.md",
    "...md",
    "..a/b.md",
    "a..b.md",
    "a.b.c.md",
    "notes 2026-11-29.md",
    "数据/部署说明.md",
    "日本語のメモ.md",
    "한국어.md",
    "café.md",
    "cafe\u{301}.md",
    "emoji 🦀.md",
    "100%.md",
    "50%off.md",
    "my%20notes.md",
    "notes: b.md",
    "-leading-dash.md",
    ".hidden-file.md",
];

#[test]
fn there_are_enough_hostile_keys() {
    assert!(HOSTILE.len() >= 40, "{}", HOSTILE.len());
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
