//! Rewriting an existing memory file in the shape it already has (SPEC
//! R2.5): a nested `metadata:` block stays nested, and the keys memdir does
//! not know (`node_type`, `originSessionId`, comments, anything else) stay
//! where they were, in their order, byte for byte.
//!
//! The rewrite edits the frontmatter's lines rather than re-emitting parsed
//! YAML: the YAML reader keeps no key order and no comments, and a block
//! that is not valid YAML (common in model-written files) must still keep
//! its other lines. Only the lines of the known keys are replaced, removed
//! or added. The result is then read back; should it not read as the
//! requested header (a block too odd for a line edit, such as a one-line
//! `metadata: {…}` whose `type` must go), the memory is rendered afresh in
//! the same shape instead, so the requested values always hold.

use super::block::split_frontmatter;
use super::parse::parse_memory_str;
use super::parsed::{FrontmatterShape, Header, KNOWN_KEYS, METADATA};
use super::render::{render_in, scalar, time_scalar};

/// Rewrites a memory file's text with a new header and body, keeping the
/// file's frontmatter shape and every key memdir does not use.
///
/// - `name`, `description` and `type` are set where the file has them (at
///   the top level, under `metadata:`, or both: each occurrence is set),
///   and removed when `header` has `None`. A key the file lacks is added
///   where its shape puts it: `name` and `description` at the top level,
///   `type` under `metadata:` in the nested shape.
/// - `modified`: `Some(time)` records `time` the same way (the reference
///   agent records every write: pass the write time for a
///   [`FrontmatterShape::Nested`] file); `None` leaves whatever `modified`
///   the file has untouched.
/// - The body is replaced; a UTF-8 BOM and CRLF line ends of the
///   frontmatter are kept.
///
/// A file without frontmatter gets the R2.1 shape, as a new memory would.
///
/// ```
/// use memdir_memtypes::{parse_memory_str, update_memory, FrontmatterShape, Header, MemoryType};
/// let old = "---\nname: pnpm\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 9f2c\n---\nUse pnpm.\n";
/// let header = Header {
///     memory_type: Some(MemoryType::Project),
///     ..parse_memory_str(old).header
/// };
/// let new = update_memory(old, &header, None, "Use pnpm 9.\n");
/// assert_eq!(new, "---\nname: pnpm\nmetadata:\n  node_type: memory\n  type: project\n  originSessionId: 9f2c\n---\nUse pnpm 9.\n");
/// assert_eq!(parse_memory_str(&new).shape, FrontmatterShape::Nested);
/// ```
#[must_use]
pub fn update_memory(
    original: &str,
    header: &Header,
    modified: Option<jiff::Timestamp>,
    body: &str,
) -> String {
    let before = parse_memory_str(original);
    let expected_modified = modified.or(before.modified);
    let (bom, text) = match original.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", original),
    };
    let Some(split) = split_frontmatter(text) else {
        return render_in(FrontmatterShape::Flat, header, modified, body);
    };
    let eol = if text.split('\n').next().is_some_and(|l| l.ends_with('\r')) {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = String::with_capacity(original.len() + body.len());
    out.push_str(bom);
    out.push_str("---");
    out.push_str(eol);
    for line in edit_block(&split.yaml, before.shape, header, modified) {
        out.push_str(&line);
        out.push_str(eol);
    }
    out.push_str("---");
    out.push_str(eol);
    out.push_str(body);

    let after = parse_memory_str(&out);
    if after.header == *header
        && after.modified == expected_modified
        && after.body == body
        && after.shape == before.shape
    {
        out
    } else {
        render_in(before.shape, header, expected_modified, body)
    }
}

/// What an update does to one known key.
enum Edit {
    /// Set every occurrence to this YAML scalar, adding the key if none.
    Set(String),
    /// Remove every occurrence.
    Remove,
    /// Leave it as it is.
    Keep,
}

/// A run of lines of the block: one key with its continuation lines (a
/// multi-line value, a nested mapping), or lines that are no key of this
/// level (comments, blank lines, anything odd), kept as they are.
struct Item {
    key: Option<String>,
    lines: Vec<String>,
    /// Whether this is the nested block, whose children are edited apart.
    nested: bool,
}

