//! A multipart body read back by a real parser (multer, as a server
//! would), byte for byte.

use memdir_http::{Multipart, Url};
use memdir_testkit::files_api::{ParsedPart, parse_multipart};

fn round_trip(parts: &[(&str, &str, &str, Vec<u8>)]) -> Vec<ParsedPart> {
    let mut body = Multipart::new();
    for (field, name, kind, bytes) in parts {
        body = body.file(*field, *name, *kind, bytes.clone());
    }
    let request = body
        .into_request(Url::parse("http://127.0.0.1:9/v1/files").unwrap())
        .unwrap();
    let content_type = request.header_value("content-type").unwrap();
    parse_multipart(content_type, request.body()).unwrap()
}

#[test]
fn hostile_names_and_bytes_come_back_exactly() {
    let binary: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let names = [
        "say \"hi\".txt",
        "报告 2026-第一季度.md",
        "-rf --no-preserve-root",
        "line\r\nbreak\n.txt",
        "back\\slash;semi=colon'quote.csv",
        "nested/dir/file.bin",
    ];
    for name in names {
        let parts = round_trip(&[("file", name, "application/octet-stream", binary.clone())]);
        assert_eq!(parts.len(), 1, "{name}");
        assert_eq!(parts[0].field, "file");
        assert_eq!(parts[0].filename.as_deref(), Some(name));
        assert_eq!(
            parts[0].content_type.as_deref(),
            Some("application/octet-stream")
        );
        assert!(parts[0].bytes == binary, "{name}: bytes differ");
    }
}

#[test]
fn content_that_looks_like_a_boundary_does_not_end_the_part() {
    let tricky =
        b"--\r\n--memdir-boundary-\r\n\r\n--\r\nContent-Disposition: form-data\r\n".repeat(50);
    let parts = round_trip(&[
        ("file", "a.txt", "text/plain", tricky.clone()),
        ("other", "b.txt", "text/plain", b"".to_vec()),
    ]);
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].bytes, tricky);
    assert_eq!(parts[1].field, "other");
    assert!(parts[1].bytes.is_empty());
}
