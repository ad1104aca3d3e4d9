//! Scanning bytes of any kind: a secret in a file is read however the file
//! is written. Text in UTF-16 or a single-byte encoding is decoded, and
//! the printable runs of anything else are scanned as `strings` would show
//! them, so that a token is found in a Windows text file, a Latin-1
//! `.env`, a database, an executable's strings or a tar archive alike.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::decode::{
    Endian, MIN_RUN, decode, printable_runs, run_source, single_byte_chars, source_offsets,
    utf16_chars, utf16_endian, utf16_runs,
};
use crate::packed::{Compressed, compressed};
use crate::{Scanner, SecretMatch};

/// The fewest characters a printable run of binary data has to be
/// scanned, as `strings` counts them by default.
pub const MIN_PRINTABLE_RUN: usize = MIN_RUN;

/// What scanned bytes were taken to be, which decides how they are read
/// (see [`Reading`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentKind {
    /// UTF-8 (or ASCII) text: valid UTF-8 without a NUL byte.
    Utf8,
    /// UTF-16 little-endian text: a byte-order mark `FF FE`, or NUL in
    /// most high bytes and few low bytes of the first code units.
    Utf16Le,
    /// UTF-16 big-endian text: a byte-order mark `FE FF`, or the NUL
    /// pattern the other way round.
    Utf16Be,
    /// Text in a single-byte encoding (Latin-1, Windows-1252 and their
    /// kin): not UTF-8, and no NUL byte.
    SingleByte,
    /// Anything else: bytes with a NUL that are not UTF-16 (an image, an
    /// executable, a database, an archive).
    Binary,
}

impl ContentKind {
    /// What `bytes` are.
    #[must_use]
    pub fn of(bytes: &[u8]) -> ContentKind {
        match utf16_endian(bytes) {
            Some(Endian::Little) => ContentKind::Utf16Le,
            Some(Endian::Big) => ContentKind::Utf16Be,
            None if memchr::memchr(0, bytes).is_some() => ContentKind::Binary,
            None if std::str::from_utf8(bytes).is_ok() => ContentKind::Utf8,
            None => ContentKind::SingleByte,
        }
    }

    /// The readings that bytes of this kind are scanned in, in order:
    /// always [`Reading::Raw`]; text in another encoding also decoded
    /// whole; UTF-16 text and binary data also as their printable runs,
    /// in 8-bit and both UTF-16 byte orders.
    #[must_use]
    pub fn readings(self) -> &'static [Reading] {
        const RUNS_AFTER_LE: &[Reading] = &[
            Reading::Raw,
            Reading::Utf16Le,
            Reading::Strings,
            Reading::Utf16LeStrings,
            Reading::Utf16BeStrings,
        ];
        const RUNS_AFTER_BE: &[Reading] = &[
            Reading::Raw,
            Reading::Utf16Be,
            Reading::Strings,
            Reading::Utf16LeStrings,
            Reading::Utf16BeStrings,
        ];
        match self {
            ContentKind::Utf8 => &[Reading::Raw],
            ContentKind::SingleByte => &[Reading::Raw, Reading::SingleByte],
            ContentKind::Utf16Le => RUNS_AFTER_LE,
            ContentKind::Utf16Be => RUNS_AFTER_BE,
            ContentKind::Binary => &[
                Reading::Raw,
                Reading::Strings,
                Reading::Utf16LeStrings,
                Reading::Utf16BeStrings,
            ],
        }
    }
}

impl fmt::Display for ContentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContentKind::Utf8 => "UTF-8 text",
            ContentKind::Utf16Le => "UTF-16LE text",
            ContentKind::Utf16Be => "UTF-16BE text",
            ContentKind::SingleByte => "single-byte text",
            ContentKind::Binary => "binary data",
        })
    }
}

/// One way of reading bytes as text for the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Reading {
    /// The bytes as they are. The rules match ASCII, so this reads UTF-8
    /// and ASCII text, the ASCII of single-byte text, and ASCII between
    /// binary bytes, with gitleaks' semantics.
    Raw,
    /// Decoded as UTF-16 little-endian.
    Utf16Le,
    /// Decoded as UTF-16 big-endian.
    Utf16Be,
    /// Decoded as Windows-1252 (Latin-1's characters, and the letters and
    /// punctuation Windows puts at 0x80–0x9F).
    SingleByte,
    /// The runs of at least [`MIN_PRINTABLE_RUN`] printable characters
    /// (ASCII or UTF-8, tabs and line breaks included), everything else
    /// blanked to line breaks, as `strings` finds them: each run is its
    /// own line, so nothing outside it can change what is found in it.
    Strings,
    /// The runs of printable ASCII written as UTF-16LE code units, at any
    /// offset (`strings -e l`), as Windows programs store strings.
    Utf16LeStrings,
    /// The same in UTF-16BE (`strings -e b`).
    Utf16BeStrings,
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reading::Raw => "as it is",
            Reading::Utf16Le => "as UTF-16LE text",
            Reading::Utf16Be => "as UTF-16BE text",
            Reading::SingleByte => "as Windows-1252 text",
            Reading::Strings => "in its printable runs",
            Reading::Utf16LeStrings => "in its UTF-16LE runs",
            Reading::Utf16BeStrings => "in its UTF-16BE runs",
        })
    }
}

