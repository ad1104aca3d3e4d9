//! Scanning bytes however a file is written (`Scanner::scan_content`):
//! examples of each kind of file a secret can hide in, and properties
//! over secrets embedded in UTF-16, Latin-1 text and random binary bytes.
//! The number of cases comes from `PROPTEST_CASES` (default 256).

use memdir_secrets::{Compressed, ContentKind, ContentScan, Reading, Scanner};
use proptest::prelude::*;

use crate::properties::SECRET_LINES;

const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

fn scan(bytes: &[u8]) -> ContentScan {
    Scanner::builtin().scan_content(bytes, None)
}

/// The scan's kind and its findings as (rule, reading, line, secret
/// bytes).
fn check(bytes: &[u8], kind: ContentKind, want: &[(&str, Reading, usize, &[u8])]) {
    let scan = scan(bytes);
    assert_eq!(scan.kind, kind);
    let got: Vec<(&str, Reading, usize, &[u8])> = scan
        .findings
        .iter()
        .map(|f| {
            (
                f.rule_id.as_str(),
                f.reading,
                f.line,
                &bytes[f.start..f.end],
            )
        })
        .collect();
    assert_eq!(got, want);
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

#[test]
fn utf8_text_is_read_as_it_is_and_nothing_more() {
    let text = format!("# Résumé 报告\nGITHUB_TOKEN={TOKEN}\n");
    let scan = scan(text.as_bytes());
    assert_eq!(scan.readings, [Reading::Raw]);
    check(
        text.as_bytes(),
        ContentKind::Utf8,
        &[("github-pat", Reading::Raw, 2, TOKEN.as_bytes())],
    );
    let plain = Scanner::builtin().scan_bytes(text.as_bytes(), None);
    assert_eq!(plain.len(), 1);
    assert_eq!(
        (plain[0].start, plain[0].end),
        (scan.findings[0].start, scan.findings[0].end)
    );
}

#[test]
fn utf16_text_is_decoded_with_a_mark_or_without() {
    let text = format!("\u{feff}Notes\r\ntoken: {TOKEN}\r\n");
    for big in [false, true] {
        let bytes = utf16(&text, big);
        let (kind, reading) = if big {
            (ContentKind::Utf16Be, Reading::Utf16Be)
        } else {
            (ContentKind::Utf16Le, Reading::Utf16Le)
        };
        let secret = utf16(TOKEN, big);
        check(&bytes, kind, &[("github-pat", reading, 2, &secret)]);
        // Without the mark, by its NUL bytes.
        check(&bytes[2..], kind, &[("github-pat", reading, 2, &secret)]);
    }
}

#[test]
fn latin1_text_is_decoded_and_its_ascii_read_as_it_is() {
    let mut bytes = b"# caf\xe9 \x93quoted\x94\n".to_vec();
    bytes.extend_from_slice(format!("GITHUB_TOKEN={TOKEN}\n").as_bytes());
    check(
        &bytes,
        ContentKind::SingleByte,
        &[("github-pat", Reading::Raw, 2, TOKEN.as_bytes())],
    );
    assert_eq!(scan(&bytes).readings, [Reading::Raw, Reading::SingleByte]);
}

#[test]
fn a_look_around_rule_sees_latin1_text_once_it_is_decoded() {
    // A team's rule with look-behind runs on UTF-8 only: Latin-1 bytes
    // as they are never match it; decoded, they do.
    let scanner = Scanner::from_toml(
        r"
        [[rules]]
        id = 'internal-password'
        regex = '(?<=motdepasse=)[A-Za-z0-9]{12}'
        ",
    )
    .unwrap();
    let bytes = b"# r\xe9glages\nmotdepasse=Zq8vR2mK7xT4\n";
    assert!(scanner.scan_bytes(bytes, None).is_empty());
    let scan = scanner.scan_content(bytes, None);
    let found: Vec<(&str, Reading, &[u8])> = scan
        .findings
        .iter()
        .map(|f| (f.rule_id.as_str(), f.reading, &bytes[f.start..f.end]))
        .collect();
    assert_eq!(
        found,
        [(
            "internal-password",
            Reading::SingleByte,
            &b"Zq8vR2mK7xT4"[..]
        )]
    );
    assert_eq!(scan.findings[0].line, 2);
}

#[test]
fn a_nul_first_file_a_tar_a_database_and_a_string_table_are_read() {
    let line = format!("token: {TOKEN}\n");
    let mut nul_first = b"\0".to_vec();
    nul_first.extend_from_slice(line.as_bytes());
    check(
        &nul_first,
        ContentKind::Binary,
        &[("github-pat", Reading::Raw, 1, TOKEN.as_bytes())],
    );
    // A tar: a header of names and NUL padding, then the file as it is.
    let mut tar = vec![0u8; 512];
    tar[..11].copy_from_slice(b"config/.env");
    tar[257..263].copy_from_slice(b"ustar\0");
    tar.extend_from_slice(b"# settings\n");
    tar.extend_from_slice(line.as_bytes());
    tar.resize(2048, 0);
    check(
        &tar,
        ContentKind::Binary,
        &[("github-pat", Reading::Raw, 2, TOKEN.as_bytes())],
    );
    // A database page: records of length-prefixed fields, a token
    // touching binary bytes on both sides.
    let mut page = vec![0x0D, 0x00, 0x00, 0x00, 0x03, 0x0F, 0xA1];
    page.extend_from_slice(b"\x17\x1b\x01api_token");
    page.extend_from_slice(&[0x81, 0x29]);
    page.extend_from_slice(TOKEN.as_bytes());
    page.extend_from_slice(&[0x02, 0x00, 0xFF]);
    check(
        &page,
        ContentKind::Binary,
        &[("github-pat", Reading::Raw, 1, TOKEN.as_bytes())],
    );
    // An executable's string table: NUL-terminated strings.
    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0".to_vec();
    elf.extend_from_slice(b"\0.text\0.rodata\0");
    elf.extend_from_slice(format!("Bearer {TOKEN}\0").as_bytes());
    check(
        &elf,
        ContentKind::Binary,
        &[("github-pat", Reading::Raw, 1, TOKEN.as_bytes())],
    );
}

#[test]
fn a_marker_in_binary_data_does_not_spread_past_its_run() {
    // As they are, the bytes hold no line feed: a `gitleaks:allow` far
    // away on the same "line" lets the token go. Each printable run is its
    // own line, so the run without the marker still finds it.
    let mut bytes = format!("gitleaks:allow\0\x01\x02{TOKEN}\0").into_bytes();
    bytes.extend_from_slice(&[0xFF, 0x00]);
    assert!(Scanner::builtin().scan_bytes(&bytes, None).is_empty());
    check(
        &bytes,
        ContentKind::Binary,
        &[("github-pat", Reading::Strings, 1, TOKEN.as_bytes())],
    );
}

#[test]
fn utf16_strings_inside_binary_data_are_found_in_either_byte_order() {
    // Each byte order's runs are the other's one byte off, but for their
    // ends: a UTF-16BE token followed by printable bytes loses its last
    // character in the UTF-16LE runs, and only the UTF-16BE runs see it
    // whole.
    for (big, tail) in [
        (false, &[0u8, 0, 7, 0xFE][..]),
        (true, &[0x41, 0x42, 7][..]),
    ] {
        // An executable's header, then its resources.
        let mut bytes = vec![0x4D, 0x5A, 0x90, 0x00, 0x03, 0xFF, 0x00, 0x00, 0xB8];
        bytes.extend((1..=255u8).cycle().take(400));
        let at = bytes.len() + 2 * "ProductKey=".len();
        bytes.extend(utf16(&format!("ProductKey={TOKEN}"), big));
        bytes.extend_from_slice(tail);
        let scan = scan(&bytes);
        assert_eq!(scan.kind, ContentKind::Binary);
        assert_eq!(scan.findings.len(), 1, "{scan:?}");
        let f = &scan.findings[0];
        let want = if big {
            Reading::Utf16BeStrings
        } else {
            Reading::Utf16LeStrings
        };
        assert_eq!((f.rule_id.as_str(), f.reading), ("github-pat", want));
        // The span is the token's code units.
        assert_eq!((f.start, f.end), (at, at + 2 * TOKEN.len()));
    }
}

#[test]
fn compressed_data_is_named_and_what_shows_uncompressed_is_still_read() {
    let mut gzip = b"\x1f\x8b\x08\0\0\0\0\0\0\x03".to_vec();
    gzip.extend_from_slice(&[0x8D, 0x52, 0xCB, 0x6E, 0x13, 0x31]);
    assert_eq!(scan(&gzip).compressed, Some(Compressed::Gzip));
    assert!(scan(&gzip).findings.is_empty());
    // A zip's entry names are not compressed, nor are stored entries.
    let mut zip =
        b"PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0\0\0\x12\0\0\0\x12\0\0\0\x04\0\0\0".to_vec();
    zip.extend_from_slice(b".env");
    zip.extend_from_slice(format!("T={TOKEN}").as_bytes());
    let zipped = scan(&zip);
    assert_eq!(zipped.compressed, Some(Compressed::Zip));
    assert_eq!(zipped.findings.len(), 1);
    assert!(zipped.readings.contains(&Reading::Strings));
    assert_eq!(scan(b"\x89PNG\r\n\x1a\n\0\0").compressed, None);
}

#[test]
fn one_secret_found_by_several_readings_is_reported_once() {
    // UTF-16LE text: the decoding, the UTF-16LE runs and (one byte off)
    // the UTF-16BE runs all see the token.
    let bytes = utf16(&format!("\u{feff}k={TOKEN}"), false);
    let once = scan(&bytes);
    assert_eq!(once.findings.len(), 1, "{once:?}");
    assert_eq!(once.findings[0].reading, Reading::Utf16Le);
    // Two tokens are two findings.
    let two = utf16(&format!("\u{feff}a={TOKEN}\nb={TOKEN}"), false);
    let lines: Vec<usize> = scan(&two).findings.iter().map(|f| f.line).collect();
    assert_eq!(lines, [1, 2]);
}

/// Where each secret line lies in `bytes`, and the rule that finds it.
fn expected(line: &str) -> String {
    let alone = Scanner::builtin().scan(line);
    alone[0].rule_id.clone()
}

/// Whether `scan` holds a finding of `rule` overlapping `lo..hi`.
fn found_in(scan: &ContentScan, rule: &str, lo: usize, hi: usize) -> bool {
    scan.findings
        .iter()
        .any(|f| f.rule_id == rule && f.start < hi && lo < f.end && f.start < f.end)
}

/// Every finding lies in the bytes, and nothing shows a secret's text.
fn sound(scan: &ContentScan, bytes: &[u8]) -> Result<(), TestCaseError> {
    let shown = format!("{scan:?}");
    for line in SECRET_LINES {
        let secret = line.rsplit(['=', ' ', '"']).find(|s| s.len() > 12).unwrap();
        prop_assert!(!shown.contains(secret));
    }
    for f in &scan.findings {
        prop_assert!(f.start < f.end && f.end <= bytes.len(), "{:?}", f);
        prop_assert!(f.line >= 1);
    }
    Ok(())
}

fn clean_line() -> impl Strategy<Value = String> {
    "[a-zA-Z ,.()]{0,40}"
}

proptest! {
    #[test]
    fn a_secret_in_utf16_text_is_always_found(
        before in proptest::collection::vec(prop_oneof![clean_line(), "\\PC{0,20}"], 0..5),
        after in proptest::collection::vec(clean_line(), 0..3),
        secret in proptest::sample::select(SECRET_LINES),
        big in any::<bool>(),
        bom in any::<bool>(),
    ) {
        let head = format!("{}{}\n", if bom { "\u{feff}" } else { "" }, before.join("\n"));
        let text = format!("{head}{secret}\n{}", after.join("\n"));
        let bytes = utf16(&text, big);
        let lo = 2 * head.encode_utf16().count();
        let hi = lo + 2 * secret.encode_utf16().count();
        let scan = scan(&bytes);
        prop_assert!(found_in(&scan, &expected(secret), lo, hi), "{:?}", scan);
        sound(&scan, &bytes)?;
    }

    #[test]
    fn a_secret_in_latin1_text_is_always_found(
        before in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![0x20u8..0x7F, 0xA0u8..=0xFF], 0..40), 0..5),
        secret in proptest::sample::select(SECRET_LINES),
    ) {
        let mut bytes = before.join(&b'\n');
        bytes.push(b'\n');
        let lo = bytes.len();
        bytes.extend_from_slice(secret.as_bytes());
        let hi = bytes.len();
        bytes.extend_from_slice("\nfin \u{e9}t\u{e9}\n".as_bytes());
        let scan = scan(&bytes);
        prop_assert!(found_in(&scan, &expected(secret), lo, hi), "{:?}", scan);
        sound(&scan, &bytes)?;
    }

    #[test]
    fn a_secret_between_random_binary_bytes_is_always_found(
        before in proptest::collection::vec(any::<u8>(), 0..3000),
        after in proptest::collection::vec(any::<u8>(), 0..3000),
        secret in proptest::sample::select(SECRET_LINES),
        edges in proptest::sample::select(vec![(0u8, 0u8), (b'\n', 0), (0, b'\n'), (0xFF, 0x00)]),
        wide in any::<bool>(),
        big in any::<bool>(),
    ) {
        // The secret as 8-bit text or as UTF-16 code units, set off from
        // the noise by one byte on each side (a token glued to random
        // letters is another string).
        let mut bytes = before;
        bytes.push(edges.0);
        let lo = bytes.len();
        if wide {
            bytes.extend(utf16(secret, big));
        } else {
            bytes.extend_from_slice(secret.as_bytes());
        }
        let hi = bytes.len();
        bytes.push(edges.1);
        if wide {
            bytes.push(0);
        }
        bytes.extend(after);
        let scan = scan(&bytes);
        prop_assert!(found_in(&scan, &expected(secret), lo, hi), "{:?}", scan);
        sound(&scan, &bytes)?;
    }

    #[test]
    fn utf8_text_without_nul_is_scanned_as_scan_bytes_scans_it(text in "\\PC{0,200}") {
        prop_assume!(!text.contains('\0'));
        let scan = scan(text.as_bytes());
        let plain = Scanner::builtin().scan_bytes(text.as_bytes(), None);
        let spans: Vec<(usize, usize, &str)> =
            scan.findings.iter().map(|f| (f.start, f.end, f.rule_id.as_str())).collect();
        let want: Vec<(usize, usize, &str)> =
            plain.iter().map(|f| (f.start, f.end, f.rule_id.as_str())).collect();
        prop_assert_eq!(spans, want);
    }

    #[test]
    fn any_bytes_scan_without_panicking_and_within_bounds(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
    ) {
        let scan = scan(&bytes);
        sound(&scan, &bytes)?;
    }
}
