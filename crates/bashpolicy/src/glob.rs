//! Glob words, expanded as Bash expands them with its default options,
//! but only inside the working folder.
//!
//! `*` matches any run of characters and `?` one, `[…]` one of a set
//! (`[!…]` or `[^…]` none of it; ranges `a-z`; classes `[:alpha:]`); none
//! matches a `/`, and a name starting with `.` is matched only by a
//! segment that starts with a literal `.`. A pattern that matches nothing
//! is passed on as the word itself, quotes removed, as Bash does without
//! `nullglob` or `failglob`. Matches are sorted by their bytes.
//!
//! Unlike Bash: a pattern must be relative and may not hold a `..`
//! segment; no folder outside the working folder is looked into, also not
//! through a symbolic link; and the number of matches and of folder
//! entries looked at is capped ([`MAX_GLOB_MATCHES`], [`MAX_GLOB_ENTRIES`]).
//! A match starting with a character a program could read as an option
//! or an operator (`-`, `+`, `!`, `(`, …) is given as `./name`.
//!
//! In a plan a glob word is its pattern, with every character that was
//! quoted and would otherwise be special (`*`, `?`, `[`, `]`, `\`)
//! escaped by a backslash.

use std::path::{Path, PathBuf};

use crate::Denial;
use crate::check::short;

/// Paths all the glob words of one stage may expand to, together.
pub const MAX_GLOB_MATCHES: usize = 2_000;
/// Folder entries one glob word may make the runner look at.
pub const MAX_GLOB_ENTRIES: usize = 50_000;

/// One element of a segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `*`
    Any,
    /// `?`
    One,
    /// `[…]`
    Set {
        negated: bool,
        items: Vec<Item>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Char(char),
    Range(char, char),
    Class(Class),
}

/// A named class of characters (`[:alpha:]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Alpha,
    Digit,
    Alnum,
    Upper,
    Lower,
    Space,
    Blank,
    Punct,
    Xdigit,
    Cntrl,
    Graph,
    Print,
    Word,
}

impl Class {
    fn named(name: &str) -> Option<Self> {
        Some(match name {
            "alpha" => Self::Alpha,
            "digit" => Self::Digit,
            "alnum" => Self::Alnum,
            "upper" => Self::Upper,
            "lower" => Self::Lower,
            "space" => Self::Space,
            "blank" => Self::Blank,
            "punct" => Self::Punct,
            "xdigit" => Self::Xdigit,
            "cntrl" => Self::Cntrl,
            "graph" => Self::Graph,
            "print" => Self::Print,
            "word" => Self::Word,
            _ => return None,
        })
    }

    fn contains(self, c: char) -> bool {
        match self {
            Self::Alpha => c.is_alphabetic(),
            Self::Digit => c.is_ascii_digit(),
            Self::Alnum => c.is_alphanumeric(),
            Self::Upper => c.is_uppercase(),
            Self::Lower => c.is_lowercase(),
            Self::Space => c.is_whitespace(),
            Self::Blank => c == ' ' || c == '\t',
            Self::Punct => c.is_ascii_punctuation(),
            Self::Xdigit => c.is_ascii_hexdigit(),
            Self::Cntrl => c.is_control(),
            Self::Graph => !c.is_control() && !c.is_whitespace(),
            Self::Print => !c.is_control(),
            Self::Word => c.is_alphanumeric() || c == '_',
        }
    }
}

/// A pattern split at `/` into segments of tokens.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    segments: Vec<Vec<Token>>,
    absolute: bool,
    /// A pattern ending in `/` matches folders only, and its matches end
    /// in `/` too.
    folders_only: bool,
}

impl Pattern {
    /// Reads a pattern in plan syntax (`\` escapes the next character).
    /// An `[` without its `]` is a literal `[`, as in Bash.
    pub(crate) fn parse(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut segments = vec![Vec::new()];
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let segment = segments.last_mut().expect("there is always a segment");
            match c {
                // An escaped `/` still separates folders, as in Bash.
                '\\' if chars.get(i + 1) == Some(&'/') => {
                    segments.push(Vec::new());
                    i += 2;
                    continue;
                }
                '\\' if i + 1 < chars.len() => {
                    segment.push(Token::Literal(chars[i + 1]));
                    i += 2;
                    continue;
                }
                '/' => segments.push(Vec::new()),
                '*' => {
                    if segment.last() != Some(&Token::Any) {
                        segment.push(Token::Any);
                    }
                }
                '?' => segment.push(Token::One),
                '[' => {
                    if let Some((token, next)) = set(&chars, i) {
                        segment.push(token);
                        i = next;
                        continue;
                    }
                    segment.push(Token::Literal('['));
                }
                _ => segment.push(Token::Literal(c)),
            }
            i += 1;
        }
        let absolute = text.starts_with('/') || text.starts_with("\\/");
        let folders_only = segments.last().is_some_and(Vec::is_empty);
        segments.retain(|s| !s.is_empty());
        Self {
            segments,
            absolute,
            folders_only,
        }
    }

    /// Whether anything in the pattern matches more than itself.
    pub(crate) fn is_glob(&self) -> bool {
        self.segments
            .iter()
            .flatten()
            .any(|t| !matches!(t, Token::Literal(_)))
    }

    /// Denies a pattern that could reach outside the working folder.
    pub(crate) fn check(&self, word: &str) -> Result<(), Denial> {
        if self.absolute {
            return Err(Denial::new(format!(
                "the glob `{}` names paths outside the working folder; only relative globs are \
                 expanded",
                short(word)
            )));
        }
        if self.segments.iter().any(|s| is_literal(s, "..")) {
            return Err(Denial::new(format!(
                "the glob `{}` climbs out of the working folder with `..`; only globs inside it \
                 are expanded",
                short(word)
            )));
        }
        Ok(())
    }
}

