//! AGENTS.md and CLAUDE.md: a block of pointers between memdir's markers,
//! and the `## ` sections of a file without them.

use std::ops::Range;
use std::path::Path;

use memdir_memtypes::MemoryType;

use crate::collect::Collector;
use crate::files::read_text;
use crate::section::replace_or_append;
use crate::{ExportFile, Format, Imported, InteropError, Memory};

/// The line that opens memdir's block.
pub(crate) const BEGIN: &str = "<!-- memdir:begin -->";
/// The line that closes memdir's block.
pub(crate) const END: &str = "<!-- memdir:end -->";
/// Between a pointer's name and its description.
const SEPARATOR: &str = " — ";

enum Block {
    Absent,
    Unclosed,
    /// The block's byte range (markers and the end marker's line end
    /// included) and the line numbers of its markers.
    At(Range<usize>, usize, usize),
}

fn find_block(text: &str) -> Block {
    let mut begin = None;
    let mut start = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let end = start + line.len();
        let bare = line.trim();
        match begin {
            None if bare == BEGIN => begin = Some((start, i + 1)),
            Some((from, begin_line)) if bare == END => {
                return Block::At(from..end, begin_line, i + 1);
            }
            _ => {}
        }
        start = end;
    }
    if begin.is_some() {
        Block::Unclosed
    } else {
        Block::Absent
    }
}

/// Reads memdir's pointers, or else the file's `## ` sections.
pub(crate) fn import(path: &Path) -> Result<Imported, InteropError> {
    let text = read_text(path)?;
    let mut collector = Collector::default();
    match find_block(&text) {
        Block::At(_, begin, end) => import_pointers(&text, path, begin, end, &mut collector),
        Block::Unclosed => {
            collector.skip(
                path.display().to_string(),
                format!("`{BEGIN}` is never closed by `{END}`; read the `## ` sections instead"),
            );
            import_sections(&text, path, &mut collector);
        }
        Block::Absent => import_sections(&text, path, &mut collector),
    }
    Ok(collector.finish())
}

fn import_pointers(text: &str, path: &Path, begin: usize, end: usize, collector: &mut Collector) {
    for (i, line) in text.lines().enumerate().take(end - 1).skip(begin) {
        let at = format!("{}:{}", path.display(), i + 1);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let pointer = line
            .strip_prefix("- ")
            .and_then(|rest| rest.split_once(SEPARATOR));
        let Some((name, description)) = pointer else {
            collector.skip(at, format!("not a `- name{SEPARATOR}description` pointer"));
            continue;
        };
        let description = description.trim();
        collector.add(
            at,
            name.trim(),
            MemoryType::Project,
            description,
            format!("{description}\n"),
        );
    }
}

fn import_sections(text: &str, path: &Path, collector: &mut Collector) {
    let mut current: Option<(String, String, usize)> = None;
    let flush = |current: Option<(String, String, usize)>, collector: &mut Collector| {
        if let Some((title, body, line)) = current {
            let at = format!("{}:{line}", path.display());
            let body = body.trim_start_matches(['\n', '\r']).trim_end();
            let body = if body.is_empty() {
                String::new()
            } else {
                format!("{body}\n")
            };
            collector.add(at, &title, MemoryType::Project, "", body);
        }
    };
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(title) = bare.strip_prefix("## ") {
            flush(current.take(), collector);
            current = Some((title.trim().to_owned(), String::new(), i + 1));
        } else if bare.starts_with("# ") {
            flush(current.take(), collector);
        } else if let Some((_, body, _)) = current.as_mut() {
            body.push_str(line);
        }
    }
    flush(current, collector);
}

fn file_name(format: Format) -> &'static str {
    format.file_name().expect("the format is one file")
}

/// `existing` with memdir's block replaced (or appended); the user's text
/// outside the markers stays byte for byte.
pub(crate) fn export(
    format: Format,
    memories: &[Memory],
    existing: &str,
) -> Result<ExportFile, InteropError> {
    let mut block = format!("{BEGIN}\n");
    for m in memories {
        block.push_str("- ");
        block.push_str(&m.name);
        block.push_str(SEPARATOR);
        block.push_str(&m.description);
        block.push('\n');
    }
    block.push_str(END);
    block.push('\n');
    let found = match find_block(existing) {
        Block::At(range, begin, _) => Some((range, begin)),
        Block::Absent => None,
        Block::Unclosed => {
            return Err(InteropError::UnclosedBlock {
                begin: BEGIN,
                end: END,
            });
        }
    };
    Ok(ExportFile {
        rel_path: file_name(format).to_owned(),
        contents: replace_or_append(existing, found, &block),
    })
}
