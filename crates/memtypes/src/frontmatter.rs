//! Tolerant reading of a memory file's YAML frontmatter, and rendering a
//! memory back to text (SPEC R2.1, R2.2, R2.5).
//!
//! Memory files are written by people and by models, so odd files are the
//! normal case: a UTF-8 BOM, CRLF line ends, an unclosed `---`, YAML that a
//! strict parser rejects (`description: Note: use pnpm`), unknown keys,
//! numbers where strings belong, bytes that are not UTF-8. [`parse_memory`]
//! never fails and never panics on any of them: it returns the fields it
//! could read and a [`Diagnostic`] for each thing that was wrong.
//!
//! YAML itself is parsed by `gray_matter`'s YAML engine, except for the
//! common block of plain `key: value` lines, which a fast path reads the
//! same way YAML would (see `simple`). The delimiter
//! handling is ours, because `gray_matter` does not see frontmatter behind a
//! BOM, silently drops an unclosed block, and rewrites the body's line ends.
//!
//! Two shapes are read (R2.5): the flat R2.1 block (`name`, `description`,
//! `type` at the top level), and the block the reference agent writes since
//! 2.1.146, where `type` (and `modified`, since 2.1.214) sit in a nested
//! `metadata:` mapping beside keys memdir does not use (`node_type`,
//! `originSessionId`). A top-level key wins over its `metadata.` twin.
//! [`update_memory`] rewrites an existing file in the shape it has.

use std::collections::HashMap;
use std::fmt;

use gray_matter::Pod;
use gray_matter::engine::{Engine, YAML};

use crate::MemoryType;

/// The fields of a memory's frontmatter that memdir uses.
///
/// Every field is optional: a file may have no frontmatter at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Short kebab-case name of the memory (`name:`).
    pub name: Option<String>,
    /// One specific line saying what the memory holds (`description:`); it is
    /// what relevance judgements read.
    pub description: Option<String>,
    /// The memory type (`type:`); `None` for untyped memories.
    pub memory_type: Option<MemoryType>,
}

/// Something odd about a memory file that did not stop it from being read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Diagnostic {
    /// The file is not valid UTF-8; invalid bytes were replaced by U+FFFD.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence in the original bytes.
        offset: usize,
    },
    /// The file opens a frontmatter block with `---` but never closes it.
    /// The leading `key: value` lines were read as frontmatter anyway.
    UnclosedFrontmatter,
    /// The frontmatter is not valid YAML; the known keys were recovered line
    /// by line.
    MalformedYaml {
        /// The YAML parser's message.
        message: String,
    },
    /// The frontmatter is valid YAML but not a mapping of keys to values.
    NotAMapping,
    /// A known key holds something other than a string.
    NonStringValue {
        /// The key (`name`, `description` or `type`).
        key: &'static str,
        /// What it holds instead (`a number`, `a list`, …).
        found: &'static str,
    },
    /// `type:` holds a string that is not one of the four memory types.
    UnknownType {
        /// The value found.
        value: String,
    },
    /// `modified:` holds something that is not an ISO 8601 time; the file's
    /// mtime is used instead.
    InvalidModified {
        /// The key (`modified` or `metadata.modified`).
        key: &'static str,
        /// The value found, as text.
        value: String,
    },
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::InvalidUtf8 { offset } => {
                write!(f, "invalid UTF-8 at byte {offset}; invalid bytes replaced")
            }
            Diagnostic::UnclosedFrontmatter => {
                f.write_str("frontmatter opened with `---` is never closed")
            }
            Diagnostic::MalformedYaml { message } => {
                write!(
                    f,
                    "frontmatter is not valid YAML ({message}); fields recovered line by line"
                )
            }
            Diagnostic::NotAMapping => {
                f.write_str("frontmatter is not a mapping of keys to values")
            }
            Diagnostic::NonStringValue { key, found } => {
                write!(f, "`{key}` holds {found}, not a string")
            }
            Diagnostic::UnknownType { value } => write!(
                f,
                "unknown memory type {value:?} (expected user, feedback, project or reference); treated as untyped"
            ),
            Diagnostic::InvalidModified { key, value } => write!(
                f,
                "`{key}` holds {value:?}, not an ISO 8601 time; the file's mtime is used"
            ),
        }
    }
}

