//! The text rules of a team-memory key (SPEC R4.10), without the file
//! system: one implementation for the client, which writes keys as files,
//! and for the team server, which stores them for every member's machine.
//! (`memdir-paths` adds the physical checks of a key joined with a team
//! folder on top of these.)
//!
//! The rules run in a fixed order so that each key gets the most specific
//! reason, and a key that both escapes and is merely unportable is
//! reported as escaping:
//!
//! 1. characters, literal before disguised: NUL, then other control
//!    characters (Cc), then format characters (Cf), then percent-escapes,
//!    then NFKC look-alikes (the character *becomes* `.`, `/`, `\` or `:`
//!    under NFKC, the stronger claim), then separator look-alikes (it only
//!    looks like one);
//! 2. the shape of the whole key: UNC, backslash, absolute, drive letter;
//! 3. traversal segments: empty, `.`, `..`;
//! 4. portability: `:` anywhere, hidden segments, Windows device names
//!    (before trailing dots and spaces, since `CON.` and `CON ` are how a
//!    device name is disguised), trailing dots and spaces;
//! 5. lengths, the least specific rule of all, in bytes of the NFC form:
//!    a segment over 255 bytes, then the key over 1,024 bytes.

use unicode_normalization::UnicodeNormalization;

use std::fmt;

/// The longest segment of a key, in bytes of its NFC form, that every
/// common file system stores.
pub const MAX_SEGMENT_BYTES: usize = 255;

/// The longest key, in bytes of its NFC form: long enough for deep
/// folders, short enough to stay under Windows' and macOS' path limits
/// once joined with a team folder.
pub const MAX_KEY_BYTES: usize = 1024;

/// A team-memory key that breaks a text rule of R4.10.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path traversal rejected for {input:?}: {reason}")]
#[non_exhaustive]
pub struct KeyError {
    /// The key as given.
    pub input: String,
    /// The rule it broke.
    pub reason: KeyReason,
}

/// The text rule a team-memory key broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyReason {
    /// The key is empty.
    Empty,
    /// The key holds a NUL byte.
    NulByte,
    /// The key holds another control character (Unicode Cc: line breaks,
    /// escapes).
    ControlCharacter,
    /// The key holds a Unicode format character (Cf): a bidi override or
    /// isolate, a zero-width character, a BOM, a soft hyphen, a tag
    /// character, …
    FormatCharacter,
    /// The key percent-encodes a path character (`.`, `/`, `\`, `%`, NUL),
    /// in any case or depth, or an invalid UTF-8 sequence.
    PercentEncoded,
    /// A character turns into `.`, `/`, `\` or `:` under NFKC normalisation
    /// (fullwidth `．／＼`, one- and two-dot leaders, …).
    UnicodeLookalike,
    /// A character looks like a path separator or a dot (division and
    /// fraction slashes, box-drawing diagonals, ideographic full stops, …)
    /// even though NFKC does not turn it into one.
    SeparatorLookalike,
    /// The key holds a backslash.
    Backslash,
    /// The key is absolute (`/x`).
    Absolute,
    /// The key starts with a Windows drive (`C:x`).
    DriveLetter,
    /// The key is a UNC path (`\\server`, `//server`).
    Unc,
    /// The key has an empty segment (`a//b`, a trailing `/`).
    EmptySegment,
    /// The key has a `.` segment.
    DotSegment,
    /// The key has a `..` segment.
    DotDotSegment,
    /// A segment starts with `.` (hidden: `.git/…`, memdir's own
    /// `.conflicts/` and state files).
    HiddenSegment,
    /// A segment ends with `.` or a space, which Windows drops.
    TrailingDotOrSpace,
    /// The key holds a `:` (an NTFS stream) other than a leading drive.
    Colon,
    /// A segment, or its stem before the first `.`, is a Windows device
    /// name (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`,
    /// `CONIN$`, `CONOUT$`, in any case).
    ReservedName,
    /// A segment is longer than [`MAX_SEGMENT_BYTES`].
    TooLong,
    /// The key is longer than [`MAX_KEY_BYTES`].
    KeyTooLong,
}

