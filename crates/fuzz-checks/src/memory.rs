//! Memory files: frontmatter, and the MEMORY.md index.

use memdir_entrypoint::{
    FolderListing, IndexEntry, LintKind, MAX_ENTRYPOINT_BYTES, MAX_ENTRYPOINT_LINES, decode_index,
    lint_index, remove_entry, truncate_entrypoint_content, upsert_entry,
};
use memdir_memtypes::{
    Header, MemoryType, parse_iso_time, parse_memory, parse_memory_str, render_memory,
    update_memory,
};

/// Reading any bytes as a memory, and writing back what was read: the
/// rendering reads back as the same header and body, cleanly. A header of
/// any strings round-trips the same way. Updating the file in its own
/// shape (SPEC R2.5) with what was read, or with that header and a write
/// time, reads back as what was written, in the shape the file had.
pub(crate) fn frontmatter(data: &[u8]) {
    let parsed = parse_memory(data);
    for d in &parsed.diagnostics {
        assert!(!d.to_string().is_empty());
    }
    round_trip(&parsed.header, &parsed.body);
    let text = String::from_utf8_lossy(data);
    update_round_trip(&text, &parsed.header, None, &parsed.body);
    let [name, description, kind, body] =
        <[String; 4]>::try_from(crate::fields(data, 4)).expect("fields returns four");
    let header = Header {
        name: Some(name),
        description: Some(description),
        memory_type: kind.parse::<MemoryType>().ok(),
    };
    round_trip(&header, &body);
    update_round_trip(&text, &header, Some("2026-03-05T09:30:00.5Z"), &body);
    update_round_trip(&text, &Header::default(), None, "");
}

/// `modified` is the write time to record, as ISO 8601 text.
fn update_round_trip(original: &str, header: &Header, modified: Option<&str>, body: &str) {
    let modified = modified.map(|t| parse_iso_time(t).expect("a valid time"));
    let before = parse_memory_str(original);
    let updated = update_memory(original, header, modified, body);
    let back = parse_memory_str(&updated);
    assert_eq!(&back.header, header, "header changed through {updated:?}");
    assert_eq!(back.body, body, "body changed through {updated:?}");
    assert_eq!(back.modified, modified.or(before.modified), "{updated:?}");
    assert_eq!(
        back.shape, before.shape,
        "shape changed through {updated:?}"
    );
}

fn round_trip(header: &Header, body: &str) {
    let rendered = render_memory(header, body);
    let back = parse_memory_str(&rendered);
    assert_eq!(&back.header, header, "header changed through {rendered:?}");
    assert_eq!(back.body, body, "body changed through {rendered:?}");
    assert!(
        back.diagnostics.is_empty(),
        "{rendered:?} reads with {:?}",
        back.diagnostics
    );
}

/// Truncating and linting any index: the kept part is a prefix within the
/// limits, every line number is a line of the file; and replacing or
/// removing one entry touches no other line.
pub(crate) fn index(data: &[u8]) {
    let (text, invalid) = decode_index(data);
    let lines = text.split('\n').count();
    if let Some(lint) = &invalid {
        assert_eq!(lint.kind, LintKind::InvalidUtf8);
        assert!(lint.line.is_some_and(|l| (1..=lines).contains(&l)));
    }
    let t = truncate_entrypoint_content(&text);
    let trimmed = text.trim();
    assert!(
        trimmed.starts_with(t.kept()),
        "the kept part is not a prefix"
    );
    assert!(t.kept().split('\n').count() <= MAX_ENTRYPOINT_LINES);
    assert!(t.kept().len() <= MAX_ENTRYPOINT_BYTES);
    assert_eq!(t.was_truncated(), t.warning.is_some());
    if !t.was_truncated() {
        assert_eq!(t.content, trimmed);
    }
    for d in &t.dropped {
        assert!(
            (1..=lines).contains(&d.line),
            "dropped line {} of {lines}",
            d.line
        );
    }
    let folder = FolderListing::from_paths(["MEMORY.md", "a.md", "notes/b.md"]);
    for lint in lint_index(&text, Some(&folder)) {
        assert!(!lint.message.contains('\n'), "{lint:?}");
        if let Some(line) = lint.line {
            assert!((1..=lines).contains(&line), "{lint:?} of {lines} lines");
        }
    }
    edits_hold(&text, data);
}

/// An entry made from the input, put into and taken out of the index.
fn edits_hold(index: &str, data: &[u8]) {
    let [title, file, hook] =
        <[String; 3]>::try_from(crate::fields(data, 3)).expect("fields returns three");
    let entry = IndexEntry { title, file, hook };
    let Ok(line) = entry.to_line() else {
        return;
    };
    assert!(
        !line.contains(['\n', '\r']),
        "{line:?} is more than one line"
    );
    let Ok(updated) = upsert_entry(index, &entry) else {
        return;
    };
    assert!(
        updated.lines().any(|l| l == line),
        "{line:?} missing from {updated:?}"
    );
    let (removed, n) = remove_entry(&updated, &entry.file);
    assert!(n >= 1, "the entry just written was not removed");
    assert!(!removed.lines().any(|l| l == line));
    // Every other line is kept byte for byte; at most a line end is added
    // to a last line that had none.
    let (original, _) = remove_entry(index, &entry.file);
    let added = removed.strip_prefix(original.as_str());
    assert!(
        matches!(added, Some("" | "\n" | "\r\n")),
        "other lines changed: {original:?} became {removed:?}"
    );
}
