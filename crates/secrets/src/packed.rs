//! Compressed formats, told by their signatures: what a scan of the bytes
//! cannot see into.

use std::fmt;

/// A compressed format the scanned bytes are in. The scan sees only what
/// such bytes hold uncompressed (a zip's entry names, say), never what
/// their compressed parts hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compressed {
    /// A zip archive (and the formats built on it, such as `.jar`).
    Zip,
    /// A document packaged as a zip: Office Open XML (`.docx`, `.xlsx`,
    /// `.pptx`: it holds `[Content_Types].xml`), ODF (`.odt`, `.ods`, `.odp`) or EPUB
    /// (its first entry is `mimetype`).
    ZipDocument,
    /// A gzip stream (`.gz`, `.tgz`).
    Gzip,
    /// A bzip2 stream.
    Bzip2,
    /// An xz stream.
    Xz,
    /// A Zstandard frame.
    Zstd,
    /// An LZ4 frame.
    Lz4,
    /// A 7-Zip archive.
    SevenZip,
    /// A RAR archive.
    Rar,
}

impl Compressed {
    /// Whether it is an archive of files or a compressed stream, rather
    /// than a document that happens to be packaged as a zip.
    #[must_use]
    pub fn is_archive(self) -> bool {
        self != Compressed::ZipDocument
    }

    /// Its name in words, with an article: `a zip archive`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Compressed::Zip => "a zip archive",
            Compressed::ZipDocument => "a document packaged as a zip",
            Compressed::Gzip => "a gzip stream",
            Compressed::Bzip2 => "a bzip2 stream",
            Compressed::Xz => "an xz stream",
            Compressed::Zstd => "a zstd frame",
            Compressed::Lz4 => "an lz4 frame",
            Compressed::SevenZip => "a 7-zip archive",
            Compressed::Rar => "a rar archive",
        }
    }
}

impl fmt::Display for Compressed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The signatures at the start of each format but zip's.
const MAGIC: &[(&[u8], Compressed)] = &[
    // ID1 ID2 and the one compression method defined (deflate).
    (b"\x1f\x8b\x08", Compressed::Gzip),
    (b"\xfd7zXZ\x00", Compressed::Xz),
    (b"\x28\xb5\x2f\xfd", Compressed::Zstd),
    (b"\x04\x22\x4d\x18", Compressed::Lz4),
    (b"7z\xbc\xaf\x27\x1c", Compressed::SevenZip),
    (b"Rar!\x1a\x07", Compressed::Rar),
];

/// The compressed format `bytes` are in, if any.
pub(crate) fn compressed(bytes: &[u8]) -> Option<Compressed> {
    if let Some(&(_, kind)) = MAGIC.iter().find(|(m, _)| bytes.starts_with(m)) {
        return Some(kind);
    }
    // "BZh" and the block size, 1 to 9 (hundreds of kB).
    if let [b'B', b'Z', b'h', b'1'..=b'9', ..] = bytes {
        return Some(Compressed::Bzip2);
    }
    zip(bytes)
}

/// The length of a zip's end-of-central-directory record, without its
/// comment.
const EOCD_LEN: usize = 22;

/// Whether `bytes` are a zip, and a document package or not. A zip is
/// told by its end record (a zip may follow other bytes, as a
/// self-extracting archive does) or else by a local header at the start
/// (a zip whose end is cut off).
fn zip(bytes: &[u8]) -> Option<Compressed> {
    let Some(eocd) = end_record(bytes) else {
        return bytes.starts_with(b"PK\x03\x04").then_some(Compressed::Zip);
    };
    let names = central_names(bytes, eocd).unwrap_or_default();
    let document = names.iter().any(|n| *n == b"[Content_Types].xml")
        || names.first().is_some_and(|n| *n == b"mimetype");
    Some(if document {
        Compressed::ZipDocument
    } else {
        Compressed::Zip
    })
}

/// The offset of the end-of-central-directory record: its signature,
/// followed by exactly its comment's length to the end of the bytes.
fn end_record(bytes: &[u8]) -> Option<usize> {
    let last = bytes.len().checked_sub(EOCD_LEN)?;
    let first = last.saturating_sub(usize::from(u16::MAX));
    (first..=last).rev().find(|&at| {
        bytes[at..].starts_with(b"PK\x05\x06")
            && at + EOCD_LEN + usize::from(le16(bytes, at + 20).unwrap_or(u16::MAX)) == bytes.len()
    })
}