impl fmt::Display for KeyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyReason::Empty => "the key is empty",
            KeyReason::NulByte => "the key contains a NUL byte",
            KeyReason::ControlCharacter => "the key contains a control character",
            KeyReason::FormatCharacter => {
                "the key contains an invisible format character (bidi control, zero-width, BOM)"
            }
            KeyReason::PercentEncoded => {
                "the key percent-encodes a path character (., /, \\, %, NUL) or invalid UTF-8"
            }
            KeyReason::UnicodeLookalike => {
                "the key contains a character that normalises (NFKC) to ., /, \\ or :"
            }
            KeyReason::SeparatorLookalike => {
                "the key contains a character that looks like a path separator or a dot"
            }
            KeyReason::Backslash => "the key contains a backslash",
            KeyReason::Absolute => "the key is an absolute path",
            KeyReason::DriveLetter => "the key starts with a drive letter",
            KeyReason::Unc => "the key is a UNC path",
            KeyReason::EmptySegment => "the key has an empty path segment",
            KeyReason::DotSegment => "the key has a '.' segment",
            KeyReason::DotDotSegment => "the key has a '..' segment",
            KeyReason::HiddenSegment => "a path segment starts with '.'",
            KeyReason::TrailingDotOrSpace => "a path segment ends with '.' or a space",
            KeyReason::Colon => "the key contains ':'",
            KeyReason::ReservedName => {
                "a path segment is a Windows device name (CON, NUL, COM1, ...)"
            }
            KeyReason::TooLong => "a path segment is longer than 255 bytes",
            KeyReason::KeyTooLong => "the key is longer than 1024 bytes",
        })
    }
}

impl KeyReason {
    /// A stable kebab-case identifier of the rule, for JSON output (the
    /// server's `invalid_key` answers carry it as `reason`).
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            KeyReason::Empty => "empty",
            KeyReason::NulByte => "nul-byte",
            KeyReason::ControlCharacter => "control-character",
            KeyReason::FormatCharacter => "format-character",
            KeyReason::PercentEncoded => "percent-encoded",
            KeyReason::UnicodeLookalike => "unicode-lookalike",
            KeyReason::SeparatorLookalike => "separator-lookalike",
            KeyReason::Backslash => "backslash",
            KeyReason::Absolute => "absolute",
            KeyReason::DriveLetter => "drive-letter",
            KeyReason::Unc => "unc",
            KeyReason::EmptySegment => "empty-segment",
            KeyReason::DotSegment => "dot-segment",
            KeyReason::DotDotSegment => "dot-dot-segment",
            KeyReason::HiddenSegment => "hidden-segment",
            KeyReason::TrailingDotOrSpace => "trailing-dot-or-space",
            KeyReason::Colon => "colon",
            KeyReason::ReservedName => "reserved-name",
            KeyReason::TooLong => "too-long",
            KeyReason::KeyTooLong => "key-too-long",
        }
    }
}

/// Characters that matter for paths: more of them after normalisation or
/// decoding than before means something was disguised.
const PATH_CHARS: [char; 4] = ['.', '/', '\\', ':'];

