//! The texts one sequence of bytes is read as, for [`crate::content`]:
//! UTF-16 and single-byte text decoded to UTF-8, and the printable runs of
//! anything else (as `strings` finds them, in 8-bit and UTF-16 code
//! units). Each text comes with a way back from its offsets to those of
//! the bytes.

/// The fewest characters a printable run has, as `strings` counts them by
/// default: shorter runs in binary data are mostly chance.
pub(crate) const MIN_RUN: usize = 4;

/// How many bytes of the start decide whether bytes without a byte-order
/// mark are UTF-16.
const UTF16_SNIFF: usize = 4096;

/// The byte order of UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endian {
    Little,
    Big,
}

impl Endian {
    fn unit(self, pair: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(pair),
            Endian::Big => u16::from_be_bytes(pair),
        }
    }

    /// Where, in a code unit's two bytes, an ASCII character's byte is.
    fn low(self) -> usize {
        match self {
            Endian::Little => 0,
            Endian::Big => 1,
        }
    }
}

/// Whether `bytes` are UTF-16 text: a byte-order mark, or else, in the
/// start, NUL in at least half of the code units' high bytes and in at
/// most one in eight of their low bytes (ASCII and Latin-1 characters in
/// UTF-16 have a NUL high byte; binary data rarely has this pattern, and
/// NUL runs put NULs in both halves).
pub(crate) fn utf16_endian(bytes: &[u8]) -> Option<Endian> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some(Endian::Little),
        [0xFE, 0xFF, ..] => return Some(Endian::Big),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(UTF16_SNIFF)];
    let units = head.len() / 2;
    if units < 2 {
        return None;
    }
    let (mut even, mut odd) = (0, 0);
    for pair in head.chunks_exact(2) {
        even += usize::from(pair[0] == 0);
        odd += usize::from(pair[1] == 0);
    }
    let looks = |high: usize, low: usize| 2 * high >= units && 8 * low <= units;
    if looks(odd, even) {
        Some(Endian::Little)
    } else if looks(even, odd) {
        Some(Endian::Big)
    } else {
        None
    }
}

/// The characters of UTF-16 bytes, each with how many bytes it takes (a
/// byte-order mark is U+FEFF, as it is); an unpaired surrogate or a last
/// odd byte is U+FFFD.
pub(crate) fn utf16_chars(bytes: &[u8], endian: Endian) -> impl Iterator<Item = (char, usize)> {
    let pairs = bytes.chunks_exact(2);
    let odd = pairs.remainder().len();
    let units = pairs.map(move |p| endian.unit([p[0], p[1]]));
    char::decode_utf16(units)
        .map(|c| c.map_or((char::REPLACEMENT_CHARACTER, 2), |c| (c, 2 * c.len_utf16())))
        .chain((odd > 0).then_some((char::REPLACEMENT_CHARACTER, odd)))
}

/// The characters of single-byte text read as Windows-1252: Latin-1 for
/// every byte but 0x80–0x9F, where Windows-1252 has its punctuation and
/// letters (the five bytes it leaves undefined stay C1 controls).
pub(crate) fn single_byte_chars(bytes: &[u8]) -> impl Iterator<Item = (char, usize)> {
    bytes.iter().map(|&b| (windows_1252(b), 1))
}

/// The Windows-1252 character of a byte.
fn windows_1252(byte: u8) -> char {
    /// 0x80–0x9F.
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9F => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

/// The text of decoded characters.
pub(crate) fn decode<I: Iterator<Item = (char, usize)>>(chars: I) -> String {
    chars.map(|(c, _)| c).collect()
}

/// For each of `wanted` (offsets into the text `chars` decode to, sorted,
/// deduplicated), the offsets in the bytes they were decoded from: where
/// the character holding the offset starts (for the start of a span), and
/// where the character ends unless the offset is where it starts (for the
/// end of one). An offset at the end of the text maps to the end of the
/// bytes.
pub(crate) fn source_offsets<I: Iterator<Item = (char, usize)>>(
    chars: I,
    wanted: &[usize],
) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(wanted.len());
    let (mut text, mut source) = (0, 0);
    for (c, len) in chars {
        if out.len() == wanted.len() {
            break;
        }
        let next = text + c.len_utf8();
        while let Some(&w) = wanted.get(out.len()).filter(|&&w| w < next) {
            out.push(if w == text {
                (source, source)
            } else {
                (source, source + len)
            });
        }
        text = next;
        source += len;
    }
    out.resize(wanted.len(), (source, source));
    out
}

