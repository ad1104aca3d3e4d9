//! Invariants of frontmatter reading and rendering, as proptest properties.
//! The number of cases comes from `PROPTEST_CASES` (default 256).

use memdir_memtypes::{
    FrontmatterShape, Header, MemoryType, parse_memory, parse_memory_str, render_memory,
    update_memory,
};
use proptest::prelude::*;

/// Bytes shaped like memory files (delimiters, keys, quotes, odd line ends)
/// as well as plain noise.
fn memoryish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"---\n".to_vec()),
        Just(b"---\r\n".to_vec()),
        Just(b"\xef\xbb\xbf".to_vec()),
        Just(b"name: ".to_vec()),
        Just(b"description: ".to_vec()),
        Just(b"type: feedback\n".to_vec()),
        Just(b"metadata:\n".to_vec()),
        Just(b"  node_type: memory\n".to_vec()),
        Just(b"  type: user\n".to_vec()),
        Just(b"  modified: 2026-03-05T09:30:00Z\n".to_vec()),
        Just(b"metadata: {type: project}\n".to_vec()),
        Just(b": \"'[]{}&*!|>#%@`\n".to_vec()),
        Just(b"\n\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..16),
        "[a-z \u{4e00}-\u{4e10}]{0,12}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|parts| parts.concat())
}

fn header() -> impl Strategy<Value = Header> {
    let text = proptest::option::of(any::<String>());
    let kind = proptest::option::of(proptest::sample::select(MemoryType::ALL.to_vec()));
    (text.clone(), text, kind).prop_map(|(name, description, memory_type)| Header {
        name,
        description,
        memory_type,
    })
}

fn time() -> impl Strategy<Value = Option<jiff::Timestamp>> {
    let min = jiff::Timestamp::MIN.as_second();
    let max = jiff::Timestamp::MAX.as_second();
    proptest::option::of(
        (min..=max, 0..1_000_000_000i32)
            .prop_map(|(s, ns)| jiff::Timestamp::new(s, ns).unwrap_or(jiff::Timestamp::UNIX_EPOCH)),
    )
}

proptest! {
    #[test]
    fn parsing_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_memory(&bytes);
    }

    #[test]
    fn parsing_never_panics_on_memoryish_bytes(bytes in memoryish_bytes()) {
        let parsed = parse_memory(&bytes);
        // The body is always a suffix of the (lossily decoded) text.
        let text = String::from_utf8_lossy(&bytes);
        prop_assert!(text.ends_with(&parsed.body));
    }

    #[test]
    fn render_then_parse_returns_the_same_values(h in header(), body in any::<String>()) {
        let text = render_memory(&h, &body);
        let back = parse_memory_str(&text);
        prop_assert_eq!(&back.header, &h, "rendered: {:?}", text);
        prop_assert_eq!(&back.body, &body);
        prop_assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
    }

    /// An update of any memory-like file reads back as exactly what was
    /// written, in the shape the file had (R2.5).
    #[test]
    fn update_reads_back_what_was_written_in_the_same_shape(
        original in memoryish_bytes(),
        h in header(),
        modified in time(),
        body in any::<String>(),
    ) {
        let original = String::from_utf8_lossy(&original);
        let before = parse_memory_str(&original);
        let text = update_memory(&original, &h, modified, &body);
        let back = parse_memory_str(&text);
        prop_assert_eq!(&back.header, &h, "updated: {:?}", text);
        prop_assert_eq!(&back.body, &body);
        prop_assert_eq!(back.modified, modified.or(before.modified));
        prop_assert_eq!(back.shape, before.shape);
        // Keys memdir does not use survive an update unless the block had
        // to be rendered afresh; a flat block always keeps them.
        if before.shape == FrontmatterShape::Flat && before.diagnostics.is_empty() {
            prop_assert_eq!(&back.unknown_keys, &before.unknown_keys, "updated: {:?}", text);
        }
    }
}
