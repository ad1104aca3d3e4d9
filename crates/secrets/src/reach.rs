//! Which rules need only be searched near their keywords.
//!
//! A rule runs when one of its keywords is in the text, and then (as in
//! gitleaks) its regex runs over the whole text. When every match the regex
//! can make contains one of the rule's keywords, and no match is longer
//! than some bound `L`, every match lies within `L` bytes of a keyword
//! occurrence: searching those windows finds exactly the matches a search
//! of the whole text finds (see `scan.rs` for why the order of matches and
//! the resumption rules are kept too). This module decides, conservatively,
//! whether a regex has that property: "no" is always a safe answer, and
//! then the whole text is searched.
//!
//! The analysis walks the syntax tree once. For each node it keeps a small,
//! finite summary of the byte strings the node can match: the exact set of
//! strings when that set is small, otherwise a set of strings every match
//! starts with (prefixes) and one every match ends with (suffixes). Strings
//! are sequences of byte sets (a class like `[pe]` is one position), folded
//! to ASCII lower case because keywords are found ASCII-case-insensitively.
//! A node is *covered* when every match of it contains a keyword; a
//! concatenation is covered when a part is, or when every suffix of one
//! part followed by every prefix of the next contains a keyword.

use regex_syntax::hir::{Class, Hir, HirKind};

/// At most this many strings in a summary; beyond it, a summary gives up
/// (the exact set becomes unknown, prefixes and suffixes become trivial).
const MAX_STRINGS: usize = 64;
/// Exact strings longer than this are not tracked.
const MAX_EXACT_LEN: usize = 256;
/// At most this many concrete strings are tried at one position when
/// checking a string of byte sets for a keyword.
const MAX_EXPANSION: usize = 64;

/// How far from an anchor occurrence a match can lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A match is at most this many bytes long, so it lies within that
    /// many bytes of the anchor it holds, on either side.
    Bytes(usize),
    /// Matches are unbounded but made only of these bytes (indexed by
    /// byte), so a match lies within the run of such bytes around the
    /// anchor it holds.
    Run(Box<[bool; 256]>),
    /// Matches are unbounded and may hold any byte, but each starts where
    /// an anchor occurrence does: the search can skip to the next one.
    Starts,
}

/// Where a rule's matches can be: near an occurrence of one of `anchors`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Near {
    /// Every match contains one of these (ASCII-case-insensitively,
    /// lower-cased): the rule's keywords, or, when a keyword holds a `.`
    /// that the regex reads as any byte, a part of one.
    pub(crate) anchors: Vec<String>,
    pub(crate) reach: Reach,
}