/// The ASCII bytes that belong in a printable run: graphic characters,
/// the space, and the tab, line feed, vertical tab, form feed and carriage
/// return (so that lines stay lines, and a key block keeps its shape).
const PRINTABLE_ASCII: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x7F {
        table[b] = true;
        b += 1;
    }
    let mut b = 0x09;
    while b <= 0x0D {
        table[b] = true;
        b += 1;
    }
    table
};

/// The length of the valid UTF-8 sequence of a non-ASCII character that
/// is not a control character (U+0080–U+009F) at the start of `bytes`;
/// 0 when there is none.
#[inline]
fn utf8_width(bytes: &[u8]) -> usize {
    let within = |k: usize, lo: u8, hi: u8| bytes.get(k).is_some_and(|b| (lo..=hi).contains(b));
    let tail = |from: usize, to: usize| (from..to).all(|k| within(k, 0x80, 0xBF));
    let ok = match bytes[0] {
        // 0xC2 0x80–0x9F are the C1 controls.
        0xC2 => within(1, 0xA0, 0xBF),
        0xC3..=0xDF => tail(1, 2),
        0xE0 => within(1, 0xA0, 0xBF) && tail(2, 3),
        0xED => within(1, 0x80, 0x9F) && tail(2, 3),
        0xE1..=0xEC | 0xEE..=0xEF => tail(1, 3),
        0xF0 => within(1, 0x90, 0xBF) && tail(2, 4),
        0xF1..=0xF3 => tail(1, 4),
        0xF4 => within(1, 0x80, 0x8F) && tail(2, 4),
        _ => return 0,
    };
    match (ok, bytes[0]) {
        (false, _) => 0,
        (true, 0xC2..=0xDF) => 2,
        (true, 0xE0..=0xEF) => 3,
        (true, _) => 4,
    }
}

/// `bytes` with everything outside runs of at least [`MIN_RUN`] printable
/// characters (ASCII and valid UTF-8, not control characters but for
/// whitespace) replaced by line feeds: the text `strings` would find, at
/// the offsets it has in `bytes`, and UTF-8.
pub(crate) fn printable_runs(bytes: &[u8]) -> Vec<u8> {
    // Copied whole, then each byte outside a long enough run blanked:
    // most bytes of binary data are blanked, but copying is cheap and the
    // loop then writes only where a run ends.
    let mut out = bytes.to_vec();
    let (mut i, mut start, mut chars) = (0, 0, 0);
    while let Some(&b) = bytes.get(i) {
        let width = if PRINTABLE_ASCII[usize::from(b)] {
            1
        } else if b >= 0xC2 {
            utf8_width(&bytes[i..])
        } else {
            0
        };
        if width > 0 {
            i += width;
            chars += 1;
            continue;
        }
        // `b` ends the run: it goes, and the run too when it is short
        // (mostly there is none: binary bytes come in stretches).
        if chars >= MIN_RUN || start == i {
            out[i] = b'\n';
        } else {
            out[start..=i].fill(b'\n');
        }
        i += 1;
        start = i;
        chars = 0;
    }
    if chars < MIN_RUN {
        out[start..].fill(b'\n');
    }
    out
}

/// One run of UTF-16 code units found among other bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    /// Where its text starts in the joined text.
    text: usize,
    /// Where its first code unit starts in the bytes.
    source: usize,
    /// Its characters (each one byte of text, two of source).
    len: usize,
}