/// A secret found in bytes. It holds where the secret is, never the
/// secret.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentMatch {
    /// Byte offset in the scanned bytes where the secret starts (in UTF-16
    /// text, its first code unit).
    pub start: usize,
    /// Byte offset just past the secret.
    pub end: usize,
    /// The rule that found it.
    pub rule_id: String,
    /// What the rule detects, in words.
    pub label: String,
    /// 1-based line on which it starts: in decoded text, the text's line;
    /// in the readings of runs, which see pieces of data that is not text,
    /// one more than the line-feed bytes before it.
    pub line: usize,
    /// The reading that found it (the first in [`ContentKind::readings`]
    /// order when several did).
    pub reading: Reading,
}

/// What a scan of bytes found, and how it read them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContentScan {
    /// What the bytes were taken to be.
    pub kind: ContentKind,
    /// The readings scanned, in order.
    pub readings: &'static [Reading],
    /// The compressed format the bytes are in, if any: the readings saw
    /// what it holds uncompressed (a zip's entry names and stored
    /// entries), never its compressed parts.
    pub compressed: Option<Compressed>,
    /// Every secret, once (findings of one rule whose spans overlap are
    /// one secret, found by the first reading that found it), in order of
    /// position.
    pub findings: Vec<ContentMatch>,
}

/// Scans `bytes` in every reading their kind calls for.
pub(crate) fn scan_content(scanner: &Scanner, bytes: &[u8], path: Option<&str>) -> ContentScan {
    let kind = ContentKind::of(bytes);
    let readings = kind.readings();
    let mut seen = Seen::default();
    let mut findings = Vec::new();
    for &reading in readings {
        for m in scan_reading(scanner, bytes, reading, path) {
            if seen.first(&m) {
                findings.push(m);
            }
        }
    }
    findings.sort();
    ContentScan {
        kind,
        readings,
        compressed: compressed(bytes),
        findings,
    }
}

/// The findings kept so far, by rule: disjoint spans, start to end.
///
/// Two readings can find one secret at spans that differ a little (a
/// decoded UTF-16 code unit includes its NUL byte, a run of the other byte
/// order starts one byte off), so a finding is the same as a kept one of
/// its rule when their spans overlap. A rule's matches never overlap
/// within one reading, so this never merges two secrets one reading found.
#[derive(Default)]
struct Seen(HashMap<String, BTreeMap<usize, usize>>);

impl Seen {
    /// Whether `m` is new, keeping it if so.
    fn first(&mut self, m: &ContentMatch) -> bool {
        let spans = self.0.entry(m.rule_id.clone()).or_default();
        let overlaps = spans
            .range(..m.end)
            .next_back()
            .is_some_and(|(_, &end)| end > m.start);
        if !overlaps {
            spans.insert(m.start, m.end);
        }
        !overlaps
    }
}

/// The findings of one reading, at offsets of `bytes`.
fn scan_reading(
    scanner: &Scanner,
    bytes: &[u8],
    reading: Reading,
    path: Option<&str>,
) -> Vec<ContentMatch> {
    let at = |m: SecretMatch, start: usize, end: usize, line: usize| ContentMatch {
        start,
        end,
        rule_id: m.rule_id,
        label: m.label,
        line,
        reading,
    };
    match reading {
        Reading::Raw => scanner
            .scan_bytes(bytes, path)
            .into_iter()
            .map(|m| {
                let (start, end, line) = (m.start, m.end, m.line);
                at(m, start, end, line)
            })
            .collect(),
        Reading::Utf16Le | Reading::Utf16Be | Reading::SingleByte => {
            let chars = || -> Box<dyn Iterator<Item = (char, usize)> + '_> {
                match reading {
                    Reading::Utf16Le => Box::new(utf16_chars(bytes, Endian::Little)),
                    Reading::Utf16Be => Box::new(utf16_chars(bytes, Endian::Big)),
                    _ => Box::new(single_byte_chars(bytes)),
                }
            };
            let text = decode(chars());
            let found = scanner.scan_bytes(text.as_bytes(), path);
            let mut wanted: Vec<usize> = found.iter().flat_map(|m| [m.start, m.end]).collect();
            wanted.sort_unstable();
            wanted.dedup();
            let mapped = source_offsets(chars(), &wanted);
            let source = |offset: usize| mapped[wanted.partition_point(|&w| w < offset)];
            found
                .into_iter()
                .map(|m| {
                    let (start, end, line) = (source(m.start).0, source(m.end).1, m.line);
                    at(m, start, end, line)
                })
                .collect()
        }
        Reading::Strings => {
            let runs = printable_runs(bytes);
            let mut lines = Lines::new(bytes);
            let mut found = scanner.scan_bytes(&runs, path);
            found.sort_by_key(|m| m.start);
            found
                .into_iter()
                .map(|m| {
                    let (start, end) = (m.start, m.end);
                    at(m, start, end, lines.at(start))
                })
                .collect()
        }
        Reading::Utf16LeStrings | Reading::Utf16BeStrings => {
            let endian = if reading == Reading::Utf16LeStrings {
                Endian::Little
            } else {
                Endian::Big
            };
            let (text, runs) = utf16_runs(bytes, endian);
            let mut lines = Lines::new(bytes);
            let mut found = scanner.scan_bytes(&text, path);
            found.sort_by_key(|m| m.start);
            found
                .into_iter()
                .map(|m| {
                    let start = run_source(&runs, m.start);
                    let end = run_source(&runs, m.end);
                    at(m, start, end, lines.at(start))
                })
                .collect()
        }
    }
}

/// Line numbers of offsets asked in increasing order, counted once.
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Lines {
            bytes,
            at: 0,
            line: 1,
        }
    }

    /// One more than the line feeds before `offset` (not before the last
    /// offset asked).
    fn at(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.bytes.len()).max(self.at);
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.at..offset]).count();
        self.at = offset;
        self.line
    }
}