/// Where the matches of `hir` can lie, when that can be shown: every match
/// contains an anchor and is either bounded in length or made of a set of
/// bytes that is not all of them. `None` means the whole text must be
/// searched.
pub(crate) fn near(hir: &Hir, keywords: &[String]) -> Option<Near> {
    let keywords: Vec<String> = keywords
        .iter()
        .map(|k| k.to_ascii_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    if keywords.is_empty() {
        return None;
    }
    // The keywords themselves; else one part of a keyword between dots, on
    // its own (a keyword `hooks.slack.com` against `hooks.slack.com` in a
    // regex, where each `.` is any byte: every match holds `hooks`).
    let mut candidates = vec![keywords.clone()];
    let mut parts: Vec<String> = Vec::new();
    for k in &keywords {
        for part in k.split('.').filter(|p| p.len() >= 3 && p.len() < k.len()) {
            if !parts.iter().any(|p| p == part) {
                parts.push(part.to_owned());
            }
        }
    }
    candidates.extend(parts.into_iter().map(|p| vec![p]));
    let anchors = candidates
        .into_iter()
        .find(|anchors| covered(hir, anchors))?;
    let reach = if let Some(max) = hir.properties().maximum_len() {
        Reach::Bytes(max)
    } else {
        let mut bytes = Box::new([false; 256]);
        consumed(hir, &mut bytes);
        if bytes.iter().all(|&b| b) {
            if !starts_with_anchor(hir, &anchors) {
                return None;
            }
            Reach::Starts
        } else {
            Reach::Run(bytes)
        }
    };
    Some(Near { anchors, reach })
}

/// Whether every match of `hir` provably contains one of `anchors`
/// (compared ASCII-case-insensitively, as the keyword prefilter finds
/// them).
fn covered(hir: &Hir, anchors: &[String]) -> bool {
    let keywords: Vec<Vec<u8>> = anchors
        .iter()
        .map(|k| k.as_bytes().to_ascii_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    if keywords.is_empty() {
        return false;
    }
    let analysis = Analysis {
        longest: keywords.iter().map(Vec::len).max().unwrap_or(0),
        keywords,
    };
    analysis.info(hir).covered
}

/// Whether every match of `hir` provably starts with one of `anchors`.
fn starts_with_anchor(hir: &Hir, anchors: &[String]) -> bool {
    let keywords: Vec<Vec<u8>> = anchors
        .iter()
        .map(|k| k.as_bytes().to_ascii_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    let analysis = Analysis {
        longest: keywords.iter().map(Vec::len).max().unwrap_or(0),
        keywords,
    };
    analysis.info(hir).prefixes.iter().all(|s| {
        s.contains(&ByteSet::EMPTY)
            || analysis
                .keywords
                .iter()
                .any(|k| k.len() <= s.len() && analysis.every_pick_is_keyword(&s[..k.len()]))
    })
}

/// Marks every byte a match of `hir` can consume.
fn consumed(hir: &Hir, bytes: &mut [bool; 256]) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => {
            for &b in &lit.0 {
                bytes[usize::from(b)] = true;
            }
        }
        HirKind::Class(Class::Bytes(c)) => {
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    bytes[usize::from(b)] = true;
                }
            }
        }
        HirKind::Class(Class::Unicode(c)) => {
            for r in c.ranges() {
                for ch in r.start()..=r.end().min('\x7f') {
                    bytes[ch as usize] = true;
                }
                if r.end() > '\x7f' {
                    // Any byte of a UTF-8 sequence.
                    bytes[0x80..].fill(true);
                }
            }
        }
        HirKind::Capture(cap) => consumed(&cap.sub, bytes),
        HirKind::Repetition(rep) => consumed(&rep.sub, bytes),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            for part in parts {
                consumed(part, bytes);
            }
        }
    }
}

/// A set of bytes, folded to ASCII lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    const EMPTY: ByteSet = ByteSet([0; 4]);

    fn insert(&mut self, b: u8) {
        let b = b.to_ascii_lowercase();
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    fn single(b: u8) -> ByteSet {
        let mut s = ByteSet::EMPTY;
        s.insert(b);
        s
    }

    fn range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.insert(b);
        }
    }

    fn len(self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    fn contains(self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }
}

/// A string of byte sets: position `i` is any byte of the `i`th set.
type Str = Vec<ByteSet>;

/// A finite set of such strings.
type Lang = Vec<Str>;

/// What is known of the strings a node matches.
#[derive(Debug, Clone)]
struct Info {
    /// Exactly the strings it matches, when few.
    exact: Option<Lang>,
    /// Every match starts with one of these.
    prefixes: Lang,
    /// Every match ends with one of these.
    suffixes: Lang,
    /// Every match contains a keyword.
    covered: bool,
}

/// `[""]`: what every string starts (and ends) with.
fn trivial() -> Lang {
    vec![Vec::new()]
}

struct Analysis {
    /// Lower-cased, non-empty.
    keywords: Vec<Vec<u8>>,
    /// The longest keyword's length: prefixes and suffixes need no more.
    longest: usize,
}

