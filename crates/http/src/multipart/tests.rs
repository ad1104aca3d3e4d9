//! Unit tests of the multipart encoder: layout, quoting, boundaries.

use super::*;

fn boundary_of(content_type: &str) -> &str {
    content_type
        .strip_prefix("multipart/form-data; boundary=")
        .expect("a multipart content type")
}

#[test]
fn quotes_are_percent_encoded_and_other_characters_kept() {
    assert_eq!(quote_name("plain.txt"), "plain.txt");
    assert_eq!(quote_name("a \"b\".md"), "a %22b%22.md");
    assert_eq!(quote_name("line\r\nbreak"), "line%0D%0Abreak");
    assert_eq!(quote_name("报告-2026.md"), "报告-2026.md");
    assert_eq!(quote_name("-leading"), "-leading");
    // A backslash and a percent sign are kept as they are.
    assert_eq!(quote_name("a\\b%41"), "a\\b%41");
}

#[test]
fn one_part_is_laid_out_as_rfc_7578_says() {
    let (content_type, body) = Multipart::new()
        .file("file", "notes.txt", "text/plain", b"hello\r\n--x".to_vec())
        .encode()
        .unwrap();
    let boundary = boundary_of(&content_type);
    assert!(boundary.starts_with(BOUNDARY_PREFIX));
    assert_eq!(boundary.len(), BOUNDARY_PREFIX.len() + 32);
    let expected = format!(
        "--{boundary}\r\n\
         Content-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n\
         Content-Type: text/plain\r\n\
         \r\n\
         hello\r\n--x\r\n\
         --{boundary}--\r\n"
    );
    assert_eq!(String::from_utf8(body).unwrap(), expected);
}

#[test]
fn several_parts_each_get_a_header_and_boundaries_differ_between_bodies() {
    let body = Multipart::new()
        .file(
            "a",
            "1.bin",
            "application/octet-stream",
            vec![0u8, 255, 13, 10],
        )
        .file("b", "2 \"q\".txt", "text/plain", b"two".to_vec());
    let (first, bytes) = body.encode().unwrap();
    let (second, _) = body.encode().unwrap();
    assert_ne!(first, second, "each body has a fresh boundary");
    let boundary = boundary_of(&first);
    let text = String::from_utf8_lossy(&bytes);
    assert_eq!(text.matches(boundary).count(), 3, "{text}");
    assert!(text.contains("name=\"b\"; filename=\"2 %22q%22.txt\"\r\n"));
    assert!(memchr::memmem::find(&bytes, &[0u8, 255, 13, 10]).is_some());
}

#[test]
fn the_boundary_never_occurs_in_the_content() {
    // Content full of boundary-like text: the chosen boundary is still
    // absent from it.
    let mut content = Vec::new();
    for i in 0..2_000u32 {
        content.extend_from_slice(format!("--{BOUNDARY_PREFIX}{i:032x}\r\n").as_bytes());
    }
    let (content_type, body) = Multipart::new()
        .file("file", "tricky.txt", "text/plain", content.clone())
        .encode()
        .unwrap();
    let boundary = boundary_of(&content_type);
    assert!(memchr::memmem::find(&content, boundary.as_bytes()).is_none());
    assert_eq!(
        memchr::memmem::find_iter(&body, boundary.as_bytes()).count(),
        2
    );
}

#[test]
fn an_empty_body_and_a_bad_content_type_are_refused() {
    let empty = Multipart::new().encode().unwrap_err();
    assert!(matches!(
        empty,
        Error::Multipart {
            problem: MultipartProblem::NoParts,
            ..
        }
    ));
    for bad in ["", "text/plain\r\nX-Evil: 1", "text/plainé"] {
        let err = Multipart::new()
            .file("file", "a", bad, Vec::new())
            .encode()
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::Multipart {
                    problem: MultipartProblem::ContentType,
                    ..
                }
            ),
            "{bad:?}: {err}"
        );
    }
}

#[test]
fn the_request_is_a_post_with_the_content_type_and_debug_hides_bytes() {
    let url = Url::parse("http://127.0.0.1:9/v1/files").unwrap();
    let parts = Multipart::new().file("file", "k.txt", "text/plain", b"sk-secret".to_vec());
    assert!(!format!("{parts:?}").contains("sk-secret"));
    let request = parts.into_request(url).unwrap();
    assert_eq!(request.method().as_str(), "POST");
    let content_type = request.header_value("Content-Type").unwrap();
    assert!(content_type.starts_with("multipart/form-data; boundary=memdir-boundary-"));
    assert!(memchr::memmem::find(request.body(), b"sk-secret").is_some());
}