/// Unicode general category Cf (format characters), as of Unicode 15.1:
/// bidi embeddings, overrides, isolates and marks, zero-width characters,
/// the BOM, the soft hyphen, tag characters and the rest. They are
/// invisible or reorder what is shown, so two keys that look the same
/// could name different files. Sorted, inclusive, non-overlapping.
const FORMAT_CHARACTERS: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Characters that look like `/`, `\` or `.` (a dot leader, a full stop
/// drawn as a dot or a small circle) whether or not NFKC turns them into
/// one: mathematical and box-drawing slashes, fullwidth and small forms,
/// and the full stops of other scripts. Sorted, inclusive,
/// non-overlapping.
const SEPARATOR_LOOKALIKES: &[(char, char)] = &[
    ('\u{0701}', '\u{0702}'), // Syriac supralinear and sublinear full stops
    ('\u{1362}', '\u{1362}'), // Ethiopic full stop
    ('\u{1735}', '\u{1735}'), // Philippine single punctuation, a slash
    ('\u{2024}', '\u{2026}'), // one- and two-dot leaders, ellipsis
    ('\u{2044}', '\u{2044}'), // fraction slash
    ('\u{2215}', '\u{2216}'), // division slash, set minus
    ('\u{2571}', '\u{2572}'), // box-drawing diagonals
    ('\u{27CB}', '\u{27CB}'), // mathematical rising diagonal
    ('\u{27CD}', '\u{27CD}'), // mathematical falling diagonal
    ('\u{29F5}', '\u{29F5}'), // reverse solidus operator
    ('\u{29F8}', '\u{29F9}'), // big solidus, big reverse solidus
    ('\u{2E2E}', '\u{2E2E}'), // named by R4.10 among the dot leaders
    ('\u{2E3C}', '\u{2E3C}'), // stenographic full stop
    ('\u{3002}', '\u{3002}'), // ideographic full stop
    ('\u{A4F8}', '\u{A4F8}'), // Lisu tone mya ti, a dot on the baseline
    ('\u{FE12}', '\u{FE12}'), // vertical ideographic full stop
    ('\u{FE52}', '\u{FE52}'), // small full stop
    ('\u{FE68}', '\u{FE68}'), // small reverse solidus
    ('\u{FF0E}', '\u{FF0F}'), // fullwidth full stop and solidus
    ('\u{FF3C}', '\u{FF3C}'), // fullwidth reverse solidus
    ('\u{FF61}', '\u{FF61}'), // halfwidth ideographic full stop
];

// A table out of order would make the binary search miss characters:
// refuse to compile instead.
const _: () = assert!(sorted_ranges(FORMAT_CHARACTERS));
const _: () = assert!(sorted_ranges(SEPARATOR_LOOKALIKES));

const fn sorted_ranges(table: &[(char, char)]) -> bool {
    let mut i = 0;
    while i < table.len() {
        if table[i].0 as u32 > table[i].1 as u32 {
            return false;
        }
        if i > 0 && table[i - 1].1 as u32 >= table[i].0 as u32 {
            return false;
        }
        i += 1;
    }
    true
}

fn in_ranges(c: char, table: &[(char, char)]) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Whether `c` is a Unicode format character (general category Cf).
fn is_format(c: char) -> bool {
    in_ranges(c, FORMAT_CHARACTERS)
}

/// Checks a team-memory key against the text rules of R4.10, touching no
/// file system, and returns its canonical spelling (NFC).
///
/// This is the whole of R4.10 but the final join with a team folder:
/// `memdir_paths::validate_team_mem_key` runs it before the two-pass path
/// check, and the team server runs it alone. A key that
/// is not in NFC is normalised, never refused for that alone.
///
/// ```
/// use memdir_protocol::{validate_team_mem_key_text, KeyReason};
/// assert_eq!(validate_team_mem_key_text("規約/テスト.md")?, "規約/テスト.md");
/// assert_eq!(validate_team_mem_key_text("cafe\u{301}.md")?, "caf\u{e9}.md");
/// let err = validate_team_mem_key_text("notes/\u{202e}dm.exe").unwrap_err();
/// assert_eq!(err.reason, KeyReason::FormatCharacter);
/// let err = validate_team_mem_key_text("CON.md").unwrap_err();
/// assert_eq!(err.reason, KeyReason::ReservedName);
/// # Ok::<(), memdir_protocol::KeyError>(())
/// ```
pub fn validate_team_mem_key_text(key: &str) -> Result<String, KeyError> {
    let error = |reason| KeyError {
        input: key.to_owned(),
        reason,
    };
    check_text(key).map_err(error)?;
    let nfc = normalize_team_mem_key(key);
    // NFC composition creates no separators or dots, but it turns a few
    // singletons such as the Kelvin sign into ASCII, and the NFC form is
    // the one written: it must pass too. Lengths are judged on it alone,
    // so that a decomposed spelling is never refused for being longer.
    if nfc != key {
        check_text(&nfc).map_err(error)?;
    }
    check_lengths(&nfc).map_err(error)?;
    Ok(nfc)
}

