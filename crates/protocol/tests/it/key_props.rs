//! The text rules of a team-memory key (R4.10) as proptest properties:
//! one hostile piece from any category, put anywhere in an otherwise
//! portable key, gets the key refused for that category's reason; a
//! portable key is accepted and comes back in NFC. The number of cases
//! comes from `PROPTEST_CASES` (default 256).

use memdir_protocol::{KeyReason, validate_team_mem_key_text};
use proptest::prelude::*;
use proptest::sample::{Index, select};
use unicode_normalization::UnicodeNormalization;

use KeyReason::*;

/// Unicode general category Cf, written out here independently of the
/// implementation's table so that one checks the other.
const CF: &[(char, char)] = &[
    ('\u{ad}', '\u{ad}'),
    ('\u{600}', '\u{605}'),
    ('\u{61c}', '\u{61c}'),
    ('\u{6dd}', '\u{6dd}'),
    ('\u{70f}', '\u{70f}'),
    ('\u{890}', '\u{891}'),
    ('\u{8e2}', '\u{8e2}'),
    ('\u{180e}', '\u{180e}'),
    ('\u{200b}', '\u{200f}'),
    ('\u{202a}', '\u{202e}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206f}'),
    ('\u{feff}', '\u{feff}'),
    ('\u{fff9}', '\u{fffb}'),
    ('\u{110bd}', '\u{110bd}'),
    ('\u{110cd}', '\u{110cd}'),
    ('\u{13430}', '\u{1343f}'),
    ('\u{1bca0}', '\u{1bca3}'),
    ('\u{1d173}', '\u{1d17a}'),
    ('\u{e0001}', '\u{e0001}'),
    ('\u{e0020}', '\u{e007f}'),
];

/// Characters that NFKC turns into `.`, `/`, `\` or `:`.
const NFKC_LOOKALIKES: &[char] = &[
    '\u{ff0e}', '\u{ff0f}', '\u{ff3c}', '\u{ff1a}', '\u{2024}', '\u{2025}', '\u{2026}', '\u{fe52}',
    '\u{fe55}', '\u{fe68}', '\u{fe13}', '\u{fe30}', '\u{fe19}', '\u{2488}',
];

/// Characters that look like a separator or a dot (R4.10), whether or
/// not NFKC turns them into one.
const SEPARATOR_LOOKALIKES: &[char] = &[
    '\u{2215}', '\u{2044}', '\u{ff0f}', '\u{29f8}', '\u{29f5}', '\u{29f9}', '\u{2216}', '\u{ff3c}',
    '\u{fe68}', '\u{2571}', '\u{2572}', '\u{2024}', '\u{2025}', '\u{2026}', '\u{fe52}', '\u{ff0e}',
    '\u{3002}', '\u{ff61}', '\u{2e2e}', '\u{2e3c}', '\u{701}', '\u{702}', '\u{a4f8}', '\u{1362}',
];

const DEVICES: &[&str] = &[
    "CON",
    "PRN",
    "AUX",
    "NUL",
    "COM0",
    "COM1",
    "COM5",
    "COM9",
    "LPT0",
    "LPT3",
    "LPT9",
    "COM\u{b9}",
    "COM\u{b2}",
    "LPT\u{b3}",
    "CONIN$",
    "CONOUT$",
];

/// Where a hostile piece goes in the benign key.
#[derive(Debug, Clone)]
enum Place {
    /// Inside a segment, at a character boundary.
    Within(String),
    /// As a segment of its own, between two others or at either end.
    Segment(String),
    /// At the start of a segment.
    Prefix(String),
    /// At the end of a segment.
    Suffix(String),
    /// Instead of a segment.
    Replace(String),
    /// Enough segments appended for the key to exceed 1,024 bytes.
    LongKey(usize),
}

/// A hostile piece, where it goes, and the reasons that may name it.
#[derive(Debug, Clone)]
struct Hostile {
    place: Place,
    reasons: &'static [KeyReason],
}

fn hostile(place: Place, reasons: &'static [KeyReason]) -> Hostile {
    Hostile { place, reasons }
}