/// A memory file as read: its header, its body and what was odd about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedMemory {
    /// The frontmatter fields that could be read.
    pub header: Header,
    /// Everything after the frontmatter block, byte for byte (line ends are
    /// kept as they were). The whole text when there is no frontmatter.
    pub body: String,
    /// Whether the file opens a frontmatter block (closed or not).
    pub has_frontmatter: bool,
    /// Which of the two frontmatter shapes the file has (R2.5); an update
    /// keeps it (see [`update_memory`]).
    pub shape: FrontmatterShape,
    /// The write time the frontmatter records (`modified:`, top-level or
    /// under `metadata:`), when it is a valid ISO 8601 time. It may lie in
    /// the future; [`effective_time_ms`](crate::effective_time_ms) caps it.
    pub modified: Option<jiff::Timestamp>,
    /// Keys of the frontmatter that memdir does not use, sorted; those under
    /// `metadata:` as `metadata.<key>`. Keeping them is not an error; they
    /// are listed so that a rewrite can warn about them.
    pub unknown_keys: Vec<String>,
    /// What was odd about the file, in the order found. Empty for a clean file.
    pub diagnostics: Vec<Diagnostic>,
}

/// The two ways a memory's frontmatter is laid out (SPEC R2.5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FrontmatterShape {
    /// The R2.1 shape: `name`, `description` and `type` at the top level.
    /// Also the shape of a file without frontmatter, and of every new memory.
    #[default]
    Flat,
    /// The reference agent's shape since 2.1.146: a `metadata:` mapping
    /// holds `type` (and `modified`, `node_type`, `originSessionId`, …);
    /// `name` and `description` may sit at the top level or inside it.
    Nested,
}

impl FrontmatterShape {
    /// `flat` or `nested`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FrontmatterShape::Flat => "flat",
            FrontmatterShape::Nested => "nested",
        }
    }
}

impl fmt::Display for FrontmatterShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The keys memdir reads, at the top level and under `metadata:`.
const KNOWN_KEYS: [&str; 4] = ["name", "description", "type", "modified"];
/// The key of the nested block (R2.5).
const METADATA: &str = "metadata";

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

/// Where the frontmatter block and the body lie in a text.
struct Split {
    /// The block's lines with line ends normalised to `\n`.
    yaml: String,
    /// Byte offset at which the body starts.
    body_start: usize,
    /// Whether a closing `---` was found.
    closed: bool,
}

/// Splits `text` (BOM already removed) into frontmatter and body, or `None`
/// when the first line is not `---`.
fn split_frontmatter(text: &str) -> Option<Split> {
    let mut lines = LineSpans::new(text);
    let (first, _) = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut yaml = String::new();
    // For an unclosed block: where the leading run of YAML-looking lines
    // ends, as (length of `yaml` then, byte offset where the body starts).
    let mut run_end: Option<(usize, usize)> = None;
    for (line, end) in lines {
        let content = line.trim_end_matches(['\r', '\n']);
        if content.trim_end() == "---" {
            return Some(Split {
                yaml,
                body_start: end,
                closed: true,
            });
        }
        if run_end.is_none() {
            if content.trim().is_empty() {
                run_end = Some((yaml.len(), end));
            } else if !looks_like_yaml(content) {
                run_end = Some((yaml.len(), end - line.len()));
            }
        }
        yaml.push_str(content);
        yaml.push('\n');
    }
    // Unclosed: the leading run of YAML-looking lines is the block (all of
    // them when the run never ends, as in a file cut after its first lines).
    let (yaml_len, body_start) = run_end.unwrap_or((yaml.len(), text.len()));
    yaml.truncate(yaml_len);
    Some(Split {
        yaml,
        body_start,
        closed: false,
    })
}

/// Whether a line can belong to a YAML block: a `key: value` line, a
/// continuation (indented), a list item or a comment.
fn looks_like_yaml(line: &str) -> bool {
    line.starts_with([' ', '\t', '-', '#']) || line.contains(':')
}

/// Iterates over the lines of a text, each with its line end, together with
/// the byte offset just past it.
struct LineSpans<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> LineSpans<'a> {
    fn new(text: &'a str) -> Self {
        LineSpans { text, pos: 0 }
    }
}