impl Analysis {
    fn info(&self, hir: &Hir) -> Info {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => self.exact(trivial()),
            HirKind::Literal(lit) => {
                self.exact(vec![lit.0.iter().map(|&b| ByteSet::single(b)).collect()])
            }
            HirKind::Class(class) => match byte_set(class) {
                Some(set) => self.exact(vec![vec![set]]),
                None => Info {
                    exact: None,
                    prefixes: trivial(),
                    suffixes: trivial(),
                    covered: false,
                },
            },
            HirKind::Capture(cap) => self.info(&cap.sub),
            HirKind::Repetition(rep) => self.repetition(rep.min, rep.max, &rep.sub),
            HirKind::Concat(parts) => parts.iter().fold(self.exact(trivial()), |acc, part| {
                self.concat(&acc, &self.info(part))
            }),
            HirKind::Alternation(alts) => {
                self.alternation(&alts.iter().map(|a| self.info(a)).collect::<Vec<_>>())
            }
        }
    }

    /// The summary of a node whose strings are all known.
    fn exact(&self, lang: Lang) -> Info {
        Info {
            covered: self.all_contain_keyword(&lang),
            prefixes: self.truncate(&lang, true),
            suffixes: self.truncate(&lang, false),
            exact: Some(lang),
        }
    }

    fn concat(&self, a: &Info, b: &Info) -> Info {
        if let (Some(x), Some(y)) = (&a.exact, &b.exact)
            && let Some(xy) = product(x, y, MAX_EXACT_LEN)
        {
            return self.exact(xy);
        }
        let covered = a.covered
            || b.covered
            || product(&a.suffixes, &b.prefixes, usize::MAX)
                .is_some_and(|joins| self.all_contain_keyword(&joins));
        let prefixes = match &a.exact {
            Some(x) => product(x, &b.prefixes, usize::MAX)
                .map_or_else(|| self.truncate(x, true), |xp| self.truncate(&xp, true)),
            None => a.prefixes.clone(),
        };
        let suffixes = match &b.exact {
            Some(y) => product(&a.suffixes, y, usize::MAX)
                .map_or_else(|| self.truncate(y, false), |sy| self.truncate(&sy, false)),
            None => b.suffixes.clone(),
        };
        Info {
            exact: None,
            prefixes,
            suffixes,
            covered,
        }
    }

    fn alternation(&self, alts: &[Info]) -> Info {
        if alts.iter().all(|a| a.exact.is_some()) {
            let all: Lang = alts
                .iter()
                .flat_map(|a| a.exact.clone().unwrap_or_default())
                .collect();
            if all.len() <= MAX_STRINGS {
                return self.exact(all);
            }
        }
        let union = |part: fn(&Info) -> &Lang| {
            let all: Lang = alts.iter().flat_map(|a| part(a).iter().cloned()).collect();
            if all.len() <= MAX_STRINGS {
                all
            } else {
                trivial()
            }
        };
        Info {
            exact: None,
            prefixes: union(|a| &a.prefixes),
            suffixes: union(|a| &a.suffixes),
            covered: alts.iter().all(|a| a.covered),
        }
    }

    fn repetition(&self, min: u32, max: Option<u32>, sub: &Hir) -> Info {
        let s = self.info(sub);
        if max == Some(min)
            && min <= 16
            && let Some(e) = &s.exact
        {
            let repeated = (0..min).try_fold(trivial(), |acc, _| product(&acc, e, MAX_EXACT_LEN));
            if let Some(lang) = repeated {
                return self.exact(lang);
            }
        }
        if min == 0 {
            // It can match the empty string, which holds no keyword.
            return Info {
                exact: None,
                prefixes: trivial(),
                suffixes: trivial(),
                covered: false,
            };
        }
        // One or more copies: each match starts with a copy's prefix, ends
        // with a copy's suffix, and holds a copy (and, from two on, the
        // join of two copies).
        let covered = s.covered
            || (min >= 2
                && product(&s.suffixes, &s.prefixes, usize::MAX)
                    .is_some_and(|joins| self.all_contain_keyword(&joins)));
        Info {
            exact: None,
            prefixes: s.prefixes,
            suffixes: s.suffixes,
            covered,
        }
    }

    /// Each string cut to its first (or last) `longest` positions, without
    /// duplicates.
    fn truncate(&self, lang: &Lang, front: bool) -> Lang {
        let mut out: Lang = Vec::new();
        for s in lang {
            let cut = if front {
                s[..s.len().min(self.longest)].to_vec()
            } else {
                s[s.len().saturating_sub(self.longest)..].to_vec()
            };
            if !out.contains(&cut) {
                out.push(cut);
            }
        }
        if out.len() <= MAX_STRINGS {
            out
        } else {
            trivial()
        }
    }

    fn all_contain_keyword(&self, lang: &Lang) -> bool {
        lang.iter().all(|s| self.contains_keyword(s))
    }

    /// Whether every concrete string `s` stands for contains a keyword: at
    /// some one position, every way of picking bytes there spells a keyword.
    /// (A string with an empty set matches nothing, so it holds vacuously.)
    fn contains_keyword(&self, s: &Str) -> bool {
        if s.contains(&ByteSet::EMPTY) {
            return true;
        }
        let lengths = {
            let mut l: Vec<usize> = self.keywords.iter().map(Vec::len).collect();
            l.sort_unstable();
            l.dedup();
            l
        };
        (0..s.len()).any(|at| {
            lengths
                .iter()
                .any(|&n| at + n <= s.len() && self.every_pick_is_keyword(&s[at..at + n]))
        })
    }

    /// Whether every byte string the sets spell is a keyword.
    fn every_pick_is_keyword(&self, sets: &[ByteSet]) -> bool {
        let mut count = 1usize;
        for set in sets {
            count = count.saturating_mul(set.len());
            if count > MAX_EXPANSION {
                return false;
            }
        }
        // Cheap rejection: some keyword must agree at every position.
        let candidates: Vec<&Vec<u8>> = self
            .keywords
            .iter()
            .filter(|k| {
                k.len() == sets.len() && k.iter().zip(sets).all(|(&b, set)| set.contains(b))
            })
            .collect();
        if candidates.is_empty() {
            return false;
        }
        let mut pick = Vec::with_capacity(sets.len());
        every_pick(sets, &mut pick, &mut |word| {
            candidates.iter().any(|k| k.as_slice() == word)
        })
    }
}