/// The runs of at least [`MIN_RUN`] printable ASCII characters written as
/// UTF-16 code units (`strings -e l` or `-e b`), starting at any offset,
/// joined by line feeds; and the runs, to map offsets back.
pub(crate) fn utf16_runs(bytes: &[u8], endian: Endian) -> (Vec<u8>, Vec<Run>) {
    let (low, high) = (endian.low(), 1 - endian.low());
    // A code unit of a run: a NUL and a printable byte but for the
    // vertical tab and form feed (which UTF-16 strings do not hold).
    let is_char = |i: usize| {
        let c = bytes[i + low];
        bytes[i + high] == 0 && PRINTABLE_ASCII[usize::from(c)] && !matches!(c, 0x0B | 0x0C)
    };
    // A unit that is a run's character cannot overlap one of a run at the
    // other parity (its NUL would have to be printable), so the runs of
    // both parities are disjoint; they are put in order after.
    let mut found: Vec<(usize, usize)> = Vec::new();
    for parity in 0..2 {
        let mut i = parity;
        let mut start = i;
        while i + 1 < bytes.len() {
            if !is_char(i) {
                if (i - start) / 2 >= MIN_RUN {
                    found.push((start, (i - start) / 2));
                }
                start = i + 2;
            }
            i += 2;
        }
        if (i - start) / 2 >= MIN_RUN {
            found.push((start, (i - start) / 2));
        }
    }
    found.sort_unstable();
    let mut text = Vec::new();
    let mut runs = Vec::with_capacity(found.len());
    for (source, len) in found {
        if !text.is_empty() {
            text.push(b'\n');
        }
        runs.push(Run {
            text: text.len(),
            source,
            len,
        });
        text.extend((0..len).map(|k| bytes[source + 2 * k + low]));
    }
    (text, runs)
}