impl<'a> Iterator for LineSpans<'a> {
    type Item = (&'a str, usize);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        self.pos += len;
        Some((&rest[..len], self.pos))
    }
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

/// Reads the known keys of a parsed mapping, in either shape: a top-level
/// key that gives a value wins over the same key under `metadata:`, which is
/// then not looked at (R2.5).
fn read_map(map: &HashMap<String, Pod>, parsed: &mut ParsedMemory) {
    let meta = match map.get(METADATA) {
        Some(Pod::Hash(meta)) => {
            parsed.shape = FrontmatterShape::Nested;
            Some(meta)
        }
        _ => None,
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| !(KNOWN_KEYS.contains(&k.as_str()) || meta.is_some() && *k == METADATA))
        .cloned()
        .collect();
    if let Some(meta) = meta {
        unknown.extend(
            meta.keys()
                .filter(|k| !KNOWN_KEYS.contains(&k.as_str()))
                .map(|k| format!("{METADATA}.{k}")),
        );
    }
    unknown.sort();
    parsed.unknown_keys = unknown;

    let diags = &mut parsed.diagnostics;
    let nested = |key: &str| meta.and_then(|m| m.get(key));
    let header = &mut parsed.header;
    header.name = text_value("name", map.get("name"), diags)
        .or_else(|| text_value("metadata.name", nested("name"), diags));
    header.description = text_value("description", map.get("description"), diags)
        .or_else(|| text_value("metadata.description", nested("description"), diags));
    header.memory_type = type_value("type", map.get("type"), diags)
        .or_else(|| type_value("metadata.type", nested("type"), diags));
    parsed.modified = modified_value("modified", map.get("modified"), diags)
        .or_else(|| modified_value("metadata.modified", nested("modified"), diags));
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

fn describe(pod: &Pod) -> &'static str {
    match pod {
        Pod::Null => "nothing",
        Pod::String(_) => "a string",
        Pod::Integer(_) | Pod::Float(_) => "a number",
        Pod::Boolean(_) => "a boolean",
        Pod::Array(_) => "a list",
        Pod::Hash(_) => "a mapping",
    }
}

/// A text field: strings as they are; numbers and booleans are what the
/// author meant to write as text, so they are kept (with a diagnostic);
/// lists and mappings cannot be a one-line text and are dropped.
fn text_value(key: &'static str, pod: Option<&Pod>, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let pod = pod?;
    let text = match pod {
        Pod::Null => return None,
        Pod::String(s) => return Some(s.clone()),
        Pod::Integer(i) => Some(i.to_string()),
        Pod::Float(x) => Some(x.to_string()),
        Pod::Boolean(b) => Some(b.to_string()),
        Pod::Array(_) | Pod::Hash(_) => None,
    };
    diags.push(Diagnostic::NonStringValue {
        key,
        found: describe(pod),
    });
    text
}

/// The type field: only an exact string is a type (SPEC R1.1).
fn type_value(
    key: &'static str,
    pod: Option<&Pod>,
    diags: &mut Vec<Diagnostic>,
) -> Option<MemoryType> {
    match pod? {
        Pod::Null => None,
        Pod::String(s) => type_text(s, diags),
        other => {
            diags.push(Diagnostic::NonStringValue {
                key,
                found: describe(other),
            });
            None
        }
    }
}

fn type_text(value: &str, diags: &mut Vec<Diagnostic>) -> Option<MemoryType> {
    let parsed = MemoryType::parse(value);
    if parsed.is_none() {
        diags.push(Diagnostic::UnknownType {
            value: value.to_owned(),
        });
    }
    parsed
}

/// The write time: an ISO 8601 string; a number (say, epoch milliseconds)
/// is not one, since its unit would be a guess.
fn modified_value(
    key: &'static str,
    pod: Option<&Pod>,
    diags: &mut Vec<Diagnostic>,
) -> Option<jiff::Timestamp> {
    let value = match pod? {
        Pod::Null => return None,
        Pod::String(s) => s.clone(),
        Pod::Integer(i) => i.to_string(),
        Pod::Float(x) => x.to_string(),
        other => {
            diags.push(Diagnostic::NonStringValue {
                key,
                found: describe(other),
            });
            return None;
        }
    };
    modified_text(key, &value, diags)
}

fn modified_text(
    key: &'static str,
    value: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<jiff::Timestamp> {
    let parsed = parse_iso_time(value);
    if parsed.is_none() {
        diags.push(Diagnostic::InvalidModified {
            key,
            value: value.to_owned(),
        });
    }
    parsed
}

/// An ISO 8601 time: a timestamp with an offset (`2026-03-05T09:30:00Z`,
/// `…+01:00`) as the reference agent writes it, or, as a person might, a
/// date and time without an offset or a bare date, both read as UTC.
#[must_use]
pub fn parse_iso_time(value: &str) -> Option<jiff::Timestamp> {
    let value = value.trim();
    if let Ok(ts) = value.parse::<jiff::Timestamp>() {
        return Some(ts);
    }
    let datetime = value.parse::<jiff::civil::DateTime>().ok().or_else(|| {
        value
            .parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    })?;
    jiff::tz::Offset::UTC.to_timestamp(datetime).ok()
}

/// The raw values of the known keys in one place (top level or
/// `metadata:`) of a block that is not valid YAML; the first occurrence wins.
#[derive(Default)]
struct Recovered {
    name: Option<String>,
    description: Option<String>,
    memory_type: Option<String>,
    modified: Option<String>,
}

impl Recovered {
    /// Takes one `key: value` line; an unknown key goes to `unknown` with
    /// `prefix` before it.
    fn take(&mut self, key: &str, value: &str, prefix: &str, unknown: &mut Vec<String>) {
        let slot = match key {
            "name" => &mut self.name,
            "description" => &mut self.description,
            "type" => &mut self.memory_type,
            "modified" => &mut self.modified,
            other => {
                if !other.is_empty() && !other.contains(char::is_whitespace) {
                    unknown.push(format!("{prefix}{other}"));
                }
                return;
            }
        };
        // An empty value is YAML's null: nothing was written.
        if slot.is_none() && !value.is_empty() {
            *slot = Some(unquote(value));
        }
    }
}

/// Recovers the known keys from a block that is not valid YAML: a line
/// `key: value` at the start of a line, or indented below a `metadata:`
/// line (or inside a one-line `metadata: {…}`); the first occurrence wins,
/// a top-level key wins over its `metadata.` twin; the value is the rest of
/// the line with one pair of surrounding quotes removed.
fn recover_lines(yaml: &str, parsed: &mut ParsedMemory) {
    let mut top = Recovered::default();
    let mut meta = Recovered::default();
    let mut unknown = Vec::new();
    let mut in_meta = false;
    let prefix = "metadata.";
    for line in yaml.lines() {
        if line.starts_with([' ', '\t']) {
            let inner = line.trim_start();
            if in_meta
                && !inner.starts_with(['#', '-'])
                && let Some((key, value)) = inner.split_once(':')
            {
                meta.take(key.trim_end(), value.trim(), prefix, &mut unknown);
            }
            continue;
        }
        if !line.trim().is_empty() {
            in_meta = false;
        }
        if line.starts_with(['#', '-']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim_end(), value.trim());
        if key != METADATA {
            top.take(key, value, "", &mut unknown);
            continue;
        }
        parsed.shape = FrontmatterShape::Nested;
        if value.is_empty() || value.starts_with('#') {
            in_meta = true;
        } else if let Some(inner) = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
            for pair in inner.split(',') {
                if let Some((key, value)) = pair.split_once(':') {
                    meta.take(key.trim(), value.trim(), prefix, &mut unknown);
                }
            }
        }
    }
    unknown.sort();
    unknown.dedup();
    parsed.unknown_keys = unknown;

    let diags = &mut parsed.diagnostics;
    let header = &mut parsed.header;
    header.name = top.name.or(meta.name);
    header.description = top.description.or(meta.description);
    header.memory_type = top
        .memory_type
        .and_then(|t| type_text(&t, diags))
        .or_else(|| meta.memory_type.and_then(|t| type_text(&t, diags)));
    parsed.modified = top
        .modified
        .and_then(|m| modified_text("modified", &m, diags))
        .or_else(|| {
            meta.modified
                .and_then(|m| modified_text("metadata.modified", &m, diags))
        });
}

/// A value with one pair of surrounding quotes removed. Escapes are read
/// the way YAML reads them (`\"` and the others [`render_memory`] writes in
/// a double-quoted value, `''` in a single-quoted one), so that a value
/// memdir wrote is recovered intact even when another line of the block is
/// not valid YAML; an escape memdir does not write leaves the text as it is.
fn unquote(value: &str) -> String {
    if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
        return value.to_owned();
    };
    unescape_double(inner).unwrap_or_else(|| inner.to_owned())
}