/// The set starting at `chars[open]` (`[`), and the index after its `]`.
fn set(chars: &[char], open: usize) -> Option<(Token, usize)> {
    let mut i = open + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Token::Set { negated, items }, i + 1));
        }
        first = false;
        if c == '/' {
            return None;
        }
        if c == '[' && chars.get(i + 1) == Some(&':') {
            let rest: String = chars[i + 2..].iter().collect();
            let end = rest.find(":]")?;
            items.push(Item::Class(Class::named(&rest[..end])?));
            i += 2 + rest[..end].chars().count() + 2;
            continue;
        }
        let (c, width) = if c == '\\' {
            (*chars.get(i + 1)?, 2)
        } else {
            (c, 1)
        };
        i += width;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|n| *n != ']') {
            let (end, width) = if chars[i + 1] == '\\' {
                (*chars.get(i + 2)?, 3)
            } else {
                (chars[i + 1], 2)
            };
            items.push(Item::Range(c, end));
            i += width;
        } else {
            items.push(Item::Char(c));
        }
    }
}

fn is_literal(segment: &[Token], text: &str) -> bool {
    segment.len() == text.chars().count()
        && segment
            .iter()
            .zip(text.chars())
            .all(|(t, c)| *t == Token::Literal(c))
}

fn literal_text(segment: &[Token]) -> Option<String> {
    segment
        .iter()
        .map(|t| match t {
            Token::Literal(c) => Some(*c),
            _ => None,
        })
        .collect()
}

/// Whether `name` matches `segment`, Bash's way: a leading `.` only by a
/// literal `.`.
fn matches(segment: &[Token], name: &str) -> bool {
    if name.starts_with('.') && segment.first() != Some(&Token::Literal('.')) {
        return false;
    }
    let name: Vec<char> = name.chars().collect();
    let (mut t, mut n) = (0, 0);
    // Where the last `*` was, and how much of the name it had taken.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match segment.get(t) {
            Some(Token::Any) => {
                star = Some((t, n));
                t += 1;
                continue;
            }
            Some(token) if one(token, name[n]) => {
                t += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((st, sn)) => {
                t = st + 1;
                n = sn + 1;
                star = Some((st, sn + 1));
            }
            None => return false,
        }
    }
    segment[t..].iter().all(|tok| *tok == Token::Any)
}

/// Whether a token other than `*` matches the character `c`.
fn one(token: &Token, c: char) -> bool {
    match token {
        Token::Literal(l) => *l == c,
        Token::One => true,
        Token::Any => false,
        Token::Set { negated, items } => {
            let hit = items.iter().any(|item| match item {
                Item::Char(x) => *x == c,
                Item::Range(a, b) => (*a..=*b).contains(&c),
                Item::Class(class) => class.contains(c),
            });
            hit != *negated
        }
    }
}

/// Why a glob could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Overflow {
    /// More matches than [`MAX_GLOB_MATCHES`].
    Matches,
    /// More folder entries looked at than [`MAX_GLOB_ENTRIES`].
    Entries,
}

/// The paths, relative to `root`, that `pattern` matches; empty when it
/// matches nothing. `found` counts the matches of every glob word of the
/// stage so far.
pub(crate) fn expand(
    pattern: &Pattern,
    root: &Path,
    found: &mut usize,
) -> Result<Vec<String>, Overflow> {
    let Ok(canonical_root) = root.canonicalize() else {
        return Ok(Vec::new());
    };
    let inside = |relative: &str| -> bool {
        root.join(relative)
            .canonicalize()
            .is_ok_and(|p| p.starts_with(&canonical_root))
    };
    let mut entries = 0usize;
    let mut paths: Vec<String> = vec![String::new()];
    let last = pattern.segments.len().saturating_sub(1);
    for (i, segment) in pattern.segments.iter().enumerate() {
        let mut next = Vec::new();
        for base in &paths {
            // Never look into, or name a path under, a folder outside the
            // working folder.
            if !base.is_empty() && !inside(base) {
                continue;
            }
            let join = |name: &str| {
                if base.is_empty() {
                    name.to_owned()
                } else {
                    format!("{base}/{name}")
                }
            };
            if let Some(name) = literal_text(segment) {
                next.push(join(&name));
                continue;
            }
            let folder: PathBuf = root.join(base);
            let Ok(listing) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in listing.flatten() {
                entries += 1;
                if entries > MAX_GLOB_ENTRIES {
                    return Err(Overflow::Entries);
                }
                // A name that is not UTF-8 cannot be passed on in a plan.
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                if !matches(segment, &name) {
                    continue;
                }
                let path = join(&name);
                // Only folders lead on to the next segment.
                if (i < last || pattern.folders_only) && !root.join(&path).is_dir() {
                    continue;
                }
                next.push(path);
                if *found + next.len() > MAX_GLOB_MATCHES {
                    return Err(Overflow::Matches);
                }
            }
        }
        paths = next;
    }
    // A literal last segment names a path that must exist, as in Bash.
    paths.retain(|p| !p.is_empty() && root.join(p).symlink_metadata().is_ok());
    if pattern.folders_only {
        paths.retain(|p| root.join(p).is_dir());
        for path in &mut paths {
            path.push('/');
        }
    }
    paths.sort();
    *found += paths.len();
    for path in &mut paths {
        if !path
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            path.insert_str(0, "./");
        }
    }
    Ok(paths)
}

/// A character written into a glob pattern so that it means itself.
pub(crate) fn escape_into(pattern: &mut String, c: char) {
    if matches!(c, '*' | '?' | '[' | ']' | '\\') {
        pattern.push('\\');
    }
    pattern.push(c);
}

#[cfg(test)]
mod tests;