/// The offset in the bytes of offset `at` of the text [`utf16_runs`]
/// joined: within a run, its code unit; on the line feed after a run, the
/// run's end.
pub(crate) fn run_source(runs: &[Run], at: usize) -> usize {
    let i = runs.partition_point(|r| r.text <= at).saturating_sub(1);
    runs.get(i)
        .map_or(0, |r| r.source + 2 * at.saturating_sub(r.text).min(r.len))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn utf16(text: &str, endian: Endian) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| match endian {
                Endian::Little => u.to_le_bytes(),
                Endian::Big => u.to_be_bytes(),
            })
            .collect()
    }

    #[test]
    fn utf16_is_told_by_its_mark_or_its_nul_bytes() {
        assert_eq!(utf16_endian(b"\xff\xfeh\0"), Some(Endian::Little));
        assert_eq!(utf16_endian(b"\xfe\xff\0h"), Some(Endian::Big));
        let le = utf16("key = value\r\n", Endian::Little);
        assert_eq!(utf16_endian(&le), Some(Endian::Little));
        let be = utf16("key = value\r\n", Endian::Big);
        assert_eq!(utf16_endian(&be), Some(Endian::Big));
        // Text, NUL runs, a NUL-first file, too little to tell.
        assert_eq!(utf16_endian(b"key = value"), None);
        assert_eq!(utf16_endian(&[0; 64]), None);
        assert_eq!(utf16_endian(b"\0token: value\n"), None);
        assert_eq!(utf16_endian(b"a\0"), None);
    }

    #[test]
    fn utf16_decodes_with_each_characters_width() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(utf16("a€😀", Endian::Little));
        bytes.extend_from_slice(&[0x00, 0xD8, b'b', 0]); // a lone surrogate
        bytes.push(b'!'); // an odd last byte
        let chars: Vec<(char, usize)> = utf16_chars(&bytes, Endian::Little).collect();
        assert_eq!(
            chars,
            [
                ('\u{FEFF}', 2),
                ('a', 2),
                ('€', 2),
                ('😀', 4),
                ('\u{FFFD}', 2),
                ('b', 2),
                ('\u{FFFD}', 1)
            ]
        );
        let text = decode(utf16_chars(&bytes, Endian::Little));
        let b = text.find('b').unwrap();
        let euro = text.find('€').unwrap();
        // The start of `b`, the middle of `€`, the end of the text.
        let wanted = [euro, euro + 1, b, text.len()];
        assert_eq!(
            source_offsets(utf16_chars(&bytes, Endian::Little), &wanted),
            [(4, 4), (4, 6), (12, 12), (15, 15)]
        );
    }

    #[test]
    fn single_bytes_are_windows_1252() {
        let text = decode(single_byte_chars(b"caf\xe9 \x80 \x93x\x94 \x81"));
        assert_eq!(text, "café € “x” \u{81}");
    }

    #[test]
    fn printable_runs_keep_their_offsets_and_blank_the_rest() {
        let bytes = b"\x00\x01abc\x02name=value\x00\xff\xfe\t\xc3\xa9t\xc3\xa9\n\x7f";
        let runs = printable_runs(bytes);
        assert_eq!(runs.len(), bytes.len());
        assert_eq!(
            String::from_utf8(runs).unwrap(),
            "\n\n\n\n\n\nname=value\n\n\n\tété\n\n"
        );
    }

    #[test]
    fn utf16_runs_are_found_at_either_offset_and_map_back() {
        let mut bytes = vec![0x01, 0x02, 0x03];
        let first = bytes.len();
        bytes.extend(utf16("secret=1", Endian::Little));
        bytes.extend_from_slice(&[0xFF, 0xFF]);
        let second = bytes.len();
        bytes.extend(utf16("ab", Endian::Little)); // too short
        bytes.extend_from_slice(&[0xFF]);
        let third = bytes.len();
        bytes.extend(utf16("token", Endian::Little));
        let (text, runs) = utf16_runs(&bytes, Endian::Little);
        assert_eq!(text, b"secret=1\ntoken");
        assert_eq!(run_source(&runs, 0), first);
        assert_eq!(run_source(&runs, 7), first + 14);
        assert_eq!(run_source(&runs, 8), first + 16);
        assert_eq!(run_source(&runs, 9), third);
        assert_eq!(run_source(&runs, 14), third + 10);
        assert!(second < third);
        let (text, _) = utf16_runs(&utf16("big-endian", Endian::Big), Endian::Big);
        assert_eq!(text, b"big-endian");
    }

    proptest! {
        #[test]
        fn decoded_offsets_map_back_to_the_characters_they_came_from(
            text in "\\PC{0,40}",
            big in any::<bool>(),
        ) {
            let endian = if big { Endian::Big } else { Endian::Little };
            let bytes = utf16(&text, endian);
            prop_assert_eq!(decode(utf16_chars(&bytes, endian)), text.clone());
            let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let mapped = source_offsets(utf16_chars(&bytes, endian), &starts);
            for ((i, c), (down, up)) in text.char_indices().zip(mapped) {
                prop_assert_eq!(down, up);
                prop_assert_eq!(down, 2 * text[..i].encode_utf16().count());
                let back: Vec<u16> = bytes[down..down + 2 * c.len_utf16()]
                    .chunks_exact(2)
                    .map(|p| endian.unit([p[0], p[1]]))
                    .collect();
                prop_assert_eq!(String::from_utf16(&back).unwrap(), c.to_string());
            }
        }

        #[test]
        fn printable_runs_are_utf8_of_the_same_length(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let runs = printable_runs(&bytes);
            prop_assert_eq!(runs.len(), bytes.len());
            prop_assert!(std::str::from_utf8(&runs).is_ok());
            for (a, b) in runs.iter().zip(&bytes) {
                prop_assert!(a == b || *a == b'\n');
            }
        }
    }
}
