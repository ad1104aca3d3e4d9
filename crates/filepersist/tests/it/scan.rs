//! The secret scan before an upload: what a secret can hide in (other
//! encodings, binary files) is read, and what cannot be read is refused.

use memdir_filepersist::{
    Compressed, Credential, Enabled, FileError, Outcome, PersistOptions, Reading, persist_files,
};
use memdir_testkit::files_api::{FakeAuth, FilesApi};
use memdir_testkit::samples;

use crate::{turn_start, write};

const KEY: &str = "sk-ant-test-key-0123456789";
/// A token the secret scanner finds (github-pat).
const GITHUB_TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";
/// A key the secret scanner finds (aws-access-token).
const AWS_KEY: &str = "AKIAZ4Q7WXRTLMN3KPV2";

/// Uploads everything in `files` (name, bytes) and returns, for each
/// name, its error (`None`: uploaded), and the names the server stored.
fn persist(files: &[(&str, Vec<u8>)]) -> (Vec<(String, Option<FileError>)>, Vec<String>) {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        write(dir.path(), name, bytes);
    }
    let enabled = Enabled {
        credential: Credential::ApiKey(KEY.into()),
        session_id: "s1".into(),
        base_url: api.url(),
    };
    let report = persist_files(
        &enabled,
        turn_start(),
        dir.path(),
        &PersistOptions::default(),
        &|_| {},
    )
    .unwrap();
    let Outcome::Uploaded(outcomes) = report.outcome else {
        panic!("refused: {}", report.outcome);
    };
    let results = outcomes
        .into_iter()
        .map(|o| (o.path, o.result.err()))
        .collect();
    let mut stored: Vec<String> = api.stored().into_iter().map(|f| f.filename).collect();
    stored.sort();
    (results, stored)
}

fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
    for unit in units {
        if big_endian {
            bytes.extend_from_slice(&unit.to_be_bytes());
        } else {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
    }
    bytes
}

/// Pseudo-random bytes (xorshift), as compressed or encrypted data looks.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

/// A tar archive of one file (tar stores files as they are, after a
/// 512-byte header padded with NULs).
fn tar(name: &str, content: &[u8]) -> Vec<u8> {
    let mut header = [0u8; 512];
    header[..name.len()].copy_from_slice(name.as_bytes());
    header[100..108].copy_from_slice(b"0000644\0");
    header[124..136].copy_from_slice(format!("{:011o}\0", content.len()).as_bytes());
    header[257..263].copy_from_slice(b"ustar\0");
    let mut out = header.to_vec();
    out.extend_from_slice(content);
    out.resize(out.len().div_ceil(512) * 512 + 1024, 0);
    out
}

/// A file holding a secret, and what the scan is to say of it.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    rule: &'static str,
    reading: Reading,
    /// The line, when it means one.
    line: Option<usize>,
}

/// A secret in each encoding and kind of binary file it can hide in.
fn cases() -> Vec<Case> {
    let github_line = format!("GITHUB_TOKEN={GITHUB_TOKEN}\n");
    let aws_line = format!("aws_access_key_id = {AWS_KEY}\r\n");
    let mut latin1 = b"# caf\xe9 cr\xe8me\n".to_vec();
    latin1.extend_from_slice(github_line.as_bytes());
    let mut nul_first = b"\0".to_vec();
    nul_first.extend_from_slice(github_line.as_bytes());
    // Between random bytes, as in a database page or an executable's
    // string table.
    let mut in_noise = noise(5_000, 3);
    in_noise.push(0);
    in_noise.extend_from_slice(aws_line.as_bytes());
    in_noise.push(0);
    in_noise.extend(noise(5_000, 4));
    // UTF-16LE inside a binary, as Windows resources hold strings.
    let mut utf16_in_binary = noise(300, 5);
    utf16_in_binary.extend_from_slice(&[0, 0]);
    utf16_in_binary.extend(utf16(&github_line, false, false));
    utf16_in_binary.extend(noise(300, 6));
    let github = "github-pat";
    let aws = "aws-access-token";
    let case = |name, bytes, rule, reading, line| Case {
        name,
        bytes,
        rule,
        reading,
        line,
    };
    vec![
        case("latin1.env", latin1, github, Reading::Raw, Some(2)),
        case(
            "le-bom.txt",
            utf16(&aws_line, false, true),
            aws,
            Reading::Utf16Le,
            Some(1),
        ),
        case(
            "be-bom.txt",
            utf16(&github_line, true, true),
            github,
            Reading::Utf16Be,
            Some(1),
        ),
        case(
            "le.txt",
            utf16(&format!("Notes\r\n{aws_line}"), false, false),
            aws,
            Reading::Utf16Le,
            Some(2),
        ),
        case(
            "be.txt",
            utf16(&format!("Notes\r\n{github_line}"), true, false),
            github,
            Reading::Utf16Be,
            Some(2),
        ),
        case("nul-first.bin", nul_first, github, Reading::Raw, Some(1)),
        case("page.db", in_noise, aws, Reading::Raw, None),
        case(
            "resources.dll",
            utf16_in_binary,
            github,
            Reading::Utf16LeStrings,
            None,
        ),
        case(
            "backup.tar",
            tar("config/.env", github_line.as_bytes()),
            github,
            Reading::Raw,
            Some(1),
        ),
    ]
}