/// The entry names the central directory lists, in order; `None` when it
/// cannot be read (cut off, zip64, or after other bytes).
fn central_names(bytes: &[u8], eocd: usize) -> Option<Vec<&[u8]>> {
    let count = le16(bytes, eocd + 10)?;
    let size = usize::try_from(le32(bytes, eocd + 12)?).ok()?;
    let mut at = usize::try_from(le32(bytes, eocd + 16)?).ok()?;
    let end = at.checked_add(size)?;
    if end > eocd {
        return None;
    }
    let mut names = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        if !bytes.get(at..end)?.starts_with(b"PK\x01\x02") {
            return None;
        }
        let name_len = usize::from(le16(bytes, at + 28)?);
        let extra_len = usize::from(le16(bytes, at + 30)?);
        let comment_len = usize::from(le16(bytes, at + 32)?);
        names.push(bytes.get(at + 46..at + 46 + name_len)?);
        at += 46 + name_len + extra_len + comment_len;
    }
    Some(names)
}

fn le16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn le32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A zip of stored entries (checksums left at zero: nothing here
    /// reads them).
    fn zip_of(names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for name in names {
            let offset = u32::try_from(out.len()).unwrap();
            let len = u16::try_from(name.len()).unwrap();
            out.extend_from_slice(b"PK\x03\x04");
            out.extend_from_slice(&[0; 22]);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&[0; 2]);
            out.extend_from_slice(name.as_bytes());
            central.extend_from_slice(b"PK\x01\x02");
            central.extend_from_slice(&[0; 24]);
            central.extend_from_slice(&len.to_le_bytes());
            central.extend_from_slice(&[0; 12]);
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let count = u16::try_from(names.len()).unwrap();
        let at = u32::try_from(out.len()).unwrap();
        let size = u32::try_from(central.len()).unwrap();
        out.extend_from_slice(&central);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&[0; 2]);
        out
    }

    #[test]
    fn formats_are_told_by_their_signatures() {
        let check = |bytes: &[u8], want: Option<Compressed>| {
            assert_eq!(compressed(bytes), want, "{bytes:?}");
        };
        check(b"\x1f\x8b\x08\0\0\0", Some(Compressed::Gzip));
        check(b"BZh91AY&SY", Some(Compressed::Bzip2));
        check(b"BZhX", None);
        check(b"\xfd7zXZ\0\0", Some(Compressed::Xz));
        check(b"\x28\xb5\x2f\xfd\0", Some(Compressed::Zstd));
        check(b"\x04\x22\x4d\x18\0", Some(Compressed::Lz4));
        check(b"7z\xbc\xaf\x27\x1c\0", Some(Compressed::SevenZip));
        check(b"Rar!\x1a\x07\x01\0", Some(Compressed::Rar));
        check(b"\x89PNG\r\n\x1a\n", None);
        check(b"%PDF-1.7\n", None);
        check(b"", None);
        check(b"PK\x03\x04 cut off", Some(Compressed::Zip));
    }

    #[test]
    fn a_zip_is_a_document_by_its_entries() {
        let check = |bytes: &[u8], want: Compressed| {
            assert_eq!(compressed(bytes), Some(want));
        };
        check(&zip_of(&["report/", "report/.env"]), Compressed::Zip);
        check(
            &zip_of(&["_rels/.rels", "[Content_Types].xml", "word/document.xml"]),
            Compressed::ZipDocument,
        );
        check(
            &zip_of(&["mimetype", "META-INF/container.xml"]),
            Compressed::ZipDocument,
        );
        check(&zip_of(&["a", "mimetype"]), Compressed::Zip);
        check(&zip_of(&[]), Compressed::Zip);
        // After other bytes (a zip appended to an image): still a zip, by
        // its end record.
        let mut appended = b"\x89PNG\r\n\x1a\nimage".to_vec();
        appended.extend(zip_of(&["[Content_Types].xml"]));
        check(&appended, Compressed::Zip);
        // With a comment.
        let mut commented = zip_of(&["a"]);
        let n = commented.len();
        commented[n - 2] = 3;
        commented.extend_from_slice(b"hi!");
        check(&commented, Compressed::Zip);
    }

    proptest! {
        #[test]
        fn any_bytes_are_judged_without_panicking(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            cut in 0usize..120,
        ) {
            let _ = compressed(&bytes);
            // A real zip's end, damaged.
            let mut zip = zip_of(&["mimetype", "content.xml"]);
            zip.truncate(zip.len().saturating_sub(cut));
            zip.extend_from_slice(&bytes);
            let _ = compressed(&zip);
        }
    }
}
