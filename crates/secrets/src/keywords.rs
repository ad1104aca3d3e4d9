//! Every occurrence of every keyword in a text, ASCII-case-insensitively,
//! in order of position.
//!
//! One Aho-Corasick automaton over all keywords with case folding finds no
//! prefilter to skip text with, and walks every byte (half of a scan's
//! time). So the text is lower-cased a chunk at a time, and the keywords,
//! lower-cased, are split by length into a few case-sensitive automata,
//! each small and long enough to use a packed (Teddy) prefilter. Each
//! automaton reports, at every position where one of its keywords starts,
//! the longest one (leftmost-longest, restarting one byte after each
//! start); the others of its keywords starting there are exactly that
//! one's prefixes among them, listed once at build time. So every
//! occurrence is reported exactly once, as an overlapping search would.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Input, MatchKind};

use crate::SecretsError;

/// Bytes lower-cased and searched at a time (plus the longest keyword
/// less one, so that an occurrence starting in a chunk is whole).
const CHUNK: usize = 64 * 1024;

/// One automaton over some of the keywords.
#[derive(Debug, Clone)]
struct Group {
    automaton: AhoCorasick,
    /// For each of its patterns, the keyword's index and length.
    ids: Vec<usize>,
    lens: Vec<usize>,
    /// For each of its patterns, the indexes of its other patterns that
    /// are prefixes of it.
    prefixes: Vec<Vec<usize>>,
}

/// The keyword finder.
#[derive(Debug, Clone)]
pub(crate) struct Keywords {
    groups: Vec<Group>,
    longest: usize,
}

/// One occurrence: where it starts and ends, and which keyword it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Occurrence {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) keyword: usize,
}

impl Keywords {
    /// A finder for `keywords` (non-empty, distinct; compared
    /// ASCII-case-insensitively); occurrences name them by index.
    pub(crate) fn new(keywords: &[String]) -> Result<Keywords, SecretsError> {
        let lower: Vec<Vec<u8>> = keywords
            .iter()
            .map(|k| k.as_bytes().to_ascii_lowercase())
            .collect();
        // Short keywords force short fingerprints on a packed prefilter,
        // which then matches often: keep them apart from longer ones.
        let bands: [fn(usize) -> bool; 3] = [|n| n <= 3, |n| (4..=5).contains(&n), |n| n >= 6];
        let mut groups = Vec::new();
        for band in bands {
            let ids: Vec<usize> = (0..lower.len()).filter(|&i| band(lower[i].len())).collect();
            if ids.is_empty() {
                continue;
            }
            let patterns: Vec<&[u8]> = ids.iter().map(|&i| lower[i].as_slice()).collect();
            let automaton = AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
                .map_err(|e| {
                    SecretsError::Config(format!("cannot build the keyword matcher: {e}"))
                })?;
            let prefixes = patterns
                .iter()
                .map(|p| {
                    (0..patterns.len())
                        .filter(|&q| patterns[q].len() < p.len() && p.starts_with(patterns[q]))
                        .collect()
                })
                .collect();
            groups.push(Group {
                automaton,
                lens: patterns.iter().map(|p| p.len()).collect(),
                ids,
                prefixes,
            });
        }
        Ok(Keywords {
            groups,
            longest: lower.iter().map(Vec::len).max().unwrap_or(0),
        })
    }

    /// The occurrences in `text`, by start (then end and keyword).
    pub(crate) fn find<'t>(&'t self, text: &'t [u8]) -> Occurrences<'t> {
        Occurrences {
            keywords: self,
            text,
            next_chunk: 0,
            buffer: Vec::new(),
            found: Vec::new(),
            taken: 0,
        }
    }
}

/// The occurrences in a text, found a chunk at a time.
pub(crate) struct Occurrences<'t> {
    keywords: &'t Keywords,
    text: &'t [u8],
    /// Where the next chunk starts.
    next_chunk: usize,
    buffer: Vec<u8>,
    /// The current chunk's occurrences, sorted, and how many were taken.
    found: Vec<Occurrence>,
    taken: usize,
}