/// The canonical spelling of a team-memory key: Unicode NFC. NFC and NFD
/// spellings of one name are two different files on Linux, so keys are
/// compared and written in NFC.
#[must_use]
pub fn normalize_team_mem_key(key: &str) -> String {
    key.nfc().collect()
}

/// The form under which two keys name one file on some member's machine:
/// equal folded forms are one file on a case-insensitive file system
/// (macOS and Windows by default), even where Linux keeps two.
///
/// The rule: the key in NFC; each character lowercased, the result
/// uppercased and that lowercased again (Unicode's full mappings, as
/// `char::to_lowercase` and `char::to_uppercase` give them); the result in
/// NFC again. Going through uppercase folds what lowercasing alone keeps
/// apart and a case-insensitive file system may not: final and medial
/// sigma (`ς`, `σ`), the long s and `s`, dotless `ı` and `i`, `ß`, `ẞ` and
/// `ss`, the ligature `ﬁ` and `fi`; the first lowercasing brings `ẞ` to
/// `ß` so that it goes on to `ss` too. The NFC steps fold the NFC and NFD
/// spellings of one name, which macOS also stores as one file. It may
/// fold a little more than a given file system does (`ß` and `ss` are two
/// files on NTFS); it is meant never to fold less, so that keys with
/// different folded forms are different files on every machine.
///
/// The server refuses a new key whose folded form is that of another key
/// of the repository (`ErrorCode::KeyCollision`); a client writes one key
/// of each folded form.
///
/// ```
/// use memdir_protocol::fold_team_mem_key;
/// assert_eq!(fold_team_mem_key("Deploy.md"), fold_team_mem_key("deploy.md"));
/// assert_eq!(fold_team_mem_key("MEMORY.md"), "memory.md");
/// assert_eq!(fold_team_mem_key("cafe\u{301}.md"), fold_team_mem_key("CAF\u{c9}.md"));
/// assert_ne!(fold_team_mem_key("notes/a.md"), fold_team_mem_key("notes/b.md"));
/// ```
#[must_use]
pub fn fold_team_mem_key(key: &str) -> String {
    key.nfc()
        .flat_map(char::to_lowercase)
        .flat_map(char::to_uppercase)
        .flat_map(char::to_lowercase)
        .nfc()
        .collect()
}

/// Every rule but the lengths, in the order of the module documentation.
fn check_text(key: &str) -> Result<(), KeyReason> {
    if key.is_empty() {
        return Err(KeyReason::Empty);
    }
    check_characters(key)?;
    check_shape(key)?;
    let segments = || key.split('/');
    for segment in segments() {
        match segment {
            "" => return Err(KeyReason::EmptySegment),
            "." => return Err(KeyReason::DotSegment),
            ".." => return Err(KeyReason::DotDotSegment),
            _ => {}
        }
    }
    if key.contains(':') {
        return Err(KeyReason::Colon);
    }
    if segments().any(|s| s.starts_with('.')) {
        return Err(KeyReason::HiddenSegment);
    }
    if segments().any(is_reserved_name) {
        return Err(KeyReason::ReservedName);
    }
    if segments().any(|s| s.ends_with(['.', ' '])) {
        return Err(KeyReason::TrailingDotOrSpace);
    }
    Ok(())
}

/// Step 5: the lengths, in bytes of the NFC form.
fn check_lengths(key: &str) -> Result<(), KeyReason> {
    if key.split('/').any(|s| s.len() > MAX_SEGMENT_BYTES) {
        return Err(KeyReason::TooLong);
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(KeyReason::KeyTooLong);
    }
    Ok(())
}