#[test]
fn a_secret_in_another_encoding_or_inside_binary_bytes_is_not_uploaded() {
    let files = cases();
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|f| (f.name, f.bytes.clone())).collect();
    let (results, stored) = persist(&named);
    assert_eq!(stored, [""; 0], "{results:?}");
    for Case {
        name,
        rule,
        reading,
        line,
        ..
    } in &files
    {
        let error = results
            .iter()
            .find(|(path, _)| path == name)
            .and_then(|(_, e)| e.as_ref())
            .unwrap_or_else(|| panic!("{name} uploaded"));
        let FileError::Secret {
            rule_id,
            line: found_line,
            reading: found_reading,
        } = error
        else {
            panic!("{name}: {error}");
        };
        assert_eq!(
            (rule_id.as_str(), found_reading),
            (*rule, reading),
            "{name}"
        );
        if let Some(line) = line {
            assert_eq!(found_line, line, "{name}");
        }
        let text = error.to_string();
        assert!(
            text.starts_with("not uploaded: it contains a secret") && text.contains(rule),
            "{name}: {text}"
        );
        assert!(
            !text.contains(GITHUB_TOKEN) && !text.contains(AWS_KEY),
            "{name}: {text}"
        );
    }
}

#[test]
fn an_archive_is_refused_as_unscannable_but_a_document_package_uploads() {
    let env = format!("GITHUB_TOKEN={GITHUB_TOKEN}\n");
    let mut gzip = b"\x1f\x8b\x08\0\0\0\0\0\0\x03".to_vec();
    gzip.extend(noise(2_000, 7));
    let files = [
        (
            "bundle.zip",
            samples::zip(&[("project/notes.md", b"# notes\n")]),
        ),
        // Stored, so the token is in plain sight: a secret, not a doubt.
        (
            "leak.zip",
            samples::zip(&[("project/.env", env.as_bytes())]),
        ),
        ("logs.tar.gz", gzip),
        (
            "report.docx",
            samples::zip(&[
                ("[Content_Types].xml", b"<Types/>"),
                (
                    "word/document.xml",
                    b"<w:document>Q3: 12 files</w:document>",
                ),
            ]),
        ),
    ];
    let (results, stored) = persist(&files);
    let error_of = |name: &str| {
        results
            .iter()
            .find(|(path, _)| path == name)
            .and_then(|(_, e)| e.clone())
    };
    assert_eq!(
        error_of("bundle.zip"),
        Some(FileError::Unscannable {
            compressed: Compressed::Zip
        })
    );
    assert_eq!(
        error_of("logs.tar.gz"),
        Some(FileError::Unscannable {
            compressed: Compressed::Gzip
        })
    );
    assert!(
        matches!(error_of("leak.zip"), Some(FileError::Secret { rule_id, .. }) if rule_id == "github-pat")
    );
    assert_eq!(stored, ["report.docx"]);
    let refusal = error_of("bundle.zip").unwrap().to_string();
    assert!(
        refusal.contains("zip archive") && refusal.contains("cannot be scanned"),
        "{refusal}"
    );
}

#[test]
fn a_png_clean_text_and_clean_binary_data_still_upload() {
    let mut data = noise(200_000, 9);
    data.extend_from_slice(b"\0sqlite-like page: name=report total=12\0");
    let files = [
        ("chart.png", samples::png(64, 48, 1)),
        ("photo.png", samples::png(320, 240, 2)),
        (
            "summary.md",
            "# Résumé\n\n报告 done: 12 files.\n".as_bytes().to_vec(),
        ),
        ("latin1.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e\n".to_vec()),
        ("table.bin", data),
    ];
    let (results, stored) = persist(&files);
    for (path, error) in &results {
        assert!(error.is_none(), "{path}: {error:?}");
    }
    assert_eq!(
        stored,
        [
            "chart.png",
            "latin1.txt",
            "photo.png",
            "summary.md",
            "table.bin"
        ]
    );
}
