//! The folder formats, one memory a file: Cline's Memory Bank and Cursor
//! rules; and the bounded reading every format shares.

use std::fs;
use std::path::{Path, PathBuf};

use memdir_memtypes::{MemoryType, parse_memory_str, read_regular_file};

use crate::collect::Collector;
use crate::{ExportFile, Imported, InteropError, MAX_FILE_BYTES, Memory};

/// The most folder entries looked at in one folder import.
const MAX_FOLDER_ENTRIES: usize = 10_000;

/// Reads a whole input file, bounded, as text (invalid UTF-8 replaced).
pub(crate) fn read_text(path: &Path) -> Result<String, InteropError> {
    let bytes = read_regular_file(path, MAX_FILE_BYTES)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            log::warn!(
                "{} is not valid UTF-8; invalid bytes replaced",
                path.display()
            );
            String::from_utf8_lossy(err.as_bytes()).into_owned()
        }
    })
}

/// `path`, or its `sub` folder when it has one.
fn folder_of(path: &Path, sub: &str) -> Result<PathBuf, InteropError> {
    let nested = path.join(sub);
    let folder = if fs::symlink_metadata(&nested).is_ok_and(|m| m.is_dir()) {
        nested
    } else {
        path.to_path_buf()
    };
    match fs::metadata(&folder) {
        Ok(meta) if meta.is_dir() => Ok(folder),
        Ok(_) => Err(InteropError::NotAFolder { path: folder }),
        Err(source) => Err(InteropError::ListFolder {
            path: folder,
            source,
        }),
    }
}