/// Step 1: characters, literal ones before disguised ones.
fn check_characters(key: &str) -> Result<(), KeyReason> {
    if key.contains('\0') {
        return Err(KeyReason::NulByte);
    }
    if key.chars().any(char::is_control) {
        return Err(KeyReason::ControlCharacter);
    }
    if key.chars().any(is_format) {
        return Err(KeyReason::FormatCharacter);
    }
    check_percent_encoding(key)?;
    check_lookalikes(key)
}

/// Step 2: the shape of the whole key.
fn check_shape(key: &str) -> Result<(), KeyReason> {
    if key.starts_with("\\\\") || key.starts_with("//") {
        return Err(KeyReason::Unc);
    }
    if key.contains('\\') {
        return Err(KeyReason::Backslash);
    }
    if key.starts_with('/') {
        return Err(KeyReason::Absolute);
    }
    let b = key.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Err(KeyReason::DriveLetter);
    }
    Ok(())
}

/// Whether a segment names a Windows device, alone or as its stem: the
/// part before the first `.`, trailing spaces ignored, as Windows reads
/// it (`con.md`, `CON .txt`, `Com1.tar.gz`). `con-notes.md`, `console.md`
/// and `COM10.md` are ordinary names.
fn is_reserved_name(segment: &str) -> bool {
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .trim_end_matches(' ')
        .to_ascii_uppercase();
    match stem.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        s => ["COM", "LPT"].iter().any(|prefix| {
            s.strip_prefix(prefix).is_some_and(|n| {
                let mut chars = n.chars();
                // Windows also reserves the superscript digits ¹²³.
                matches!(
                    (chars.next(), chars.next()),
                    (Some('0'..='9' | '\u{B9}' | '\u{B2}' | '\u{B3}'), None)
                )
            })
        }),
    }
}

/// Rejects percent-escapes of path characters at any depth (`%2e`,
/// `%2F`, `%5c`, `%00`, and `%25`, which is how deeper encodings begin),
/// IIS-style `%uXXXX` escapes, and escapes that decode to invalid UTF-8
/// (overlong forms such as `%c0%ae`). What the escapes decode to must also
/// pass the character rules: no control or format character, no
/// look-alike.
fn check_percent_encoding(key: &str) -> Result<(), KeyReason> {
    let bytes = key.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'%' {
            continue;
        }
        let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
        if hex(i + 1) && hex(i + 2) {
            let value = u8::from_str_radix(&key[i + 1..i + 3], 16).expect("two hex digits");
            if matches!(value, 0 | b'.' | b'/' | b'\\' | b'%') {
                return Err(KeyReason::PercentEncoded);
            }
        }
        if matches!(bytes.get(i + 1), Some(b'u' | b'U')) && (2..6).all(|k| hex(i + k)) {
            return Err(KeyReason::PercentEncoded);
        }
    }
    let decoded = percent_encoding::percent_decode_str(key).collect::<Vec<u8>>();
    match String::from_utf8(decoded) {
        Ok(decoded) if decoded != key => {
            check_lookalikes(&decoded)?;
            if decoded.chars().any(|c| c.is_control() || is_format(c)) {
                return Err(KeyReason::PercentEncoded);
            }
            Ok(())
        }
        Ok(_) => Ok(()),
        Err(_) => Err(KeyReason::PercentEncoded),
    }
}

/// Rejects a key in which NFKC normalisation produces path characters that
/// were not there (fullwidth `．／＼：`, the one- and two-dot leaders, the
/// ellipsis, small full stops and the like), then one that holds a
/// character from [`SEPARATOR_LOOKALIKES`].
fn check_lookalikes(key: &str) -> Result<(), KeyReason> {
    if key.is_ascii() {
        return Ok(());
    }
    let normalized: String = key.nfkc().collect();
    let count = |s: &str, c: char| s.chars().filter(|&x| x == c).count();
    if PATH_CHARS
        .iter()
        .any(|&c| count(&normalized, c) > count(key, c))
    {
        return Err(KeyReason::UnicodeLookalike);
    }
    if key.chars().any(|c| in_ranges(c, SEPARATOR_LOOKALIKES)) {
        return Err(KeyReason::SeparatorLookalike);
    }
    Ok(())
}
