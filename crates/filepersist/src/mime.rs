//! The media type a file is uploaded with, from its extension.

/// Extensions and their media types; anything else is
/// `application/octet-stream`, and the API works the type out itself.
const TYPES: &[(&str, &str)] = &[
    ("txt", "text/plain"),
    ("log", "text/plain"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("css", "text/css"),
    ("xml", "application/xml"),
    ("json", "application/json"),
    ("jsonl", "application/jsonl"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("js", "text/javascript"),
    ("py", "text/x-python"),
    ("rs", "text/x-rust"),
    ("sh", "application/x-sh"),
    ("pdf", "application/pdf"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("svg", "image/svg+xml"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("tar", "application/x-tar"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
];

/// The media type of a file named `name`, by its extension (any case).
pub(crate) fn content_type(name: &str) -> &'static str {
    let file = name.rsplit('/').next().unwrap_or(name);
    let Some((stem, ext)) = file.rsplit_once('.') else {
        return "application/octet-stream";
    };
    if stem.is_empty() {
        return "application/octet-stream";
    }
    TYPES
        .iter()
        .find(|(e, _)| e.eq_ignore_ascii_case(ext))
        .map_or("application/octet-stream", |(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::content_type;

    #[test]
    fn types_come_from_the_extension() {
        assert_eq!(content_type("a/report.MD"), "text/markdown");
        assert_eq!(content_type("chart.png"), "image/png");
        assert_eq!(content_type("data.bin"), "application/octet-stream");
        assert_eq!(content_type(".env"), "application/octet-stream");
        assert_eq!(content_type("Makefile"), "application/octet-stream");
        assert_eq!(content_type("dir.md/file"), "application/octet-stream");
    }
}