/// The regular files of `folder` whose names end in `.ext`, sorted by
/// name; links, subfolders and names that are not UTF-8 are skipped.
fn files_with_ext(
    folder: &Path,
    ext: &str,
    collector: &mut Collector,
) -> Result<Vec<(String, PathBuf)>, InteropError> {
    let list_err = |source| InteropError::ListFolder {
        path: folder.to_path_buf(),
        source,
    };
    let mut found = Vec::new();
    for (seen, entry) in fs::read_dir(folder).map_err(list_err)?.enumerate() {
        if seen >= MAX_FOLDER_ENTRIES {
            collector.skip(
                folder.display().to_string(),
                format!("only the first {MAX_FOLDER_ENTRIES} entries of the folder were read"),
            );
            break;
        }
        let entry = entry.map_err(list_err)?;
        let Ok(file_name) = entry.file_name().into_string() else {
            collector.skip(
                entry.path().display().to_string(),
                "the file name is not UTF-8",
            );
            continue;
        };
        let Some(stem) = file_name.strip_suffix(&format!(".{ext}")) else {
            continue;
        };
        let kind = entry.file_type().map_err(list_err)?;
        if kind.is_symlink() {
            collector.skip(file_name, "a symbolic link, not followed");
        } else if kind.is_dir() {
            collector.skip(file_name, "a folder, not a file");
        } else if !kind.is_file() {
            collector.skip(file_name, "not a regular file (a FIFO, socket or device)");
        } else {
            found.push((stem.to_owned(), entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Imports a memory folder of one file a memory with frontmatter and a
/// `MEMORY.md` index — Qwen Code's auto-memory
/// (`~/.qwen/projects/<project>/memory/`, and its `pinned/` folder) has
/// memdir's own layout: each memory's `name`, `description` and `type`
/// from its frontmatter (read as tolerantly as memdir reads its own), a
/// memory without a valid type taken as `project`.
pub(crate) fn import_memory_folder(folder: &Path) -> Result<Imported, InteropError> {
    let mut collector = Collector::default();
    let mut files = files_with_ext(folder, "md", &mut collector)?;
    let pinned = folder.join("pinned");
    if fs::symlink_metadata(&pinned).is_ok_and(|m| m.is_dir()) {
        files.extend(files_with_ext(&pinned, "md", &mut collector)?);
    }
    for (stem, file) in files {
        if stem == "MEMORY" {
            continue;
        }
        let at = file.display().to_string();
        if collector.is_full() {
            collector.skip_full(at);
            continue;
        }
        let parsed = parse_memory_str(&read_text(&file)?);
        let name = parsed.header.name.clone().unwrap_or_else(|| stem.clone());
        let kind = parsed.header.memory_type.unwrap_or(MemoryType::Project);
        let description = parsed.header.description.clone().unwrap_or_default();
        collector.add(at, &name, kind, &description, parsed.body);
    }
    Ok(collector.finish())
}

/// Imports every `.md` file of a Cline Memory Bank as a `project` memory.
pub(crate) fn import_cline(path: &Path) -> Result<Imported, InteropError> {
    let folder = folder_of(path, "memory-bank")?;
    let mut collector = Collector::default();
    for (stem, file) in files_with_ext(&folder, "md", &mut collector)? {
        let at = file.display().to_string();
        if collector.is_full() {
            collector.skip_full(at);
            continue;
        }
        let text = read_text(&file)?;
        let (description, body) = split_heading(&text);
        let (kind, body) = take_type_marker(&body);
        collector.add(
            at,
            &stem,
            kind.unwrap_or(MemoryType::Project),
            &description,
            body,
        );
    }
    Ok(collector.finish())
}

/// A leading `# ` heading (and one blank line after it) as the
/// description, and the rest as the body; else no description and the
/// whole text.
fn split_heading(text: &str) -> (String, String) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let Some(heading) = first.trim_end_matches('\r').strip_prefix("# ") else {
        return (String::new(), text.to_owned());
    };
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest);
    (heading.trim().to_owned(), rest.to_owned())
}

/// One `memory-bank/<name>.md` a memory: its description as the heading.
pub(crate) fn export_cline(memories: &[Memory]) -> Vec<ExportFile> {
    memories
        .iter()
        .map(|m| ExportFile {
            rel_path: format!("memory-bank/{}.md", m.name),
            contents: format!("# {}\n\n{}", m.description, with_type_marker(m)),
        })
        .collect()
}

/// Imports every `.mdc` rule as a `feedback` memory.
pub(crate) fn import_cursor(path: &Path) -> Result<Imported, InteropError> {
    let folder = folder_of(path, ".cursor/rules")?;
    let mut collector = Collector::default();
    for (stem, file) in files_with_ext(&folder, "mdc", &mut collector)? {
        let at = file.display().to_string();
        if collector.is_full() {
            collector.skip_full(at);
            continue;
        }
        let text = read_text(&file)?;
        let parsed = parse_memory_str(&text);
        let description = parsed.header.description.unwrap_or_default();
        let (kind, body) = take_type_marker(&parsed.body);
        collector.add(
            at,
            &stem,
            kind.unwrap_or(MemoryType::Feedback),
            &description,
            body,
        );
    }
    Ok(collector.finish())
}

/// One `.cursor/rules/<name>.mdc` a memory, applied when the description
/// says it is relevant.
pub(crate) fn export_cursor(memories: &[Memory]) -> Vec<ExportFile> {
    memories
        .iter()
        .map(|m| ExportFile {
            rel_path: format!(".cursor/rules/{}.mdc", m.name),
            contents: format!(
                "---\ndescription: {}\nglobs:\nalwaysApply: false\n---\n{}",
                yaml_quoted(&m.description),
                with_type_marker(m)
            ),
        })
        .collect()
}

/// The first line an export gives the body of a Cline or Cursor file, so
/// that the memory's type comes back on import: an HTML comment, which
/// neither tool shows.
const TYPE_MARKER: &str = "<!-- memdir-type: ";

/// The memory's body after a line that records its type.
fn with_type_marker(m: &Memory) -> String {
    format!("{TYPE_MARKER}{} -->\n{}", m.memory_type.as_str(), m.body)
}

/// The type a body's first line records, and the body without that line;
/// `None` and the body as it is when the first line is no such record.
fn take_type_marker(body: &str) -> (Option<MemoryType>, String) {
    let (first, rest) = body.split_once('\n').unwrap_or((body, ""));
    let kind = first
        .trim_end_matches('\r')
        .strip_prefix(TYPE_MARKER)
        .and_then(|l| l.strip_suffix(" -->"))
        .and_then(|t| t.parse::<MemoryType>().ok());
    match kind {
        Some(kind) => (Some(kind), rest.to_owned()),
        None => (None, body.to_owned()),
    }
}

/// A double-quoted YAML scalar (JSON string syntax is valid YAML).
fn yaml_quoted(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
