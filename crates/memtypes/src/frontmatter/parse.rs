//! Reading a memory tolerantly: the block is found (`block`), read as
//! YAML (the `simple` fast path, else `gray_matter`), and recovered line by
//! line (`recover`) when it is not valid YAML or not a mapping.

use gray_matter::Pod;
use gray_matter::engine::{Engine, YAML};

use super::block::split_frontmatter;
use super::parsed::{Diagnostic, ParsedMemory};
use super::recover::recover_lines;
use super::simple;
use super::yaml::read_map;

/// Reads a memory file's bytes tolerantly. Never fails, never panics.
///
/// ```
/// use memdir_memtypes::{parse_memory, MemoryType};
/// let m = parse_memory(b"---\nname: pnpm\ndescription: Note: use pnpm\ntype: feedback\n---\nBody\n");
/// assert_eq!(m.header.description.as_deref(), Some("Note: use pnpm"));
/// assert_eq!(m.header.memory_type, Some(MemoryType::Feedback));
/// assert_eq!(m.body, "Body\n");
/// assert_eq!(m.diagnostics.len(), 1); // the YAML was malformed, the fields were recovered
/// ```
#[must_use]
pub fn parse_memory(bytes: &[u8]) -> ParsedMemory {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_memory_str(text),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let mut parsed = parse_memory_str(&text);
            parsed.diagnostics.insert(
                0,
                Diagnostic::InvalidUtf8 {
                    offset: e.valid_up_to(),
                },
            );
            parsed
        }
    }
}

/// Reads a memory file's text tolerantly. Never fails, never panics.
#[must_use]
pub fn parse_memory_str(text: &str) -> ParsedMemory {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(split) = split_frontmatter(text) else {
        return ParsedMemory {
            body: text.to_owned(),
            ..ParsedMemory::default()
        };
    };
    let mut parsed = ParsedMemory {
        body: text[split.body_start..].to_owned(),
        has_frontmatter: true,
        ..ParsedMemory::default()
    };
    if !split.closed {
        parsed.diagnostics.push(Diagnostic::UnclosedFrontmatter);
    }
    read_block(&split.yaml, &mut parsed);
    parsed
}

/// Reads the known keys of a frontmatter block into `parsed`.
fn read_block(yaml: &str, parsed: &mut ParsedMemory) {
    if yaml.trim().is_empty() {
        return;
    }
    let parsed_yaml = match simple::simple_block(yaml) {
        Some(map) => Ok(Pod::Hash(map)),
        None => YAML::parse(yaml),
    };
    match parsed_yaml {
        Ok(Pod::Hash(map)) => read_map(&map, parsed),
        Ok(Pod::Null) => {}
        Ok(_) => {
            parsed.diagnostics.push(Diagnostic::NotAMapping);
            recover_lines(yaml, parsed);
        }
        Err(e) => {
            parsed.diagnostics.push(Diagnostic::MalformedYaml {
                message: first_line(&e.to_string()),
            });
            recover_lines(yaml, parsed);
        }
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}
