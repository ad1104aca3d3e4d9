//! Line-by-line recovery of the known keys from a block that is not valid
//! YAML (common in model-written files), in either shape (R2.5).

use super::parsed::{FrontmatterShape, METADATA, ParsedMemory};
use super::values::{modified_text, names_text, type_text};

/// The raw values of the known keys in one place (top level or
/// `metadata:`) of a block that is not valid YAML; the first occurrence wins.
#[derive(Default)]
struct Recovered {
    name: Option<String>,
    description: Option<String>,
    memory_type: Option<String>,
    modified: Option<String>,
    verified: Option<String>,
    supersedes: Option<String>,
    superseded_by: Option<String>,
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
            "verified" if prefix.is_empty() => &mut self.verified,
            "supersedes" if prefix.is_empty() => &mut self.supersedes,
            "supersededBy" if prefix.is_empty() => &mut self.superseded_by,
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
pub(super) fn recover_lines(yaml: &str, parsed: &mut ParsedMemory) {
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
    parsed.verified = top
        .verified
        .and_then(|v| modified_text("verified", &v, diags));
    parsed.supersedes = top.supersedes.map(|s| names_text(&s)).unwrap_or_default();
    parsed.superseded_by = top.superseded_by;
}

/// A value with one pair of surrounding quotes removed. Escapes are read
/// the way YAML reads them (`\"` and the others [`render_memory`](super::render_memory) writes in
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
