//! Gemini CLI's and Qwen Code's added-memories section: one `- ` bullet a
//! fact under a fixed `## ` heading of a Markdown file.

use std::ops::Range;
use std::path::Path;

use memdir_memtypes::MemoryType;

use crate::collect::Collector;
use crate::files::read_text;
use crate::{ExportFile, Format, Imported, InteropError, Memory};

/// How many words of a bullet name its memory.
const NAME_WORDS: usize = 6;

fn heading(format: Format) -> &'static str {
    if format == Format::QwenMemory {
        "## Qwen Added Memories"
    } else {
        "## Gemini Added Memories"
    }
}

fn file_name(format: Format) -> &'static str {
    format.file_name().expect("the format is one file")
}

/// Lines of `text` with their byte ranges, each range including its line
/// end.
fn lines_with_ranges(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |line| {
        let range = start..start + line.len();
        start = range.end;
        (range, line.trim_end_matches(['\n', '\r']))
    })
}

/// A heading of level one or two: the end of a `## ` section.
fn ends_section(line: &str) -> bool {
    line.starts_with("# ") || line.starts_with("## ") || line == "#" || line == "##"
}

/// The byte range of the section (its heading line through its last
/// non-blank line, line end included) and the line number of its heading.
fn find_section(text: &str, heading: &str) -> Option<(Range<usize>, usize)> {
    let mut lines = lines_with_ranges(text).enumerate();
    let (number, start) = lines
        .by_ref()
        .find_map(|(i, (range, line))| (line.trim_end() == heading).then_some((i + 1, range)))?;
    let mut end = start.end;
    for (_, (range, line)) in lines {
        if ends_section(line) {
            break;
        }
        if !line.trim().is_empty() {
            end = range.end;
        }
    }
    Some((start.start..end, number))
}

/// Reads each bullet of the section as a `user` memory.
pub(crate) fn import(format: Format, path: &Path) -> Result<Imported, InteropError> {
    let text = read_text(path)?;
    let mut collector = Collector::default();
    let Some((range, heading_line)) = find_section(&text, heading(format)) else {
        collector.skip(
            path.display().to_string(),
            format!("the file has no {:?} section", heading(format)),
        );
        return Ok(collector.finish());
    };
    for (i, (_, line)) in lines_with_ranges(&text[range]).enumerate().skip(1) {
        let at = format!("{}:{}", path.display(), heading_line + i);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(fact) = line.strip_prefix("- ").map(str::trim) else {
            collector.skip(at, "not a `- ` bullet");
            continue;
        };
        let name: Vec<&str> = fact.split_whitespace().take(NAME_WORDS).collect();
        collector.add(
            at,
            &name.join(" "),
            MemoryType::User,
            fact,
            format!("{fact}\n"),
        );
    }
    Ok(collector.finish())
}

/// The section: the heading, every line the section already had (the
/// tool's own memories are kept), and a bullet for each memory whose
/// description is not a bullet there yet.
fn render(format: Format, memories: &[Memory], existing: Option<&str>) -> String {
    let mut section = existing.map_or_else(|| format!("{}\n", heading(format)), str::to_owned);
    let mut present: std::collections::HashSet<String> = section
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- ").map(|f| f.trim().to_owned()))
        .collect();
    for m in memories {
        let fact = m.description.trim();
        if present.insert(fact.to_owned()) {
            if !section.ends_with('\n') {
                section.push('\n');
            }
            section.push_str("- ");
            section.push_str(fact);
            section.push('\n');
        }
    }
    section
}

/// `existing` with the memories added to its section as bullets (or the
/// section appended after a blank line); nothing else changes, and no
/// bullet already there is removed.
pub(crate) fn export(format: Format, memories: &[Memory], existing: &str) -> ExportFile {
    let found = find_section(existing, heading(format));
    let old = found.as_ref().map(|(range, _)| &existing[range.clone()]);
    let section = render(format, memories, old);
    let contents = replace_or_append(existing, found, &section);
    ExportFile {
        rel_path: file_name(format).to_owned(),
        contents,
    }
}

/// Puts `block` at `found` (a byte range, its heading line number) or, if
/// nothing was found, at the end after a blank line.
pub(crate) fn replace_or_append(
    existing: &str,
    found: Option<(Range<usize>, usize)>,
    block: &str,
) -> String {
    match found {
        Some((range, _)) => {
            let mut out = String::with_capacity(existing.len() + block.len());
            out.push_str(&existing[..range.start]);
            out.push_str(block);
            out.push_str(&existing[range.end..]);
            out
        }
        None if existing.is_empty() => block.to_owned(),
        None => {
            let mut out = existing.to_owned();
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(block);
            out
        }
    }
}