/// `s` with its ASCII letters in the case `upper` says, letter by letter.
fn recase(s: &str, upper: &[bool]) -> String {
    s.chars()
        .zip(upper.iter().cycle())
        .map(|(c, &u)| {
            if u {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

fn traversal() -> impl Strategy<Value = Hostile> {
    const REASONS: &[KeyReason] = &[
        DotDotSegment,
        DotSegment,
        EmptySegment,
        Absolute,
        Unc,
        Backslash,
        DriveLetter,
        Colon,
    ];
    prop_oneof![
        select(vec!["..", ".", ""]).prop_map(|s| Place::Segment(s.to_owned())),
        select(vec!["\\", "/../", "..\\", "\\..\\"]).prop_map(|s| Place::Within(s.to_owned())),
        select(vec!["/", "//", "\\\\", "C:", "../", "./"])
            .prop_map(|s| Place::Prefix(s.to_owned())),
        select(vec!["/", "/..", "/."]).prop_map(|s| Place::Suffix(s.to_owned())),
    ]
    .prop_map(|place| hostile(place, REASONS))
}

fn percent_encoded() -> impl Strategy<Value = Hostile> {
    let template = select(vec![
        "%2e%2e%2f",
        "%2e%2e/",
        "..%2f",
        "..%5c",
        "%2e%2e%5c",
        "%2e",
        "%2f",
        "%5c",
        "%00",
        "%c0%ae",
    ]);
    (
        template,
        1..=3usize,
        prop::collection::vec(any::<bool>(), 1..8),
    )
        .prop_map(|(template, depth, upper)| {
            // Depth 2 turns `%2e` into `%252e`, depth 3 into `%25252e`.
            let escape = format!("%{}", "25".repeat(depth - 1));
            let piece = recase(&template.replace('%', &escape), &upper);
            hostile(Place::Within(piece), &[PercentEncoded])
        })
}

fn nfkc_lookalike() -> impl Strategy<Value = Hostile> {
    prop::collection::vec(select(NFKC_LOOKALIKES), 1..3)
        .prop_map(|cs| hostile(Place::Within(cs.into_iter().collect()), &[UnicodeLookalike]))
}

fn separator_lookalike() -> impl Strategy<Value = Hostile> {
    select(SEPARATOR_LOOKALIKES).prop_map(|c| {
        hostile(
            Place::Within(c.to_string()),
            &[SeparatorLookalike, UnicodeLookalike],
        )
    })
}

fn format_character() -> impl Strategy<Value = Hostile> {
    select(CF)
        .prop_flat_map(|(lo, hi)| proptest::char::range(lo, hi))
        .prop_map(|c| hostile(Place::Within(c.to_string()), &[FormatCharacter]))
}

fn control_character() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        proptest::char::range('\0', '\u{1f}'),
        proptest::char::range('\u{7f}', '\u{9f}'),
    ]
    .prop_map(|c| hostile(Place::Within(c.to_string()), &[NulByte, ControlCharacter]))
}

fn hidden_segment() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        select(vec![".", ".."]).prop_map(|s| Place::Prefix(s.to_owned())),
        select(vec![
            ".git",
            ".conflicts",
            ".sync-state.json",
            ".DS_Store",
            "..."
        ])
        .prop_map(|s| Place::Segment(s.to_owned())),
    ]
    .prop_map(|place| hostile(place, &[HiddenSegment]))
}

fn trailing_dot_or_space() -> impl Strategy<Value = Hostile> {
    select(vec![".", " ", "..", " .", ". ", "  "])
        .prop_map(|s| hostile(Place::Suffix(s.to_owned()), &[TrailingDotOrSpace]))
}

fn colon() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        select(vec![":", "::$DATA", ":Zone.Identifier"]).prop_map(|s| Place::Within(s.to_owned())),
        Just(Place::Suffix(":stream".to_owned())),
    ]
    .prop_map(|place| hostile(place, &[Colon, DriveLetter]))
}

fn device_name() -> impl Strategy<Value = Hostile> {
    (
        select(DEVICES),
        prop::collection::vec(any::<bool>(), 1..8),
        0..3usize,
        select(vec!["", ".md", ".txt", ".tar.gz", ".json", ". notes"]),
        any::<bool>(),
    )
        .prop_map(|(name, upper, spaces, ext, replace)| {
            let name = format!("{}{}{ext}", recase(name, &upper), " ".repeat(spaces));
            let place = if replace {
                Place::Replace(name)
            } else {
                Place::Segment(name)
            };
            hostile(place, &[ReservedName])
        })
}

fn overlong() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        (256..400usize).prop_map(|n| Place::Replace("a".repeat(n))),
        (86..120usize).prop_map(|n| Place::Replace("規".repeat(n))),
        (0..200usize).prop_map(Place::LongKey),
    ]
    .prop_map(|place| hostile(place, &[TooLong, KeyTooLong]))
}

