//! Writing memdir's own top-level keys ([`MEMDIR_KEYS`]) into a memory's
//! frontmatter by editing lines, so that everything else in the file stays
//! byte for byte.

use std::fmt::Write as _;

use super::block::split_frontmatter;
use super::parsed::MEMDIR_KEYS;
use super::render::{scalar, time_scalar};

/// The value of one of memdir's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemdirValue {
    /// A time, as `modified:` is written (`verified: 2026-12-01T12:00:00Z`).
    Time(jiff::Timestamp),
    /// A one-line text (`supersededBy: new.md`).
    Text(String),
    /// A list of file names, written as a block list.
    Names(Vec<String>),
}

/// Sets (`Some`) or removes (`None`) one of memdir's top-level keys
/// (`verified`, `supersedes`, `supersededBy`) in a memory file's text.
///
/// The key's line, and the indented or `- ` lines that continue it, are
/// replaced in place, or the key is added just before the closing `---`;
/// every other line of the file is kept as it is. A file without
/// frontmatter gets a block holding only this key.
///
/// # Panics
///
/// When `key` is not one of [`MEMDIR_KEYS`]: the keys memdir writes are
/// fixed, and writing another is a programming error.
///
/// ```
/// use memdir_memtypes::{parse_memory_str, set_memdir_key, MemdirValue};
/// let text = "---\nname: old-deploy\nmetadata:\n  type: project\n---\nDeploy with make.\n";
/// let new = set_memdir_key(text, "supersedes", Some(&MemdirValue::Names(vec!["a.md".into(), "b c.md".into()])));
/// assert_eq!(new, "---\nname: old-deploy\nmetadata:\n  type: project\nsupersedes:\n  - a.md\n  - b c.md\n---\nDeploy with make.\n");
/// assert_eq!(parse_memory_str(&new).supersedes, ["a.md", "b c.md"]);
/// assert_eq!(set_memdir_key(&new, "supersedes", None), text);
/// ```
#[must_use]
pub fn set_memdir_key(original: &str, key: &str, value: Option<&MemdirValue>) -> String {
    assert!(
        MEMDIR_KEYS.contains(&key),
        "{key} is not one of memdir's keys"
    );
    let (bom, text) = match original.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", original),
    };
    let crlf = text.split('\n').next().is_some_and(|l| l.ends_with('\r'));
    let eol = if crlf { "\r\n" } else { "\n" };
    let rendered = value.map(|v| render(key, v, eol));
    let closed = split_frontmatter(text).is_some_and(|s| s.closed);
    if !closed {
        let Some(rendered) = rendered else {
            return original.to_owned();
        };
        // No frontmatter (or a block never closed, which is left alone):
        // a block of this key alone goes first.
        return format!("{bom}---{eol}{rendered}---{eol}{text}");
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut lines = text.split_inclusive('\n');
    out.push_str(lines.next().unwrap_or_default());
    let mut replaced = false;
    let mut skipping = false;
    for line in lines.by_ref() {
        let content = line.trim_end_matches(['\r', '\n']);
        if content.trim_end() == "---" {
            if !replaced && let Some(r) = &rendered {
                out.push_str(r);
            }
            out.push_str(line);
            break;
        }
        if skipping
            && (content.starts_with([' ', '\t']) || content.starts_with("- ") || content == "-")
        {
            continue;
        }
        skipping = false;
        if is_key_line(content, key) {
            skipping = true;
            if !replaced && let Some(r) = &rendered {
                out.push_str(r);
            }
            replaced = true;
            continue;
        }
        out.push_str(line);
    }
    for line in lines {
        out.push_str(line);
    }
    format!("{bom}{out}")
}

/// Whether `line` is a top-level `key:` line.
fn is_key_line(line: &str, key: &str) -> bool {
    line.strip_prefix(key)
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

fn render(key: &str, value: &MemdirValue, eol: &str) -> String {
    match value {
        MemdirValue::Time(time) => format!("{key}: {}{eol}", time_scalar(*time)),
        MemdirValue::Text(text) => format!("{key}: {}{eol}", scalar(text)),
        MemdirValue::Names(names) if names.is_empty() => format!("{key}: []{eol}"),
        MemdirValue::Names(names) => {
            let mut out = format!("{key}:{eol}");
            for name in names {
                let _ = write!(out, "  - {}{eol}", scalar(name));
            }
            out
        }
    }
}

/// Which memories others replaced, each with the file that replaced it,
/// from each memory's file name (relative to the memory folder), its
/// `supersedes:` and its `supersededBy:`: a name listed in another's
/// `supersedes:` (`./` and a leading `/` ignored), or a memory whose own
/// `supersededBy:` names a replacement. A memory never supersedes itself;
/// the first claim on a file wins.
///
/// ```
/// let found = memdir_memtypes::superseded_map([
///     ("deploy-v2.md", vec!["./deploy.md".to_owned()], None),
///     ("old-ci.md", vec![], Some("ci.md".to_owned())),
/// ]);
/// assert_eq!(found["deploy.md"], "deploy-v2.md");
/// assert_eq!(found["old-ci.md"], "ci.md");
/// ```
#[must_use]
pub fn superseded_map<'a, I>(memories: I) -> std::collections::BTreeMap<String, String>
where
    I: IntoIterator<Item = (&'a str, Vec<String>, Option<String>)>,
{
    let clean = |name: &str| {
        name.trim()
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_owned()
    };
    let mut out = std::collections::BTreeMap::new();
    for (file, supersedes, by) in memories {
        for old in &supersedes {
            let old = clean(old);
            if !old.is_empty() && old != file {
                out.entry(old).or_insert_with(|| file.to_owned());
            }
        }
        if let Some(by) = by {
            let by = clean(&by);
            if !by.is_empty() && by != file {
                out.entry(file.to_owned()).or_insert(by);
            }
        }
    }
    out
}