impl Occurrences<'_> {
    /// The next occurrence, when it starts before `limit`.
    pub(crate) fn next_before(&mut self, limit: usize) -> Option<Occurrence> {
        while self.taken == self.found.len() {
            if self.next_chunk >= self.text.len() || self.next_chunk >= limit {
                return None;
            }
            self.fill();
        }
        let o = self.found[self.taken];
        if o.start >= limit {
            return None;
        }
        self.taken += 1;
        Some(o)
    }

    /// Finds the occurrences that start in the next chunk.
    fn fill(&mut self) {
        let start = self.next_chunk;
        let chunk_end = start.saturating_add(CHUNK).min(self.text.len());
        let end = (chunk_end + self.keywords.longest.saturating_sub(1)).min(self.text.len());
        self.next_chunk = chunk_end;
        self.buffer.clear();
        self.buffer
            .extend(self.text[start..end].iter().map(u8::to_ascii_lowercase));
        self.found.clear();
        self.taken = 0;
        let here = chunk_end - start;
        for group in &self.keywords.groups {
            let mut at = 0;
            while at < here {
                let input = Input::new(&self.buffer).span(at..self.buffer.len());
                let Some(m) = group.automaton.find(input) else {
                    break;
                };
                if m.start() >= here {
                    break;
                }
                let p = m.pattern().as_usize();
                for &q in std::iter::once(&p).chain(&group.prefixes[p]) {
                    self.found.push(Occurrence {
                        start: start + m.start(),
                        end: start + m.start() + group.lens[q],
                        keyword: group.ids[q],
                    });
                }
                at = m.start() + 1;
            }
        }
        self.found.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use aho_corasick::{AhoCorasickBuilder, MatchKind};
    use proptest::prelude::*;

    use super::*;

    /// What one overlapping, case-folding search over all keywords finds.
    fn overlapping(keywords: &[String], text: &[u8]) -> Vec<Occurrence> {
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(keywords)
            .expect("test keywords build");
        let mut all: Vec<Occurrence> = ac
            .find_overlapping_iter(text)
            .map(|m| Occurrence {
                start: m.start(),
                end: m.end(),
                keyword: m.pattern().as_usize(),
            })
            .collect();
        all.sort_unstable();
        all
    }

    fn check(keywords: &[String], text: &[u8]) {
        let finder = Keywords::new(keywords).expect("test keywords build");
        let mut found = Vec::new();
        let mut all = finder.find(text);
        while let Some(o) = all.next_before(usize::MAX) {
            found.push(o);
        }
        assert_eq!(found, overlapping(keywords, text));
    }

    fn builtin_keywords() -> Vec<String> {
        let mut k: Vec<String> = crate::Scanner::builtin()
            .rules()
            .into_iter()
            .flat_map(|r| r.keywords)
            .collect();
        k.extend([
            "hooks".to_owned(),
            "xoxe".to_owned(),
            "a".to_owned(),
            "ab".to_owned(),
        ]);
        k.sort();
        k.dedup();
        k
    }

    #[test]
    fn every_occurrence_once_as_an_overlapping_search_finds_them() {
        let keywords = builtin_keywords();
        check(&keywords, b"");
        check(
            &keywords,
            b"XOXE.XOXB-xoxe-xoxp-GHP_ghp_hf_HF_q~Q~sk_test_sk_live",
        );
        // Across chunk edges.
        let mut text = "ab glpat-x xoxe.xoxb- ".repeat(3 * CHUNK / 20);
        text.truncate(2 * CHUNK + 7);
        check(&keywords, text.as_bytes());
        let nested: Vec<String> = ["abc", "abcdef", "bcd", "abcd", "c", "cde"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        check(&nested, b"abcdefABCDEFxabcdabcdeabc");
    }

    proptest! {
        #[test]
        fn finds_what_an_overlapping_search_finds(
            parts in proptest::collection::vec(prop_oneof![
                proptest::sample::select(builtin_keywords()),
                "[a-zA-Z0-9_~.-]{0,12}",
            ], 0..40),
        ) {
            check(&builtin_keywords(), parts.concat().as_bytes());
        }
    }
}
