//! The known keys of a frontmatter block that is valid YAML, in either
//! shape (R2.5), and what their values may hold.

use std::collections::HashMap;

use gray_matter::Pod;

use super::parsed::{
    Diagnostic, FrontmatterShape, KNOWN_KEYS, MEMDIR_KEYS, METADATA, ParsedMemory,
};
use super::values::{modified_text, type_text};
use crate::types::MemoryType;

/// Reads the known keys of a parsed mapping, in either shape: a top-level
/// key that gives a value wins over the same key under `metadata:`, which is
/// then not looked at (R2.5).
pub(super) fn read_map(map: &HashMap<String, Pod>, parsed: &mut ParsedMemory) {
    let meta = match map.get(METADATA) {
        Some(Pod::Hash(meta)) => {
            parsed.shape = FrontmatterShape::Nested;
            Some(meta)
        }
        _ => None,
    };
    let mut unknown: Vec<String> = map
        .keys()
        .filter(|k| {
            !(KNOWN_KEYS.contains(&k.as_str())
                || MEMDIR_KEYS.contains(&k.as_str())
                || meta.is_some() && *k == METADATA)
        })
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
    parsed.verified = modified_value("verified", map.get("verified"), diags);
    parsed.supersedes = match map.get("supersedes") {
        Some(Pod::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Pod::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
                _ => None,
            })
            .collect(),
        Some(Pod::String(one)) => super::values::names_text(one),
        _ => Vec::new(),
    };
    parsed.superseded_by =
        text_value("supersededBy", map.get("supersededBy"), diags).filter(|s| !s.trim().is_empty());
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