/// The block's lines after the edits, without line ends.
fn edit_block(
    yaml: &str,
    shape: FrontmatterShape,
    header: &Header,
    modified: Option<jiff::Timestamp>,
) -> Vec<String> {
    let lines: Vec<String> = yaml.lines().map(str::to_owned).collect();
    // YAML allows a whole block to be indented alike; its keys are those at
    // the indentation of its first line.
    let base = content_indent(&lines).unwrap_or(0);
    let top_indent = " ".repeat(base);
    let mut items = group(lines, base);

    // The nested block, when it is one editable in place: `metadata:` on a
    // line of its own, its keys indented below it. Its children are edited
    // apart and put back after its first line.
    let mut nested: Option<(Vec<Item>, String)> = None;
    if shape == FrontmatterShape::Nested
        && let Some(block) = items
            .iter_mut()
            .find(|i| i.key.as_deref() == Some(METADATA) && opens_block(&i.lines[0]))
    {
        block.nested = true;
        let children: Vec<String> = block.lines.drain(1..).collect();
        let indent = content_indent(&children).unwrap_or(base + 2).max(base + 1);
        nested = Some((group(children, indent), " ".repeat(indent)));
    }

    let text_edit = |value: &Option<String>| {
        value
            .as_deref()
            .map_or(Edit::Remove, |v| Edit::Set(scalar(v)))
    };
    let edits = [
        ("name", text_edit(&header.name)),
        ("description", text_edit(&header.description)),
        (
            "type",
            header
                .memory_type
                .map_or(Edit::Remove, |t| Edit::Set(t.as_str().to_owned())),
        ),
        (
            "modified",
            modified.map_or(Edit::Keep, |t| Edit::Set(time_scalar(t))),
        ),
    ];
    for (key, edit) in &edits {
        let mut found = apply(&mut items, key, edit, &top_indent);
        if let Some((children, indent)) = &mut nested {
            found |= apply(children, key, edit, indent);
        }
        let Edit::Set(value) = edit else {
            continue;
        };
        if found {
            continue;
        }
        match &mut nested {
            Some((children, indent)) if matches!(*key, "type" | "modified") => {
                let at = children
                    .iter()
                    .rposition(|i| i.key.is_some())
                    .map_or(0, |i| i + 1);
                children.insert(at, keyed(indent, key, value));
            }
            _ => {
                let at = insertion_point(&items, key);
                items.insert(at, keyed(&top_indent, key, value));
            }
        }
    }

    let mut children = nested.map(|(children, _)| children).unwrap_or_default();
    let mut out = Vec::new();
    for item in items {
        out.extend(item.lines);
        if item.nested {
            out.extend(
                std::mem::take(&mut children)
                    .into_iter()
                    .flat_map(|c| c.lines),
            );
        }
    }
    out
}

/// The indentation of the first line that is neither blank nor a comment.
fn content_indent(lines: &[String]) -> Option<usize> {
    lines
        .iter()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.len() - l.trim_start_matches(' ').len())
}

/// Where a top-level `key` the block lacks goes: after the known keys that
/// come before it in R2.1 order (`name`, `description`, `type`,
/// `modified`), else before the first known key, else first.
fn insertion_point(items: &[Item], key: &str) -> usize {
    let rank = |k: &str| KNOWN_KEYS.iter().position(|known| *known == k);
    let mine = rank(key);
    let known = |i: &Item| i.key.as_deref().and_then(rank);
    if let Some(last_before) = items
        .iter()
        .rposition(|i| known(i) < mine && known(i).is_some())
    {
        return last_before + 1;
    }
    items.iter().position(|i| known(i).is_some()).unwrap_or(0)
}

fn keyed(indent: &str, key: &str, value: &str) -> Item {
    Item {
        key: Some(key.to_owned()),
        lines: vec![format!("{indent}{key}: {value}")],
        nested: false,
    }
}

/// Applies `edit` to every item of `key`; whether there was one.
fn apply(items: &mut Vec<Item>, key: &str, edit: &Edit, indent: &str) -> bool {
    let mut found = false;
    items.retain_mut(|item| {
        if item.key.as_deref() != Some(key) {
            return true;
        }
        found = true;
        match edit {
            Edit::Keep => true,
            Edit::Remove => false,
            Edit::Set(value) => {
                item.lines = vec![format!("{indent}{key}: {value}")];
                true
            }
        }
    });
    found
}

/// Whether a `metadata:` line opens an indented block (nothing but a
/// comment after the colon), rather than holding a one-line value.
fn opens_block(line: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(_, rest)| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
}

/// Splits lines into items at indentation `indent`: a line indented by
/// exactly that much that starts with a key opens an item; more deeply
/// indented lines, and blank lines between them, continue it.
fn group(lines: Vec<String>, indent: usize) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut blanks: Vec<String> = Vec::new();
    let other = |lines: Vec<String>| Item {
        key: None,
        lines,
        nested: false,
    };
    for line in lines {
        if line.trim().is_empty() {
            blanks.push(line);
            continue;
        }
        let lead = line.len() - line.trim_start_matches(' ').len();
        if lead > indent {
            match items.last_mut() {
                Some(last) if last.key.is_some() => {
                    last.lines.append(&mut blanks);
                    last.lines.push(line);
                }
                _ => {
                    if !blanks.is_empty() {
                        items.push(other(std::mem::take(&mut blanks)));
                    }
                    items.push(other(vec![line]));
                }
            }
            continue;
        }
        if !blanks.is_empty() {
            items.push(other(std::mem::take(&mut blanks)));
        }
        let key = (lead == indent).then(|| key_of(&line[lead..])).flatten();
        items.push(Item {
            key,
            lines: vec![line],
            nested: false,
        });
    }
    if !blanks.is_empty() {
        items.push(other(blanks));
    }
    items
}

/// The key of a `key: value` (or `key:`) line, without quotes.
fn key_of(rest: &str) -> Option<String> {
    if rest.starts_with(['#', '?', '-', ' ', '\t']) {
        return None;
    }
    let bytes = rest.as_bytes();
    let colon = (0..bytes.len()).find(|&i| {
        bytes[i] == b':' && bytes.get(i + 1).is_none_or(|b| *b == b' ' || *b == b'\t')
    })?;
    let key = rest[..colon].trim_end();
    let key = ['"', '\'']
        .iter()
        .find_map(|q| key.strip_prefix(*q).and_then(|k| k.strip_suffix(*q)))
        .unwrap_or(key);
    (!key.is_empty()).then(|| key.to_owned())
}

#[cfg(test)]
mod tests;