fn any_hostile() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        traversal(),
        percent_encoded(),
        nfkc_lookalike(),
        separator_lookalike(),
        format_character(),
        control_character(),
        hidden_segment(),
        trailing_dot_or_space(),
        colon(),
        device_name(),
        overlong(),
    ]
}

/// Whether a segment is a Windows device name, alone or as its stem.
fn is_device(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or_default();
    let stem = stem.trim_end_matches(' ').to_ascii_uppercase();
    DEVICES.contains(&stem.as_str())
        || ["COM", "LPT"].iter().any(|p| {
            stem.strip_prefix(p)
                .is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit())
        })
}

/// A portable segment: words of letters, digits, CJK, Hangul, accented
/// Latin, `-` and `_` (spaces inside a word), joined by single dots, so
/// that it neither starts with a dot nor ends with a dot or a space.
fn benign_segment() -> impl Strategy<Value = String> {
    let word = "[A-Za-z0-9_éüñ가-힣一-龥ぁ-ゖ-]([A-Za-z0-9_éüñ가-힣一-龥ぁ-ゖ -]{0,8}[A-Za-z0-9_éüñ가-힣一-龥ぁ-ゖ-])?";
    prop::collection::vec(word, 1..4)
        .prop_map(|words| words.join("."))
        .prop_filter("not a device name", |s| !is_device(s))
}

/// A portable key of one to four segments, sometimes in NFD.
fn benign_key() -> impl Strategy<Value = String> {
    (prop::collection::vec(benign_segment(), 1..5), any::<bool>()).prop_map(|(segments, nfd)| {
        let key = segments.join("/");
        if nfd { key.nfd().collect() } else { key }
    })
}

/// `segments` with the hostile piece put where `at` and `within` say.
fn insert(mut segments: Vec<String>, place: &Place, at: Index, within: Index) -> String {
    let i = at.index(segments.len());
    match place {
        Place::Within(piece) => {
            let segment = &mut segments[i];
            let boundaries: Vec<usize> = segment
                .char_indices()
                .map(|(b, _)| b)
                .chain([segment.len()])
                .collect();
            segment.insert_str(boundaries[within.index(boundaries.len())], piece);
        }
        Place::Segment(piece) => segments.insert(at.index(segments.len() + 1), piece.clone()),
        Place::Prefix(piece) => segments[i].insert_str(0, piece),
        Place::Suffix(piece) => segments[i].push_str(piece),
        Place::Replace(piece) => segments[i].clone_from(piece),
        Place::LongKey(extra) => {
            while segments.iter().map(|s| s.len() + 1).sum::<usize>() <= 1025 + extra {
                segments.push("abcdefghij".to_owned());
            }
        }
    }
    segments.join("/")
}

proptest! {
    #[test]
    fn a_key_with_any_hostile_piece_is_refused_for_its_reason(
        segments in prop::collection::vec(benign_segment(), 1..5),
        piece in any_hostile(),
        at in any::<Index>(),
        within in any::<Index>(),
    ) {
        let key = insert(segments, &piece.place, at, within);
        match validate_team_mem_key_text(&key) {
            Ok(nfc) => prop_assert!(false, "{key:?} was accepted as {nfc:?}"),
            Err(e) => {
                prop_assert!(
                    piece.reasons.contains(&e.reason),
                    "{key:?}: {:?}, expected one of {:?}", e.reason, piece.reasons
                );
                prop_assert_eq!(e.input, key);
            }
        }
    }

    #[test]
    fn a_portable_key_is_accepted_in_nfc(key in benign_key()) {
        let nfc: String = key.nfc().collect();
        let got = validate_team_mem_key_text(&key);
        prop_assert_eq!(got.as_deref().map_err(|e| e.reason), Ok(nfc.as_str()));
        prop_assert!(unicode_normalization::is_nfc(&nfc));
        // The canonical spelling validates to itself.
        let again = validate_team_mem_key_text(&nfc).ok();
        prop_assert_eq!(again.as_deref(), Some(nfc.as_str()));
    }

    #[test]
    fn the_text_rules_never_panic(key in any::<String>()) {
        if let Ok(nfc) = validate_team_mem_key_text(&key) {
            prop_assert!(unicode_normalization::is_nfc(&nfc));
            prop_assert!(nfc.len() <= 1024);
            prop_assert!(!nfc.split('/').any(|s| s.is_empty() || s.starts_with('.')));
        }
    }
}