/// Calls `ok` on every byte string `sets` spells; whether all were ok.
fn every_pick(sets: &[ByteSet], pick: &mut Vec<u8>, ok: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    let Some((first, rest)) = sets.split_first() else {
        return ok(pick);
    };
    for b in 0..=255u8 {
        if first.contains(b) {
            pick.push(b);
            let all = every_pick(rest, pick, ok);
            pick.pop();
            if !all {
                return false;
            }
        }
    }
    true
}

/// Every `x·y`, when there are at most [`MAX_STRINGS`] of them and none is
/// longer than `max_len`.
fn product(xs: &Lang, ys: &Lang, max_len: usize) -> Option<Lang> {
    if xs.len().saturating_mul(ys.len()) > MAX_STRINGS {
        return None;
    }
    let mut out = Vec::with_capacity(xs.len() * ys.len());
    for x in xs {
        for y in ys {
            if x.len() + y.len() > max_len {
                return None;
            }
            let mut xy = x.clone();
            xy.extend_from_slice(y);
            if !out.contains(&xy) {
                out.push(xy);
            }
        }
    }
    Some(out)
}

/// A class as one byte set, when it matches single bytes (a byte class, or
/// a Unicode class within ASCII).
fn byte_set(class: &Class) -> Option<ByteSet> {
    let mut set = ByteSet::EMPTY;
    match class {
        Class::Bytes(c) => {
            for r in c.ranges() {
                set.range(r.start(), r.end());
            }
        }
        Class::Unicode(c) => {
            for r in c.ranges() {
                let (lo, hi) = (u8::try_from(r.start()).ok()?, u8::try_from(r.end()).ok()?);
                if hi > 0x7f {
                    return None;
                }
                set.range(lo, hi);
            }
        }
    }
    Some(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(pattern: &str, keywords: &[&str]) -> Option<usize> {
        match near_of(pattern, keywords)?.reach {
            Reach::Bytes(n) => Some(n),
            Reach::Run(_) | Reach::Starts => None,
        }
    }

    fn near_of(pattern: &str, keywords: &[&str]) -> Option<Near> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(false)
            .build()
            .parse(pattern)
            .expect("test patterns parse");
        let keywords: Vec<String> = keywords.iter().map(|k| (*k).to_owned()).collect();
        near(&hir, &keywords)
    }

    #[test]
    fn unbounded_matches_stay_within_a_run_of_their_bytes() {
        let n = near_of(r"ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}", &["ops_"]).expect("covered");
        let Reach::Run(bytes) = n.reach else {
            panic!("unbounded: {n:?}")
        };
        for b in b"ops_eyJaZ09+/=" {
            assert!(bytes[usize::from(*b)], "{}", char::from(*b));
        }
        for b in b" \n\"'-.!" {
            assert!(!bytes[usize::from(*b)], "{}", char::from(*b));
        }
        let n = near_of(r"(?i)-----BEGIN[\s\S-]{64,}?KEY-----", &["-----begin"]);
        assert_eq!(
            n.map(|n| n.reach),
            Some(Reach::Starts),
            "any byte, but starts with the keyword"
        );
        assert_eq!(
            near_of(r"(?i)x?-----BEGIN[\s\S-]{64,}?KEY-----", &["-----begin"]),
            None
        );
    }

    #[test]
    fn a_dotted_keyword_anchors_on_a_part_the_regex_spells() {
        let n = near_of(
            r"(?:https?://)?hooks.slack.com/[a-z]{4}",
            &["hooks.slack.com"],
        )
        .expect("covered");
        assert_eq!(n.anchors, ["hooks"]);
        let n = near_of(
            r"(?i)xoxe.xox[bp]-\d-[A-Z0-9]{163,166}",
            &["xoxe.xoxb-", "xoxe.xoxp-"],
        )
        .expect("covered");
        assert_eq!(
            (n.anchors, n.reach),
            (vec!["xoxe".to_owned()], Reach::Bytes(178))
        );
    }

    #[test]
    fn literal_keywords_are_found_wherever_they_sit() {
        assert_eq!(reach(r"ghp_[0-9a-zA-Z]{36}", &["ghp_"]), Some(40));
        assert_eq!(reach(r"\bghp_[0-9a-z]{4}\b", &["ghp_"]), Some(8));
        assert_eq!(
            reach(r"[a-z]{3}\dQ~[a-z]{2}", &["q~"]),
            Some(8),
            "inside, case folded"
        );
        assert_eq!(
            reach(r"(?i)xapp-\d", &["xapp"]),
            Some(6),
            "case-insensitive letters"
        );
        assert_eq!(
            reach(r"x(?:ab|cd)", &["xab", "xcd"]),
            Some(3),
            "across an alternation"
        );
        assert_eq!(
            reach(r"xox[pe]-\d", &["xoxp-", "xoxe-"]),
            Some(6),
            "a class picks between keywords"
        );
        assert_eq!(
            reach(
                r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b",
                &["a3t", "akia", "asia", "abia", "acca"]
            ),
            Some(20)
        );
        assert_eq!(
            reach(r"xox[pe](?:-[0-9]{10,13}){3}-[a-z]{2}", &["xoxp-", "xoxe-"]),
            Some(5 + 14 * 3 + 2),
            "a keyword running into a repetition"
        );
        assert_eq!(
            reach(r"ab(?:c[0-9]+)+", &["abc"]),
            None,
            "covered, but unbounded"
        );
    }

    #[test]
    fn anything_that_can_miss_the_keyword_is_refused() {
        assert_eq!(
            reach(r"hooks.slack.com/[a-z]{4}", &["hooks.slack.com"]),
            Some(20),
            "`.` is not a dot, but `hooks` must be there"
        );
        assert_eq!(
            near_of(r"h.slack.com/[a-z]{4}", &["h.slack.com"]).map(|n| n.anchors),
            Some(vec!["slack".to_owned()])
        );
        assert_eq!(reach(r"h.s[a-z]{4}", &["h.s"]), None, "no part long enough");
        assert_eq!(
            reach(r"(?:ghp_)?[a-z]{4}", &["ghp_"]),
            None,
            "optional keyword"
        );
        assert_eq!(
            reach(r"ghp_[a-z]{4}|[0-9]{4}", &["ghp_"]),
            None,
            "one branch lacks it"
        );
        assert_eq!(
            reach(r"gh[pq]_[a-z]{4}", &["ghp_"]),
            None,
            "`ghq_` is no keyword"
        );
        assert_eq!(reach(r"(?:ghp_){0,2}x", &["ghp_"]), None);
        assert_eq!(reach(r"ghp_[a-z]{4}", &[]), None, "no keywords");
        assert_eq!(
            reach(r"g\bhp_", &["ghp_"]),
            Some(4),
            "a look-around consumes nothing"
        );
        assert_eq!(
            reach(r"ops_[a-z]{250,}", &["ops_"]),
            None,
            "unbounded length"
        );
    }
}