fn unescape_double(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '"' {
            return None; // an unescaped quote: not one quoted value
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(code)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Renders a memory as frontmatter plus body, so that [`parse_memory_str`]
/// reads back the same header and the same body.
///
/// Values are written as plain YAML scalars when that is unambiguous and
/// double-quoted (with escapes) otherwise.
///
/// ```
/// use memdir_memtypes::{parse_memory_str, render_memory, Header, MemoryType};
/// let header = Header {
///     name: Some("pnpm".into()),
///     description: Some("Note: use pnpm, not npm".into()),
///     memory_type: Some(MemoryType::Feedback),
/// };
/// let text = render_memory(&header, "Use pnpm.\n");
/// assert_eq!(text, "---\nname: pnpm\ndescription: \"Note: use pnpm, not npm\"\ntype: feedback\n---\nUse pnpm.\n");
/// let back = parse_memory_str(&text);
/// assert_eq!(back.header, header);
/// assert_eq!(back.body, "Use pnpm.\n");
/// ```
#[must_use]
pub fn render_memory(header: &Header, body: &str) -> String {
    render_in(FrontmatterShape::Flat, header, None, body)
}

/// Renders a memory afresh in `shape`: the flat shape writes `modified` at
/// the top level after `type`; the nested one writes `name` and
/// `description` at the top level and `type` and `modified` under
/// `metadata:` (as an empty `metadata: {}` when it has neither, so that the
/// file keeps its shape).
fn render_in(
    shape: FrontmatterShape,
    header: &Header,
    modified: Option<jiff::Timestamp>,
    body: &str,
) -> String {
    let mut out = String::from("---\n");
    if let Some(name) = &header.name {
        push_field(&mut out, "name", name);
    }
    if let Some(description) = &header.description {
        push_field(&mut out, "description", description);
    }
    let indent = match shape {
        FrontmatterShape::Flat => "",
        FrontmatterShape::Nested if header.memory_type.is_none() && modified.is_none() => {
            out.push_str("metadata: {}\n");
            ""
        }
        FrontmatterShape::Nested => {
            out.push_str("metadata:\n");
            "  "
        }
    };
    if let Some(t) = header.memory_type {
        out.push_str(indent);
        push_field(&mut out, "type", t.as_str());
    }
    if let Some(time) = modified {
        out.push_str(indent);
        out.push_str("modified: ");
        out.push_str(&time_scalar(time));
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(body);
    out
}

/// A time as YAML: RFC 3339 in UTC, plain when it starts with its four-digit
/// year (YAML reads `2026-03-05T09:30:00Z` as that string, and a YAML 1.1
/// reader as that time), quoted for the years before 1 that start with `-`.
fn time_scalar(time: jiff::Timestamp) -> String {
    let text = time.to_string();
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        text
    } else {
        format!("\"{text}\"")
    }
}

/// A string as a YAML scalar (see [`push_scalar`]).
fn scalar(value: &str) -> String {
    let mut out = String::new();
    push_scalar(&mut out, value);
    out
}

fn push_field(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(": ");
    push_scalar(out, value);
    out.push('\n');
}

/// Words a YAML reader may take for something other than a string.
const RESERVED: [&str; 12] = [
    "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", ".inf", ".nan",
];

/// Whether `value` reads back as the same string when written plain.
fn is_plain_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    first.is_alphabetic()
        && !value.ends_with(' ')
        && !RESERVED.iter().any(|r| value.eq_ignore_ascii_case(r))
        && value.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '/' | '(' | ')')
        })
}

fn push_scalar(out: &mut String, value: &str) {
    use std::fmt::Write;

    if is_plain_safe(value) {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            // Everything YAML does not count as printable, and the characters
            // some readers treat as line breaks or a byte-order mark.
            c if c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

mod simple;
mod update;

pub use update::update_memory;

#[cfg(test)]
mod tests;
