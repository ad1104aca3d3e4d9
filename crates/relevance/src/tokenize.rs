//! Turning text into the terms the local ranker compares.
//!
//! Text is normalised with NFKC and lower-cased, so fullwidth `ＡＰＩ`,
//! halfwidth katakana and ligatures meet their ordinary forms. Letters and
//! digits outside the CJK scripts form words; a word of one character, a
//! stop word, or a bare number of one digit is no evidence; English words
//! are stemmed (Snowball), so `deploying` meets `deploys`.
//!
//! Chinese, Japanese and Korean runs, which have no spaces between words,
//! become overlapping bigrams, so the two-character query `部署` meets
//! `部署流程`. Han, hiragana, katakana and Hangul are treated alike, and a
//! run may mix them (`書き方`, `本番デプロイ`), because Japanese words do.
//! Within a run the unit is a mora rather than a character: a small kana
//! (`ゃ`, `ュ`, `ァ`) belongs to the kana before it, so `キャッシュ` gives
//! `キャッ` and `ッシュ`, not the `ャッ` that `チャット` also has. A
//! katakana word of four or more characters loses a final `ー`, so
//! `サーバー` meets `サーバ` (the two spellings are both common). The
//! middle dot `・` separates words. A run of one unit yields nothing, and
//! bigrams that are function words or request phrasing (`これ`, `です`,
//! `什么`, `세요`) are dropped.
//!
//! [`tokenize`] returns the terms as strings. The ranker goes through
//! [`Vocab`] instead, which remembers the term of each distinct word and
//! bigram it has seen, so a folder's repeated words are stemmed once.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

mod stop;

use stop::{bigram_counts, is_stop_word};

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Whether a character belongs to a script written without spaces between
/// words (Han, kana, Hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3005..=0x3007      // 々 〆 〇, which stand in Han words (人々)
        | 0x3040..=0x30FF    // hiragana, katakana (with the prolonged sound mark)
        | 0x31F0..=0x31FF    // katakana extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F    // Hangul compatibility jamo
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x20000..=0x2FFFF  // CJK extensions B and later
    )
}

/// Punctuation inside the kana blocks: the middle dot `・` (halfwidth `･`
/// becomes it under NFKC) and the double hyphen `゠` separate words.
fn is_kana_separator(c: char) -> bool {
    matches!(c, '\u{30A0}' | '\u{30FB}')
}

/// The combining voiced and semi-voiced marks, left over by NFKC when a
/// halfwidth `ﾞ` follows a kana that has no voiced form: part of the kana
/// before them, never a unit of their own.
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{3099}' | '\u{309A}')
}

/// Small kana that form one mora with the kana before them (`きゃ`,
/// `ファ`). The small `っ`/`ッ` is a mora of its own and is not here.
fn is_small_kana(c: char) -> bool {
    matches!(
        c,
        'ぁ' | 'ぃ'
            | 'ぅ'
            | 'ぇ'
            | 'ぉ'
            | 'ゃ'
            | 'ゅ'
            | 'ょ'
            | 'ゎ'
            | 'ゕ'
            | 'ゖ'
            | 'ァ'
            | 'ィ'
            | 'ゥ'
            | 'ェ'
            | 'ォ'
            | 'ャ'
            | 'ュ'
            | 'ョ'
            | 'ヮ'
            | 'ヵ'
            | 'ヶ'
            | '\u{31F0}'..='\u{31FF}'
    )
}

/// Katakana, including the prolonged sound mark `ー`.
fn is_katakana(c: char) -> bool {
    matches!(c, '\u{30A1}'..='\u{30FA}' | '\u{30FC}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}')
}

/// The term for a lower-cased word, or `None` when it is no evidence.
fn word_term(word: &str) -> Option<Cow<'_, str>> {
    // One character (a lone digit included) is never evidence.
    let mut chars = word.chars();
    if chars.next().is_none() || chars.next().is_none() || is_stop_word(word) {
        return None;
    }
    Some(if word.is_ascii() {
        stemmer().stem(word)
    } else {
        Cow::Borrowed(word)
    })
}

/// Receives the candidate words and bigrams of a text, in order.
trait Sink {
    /// A lower-cased word of letters and digits.
    fn word(&mut self, word: &str);
    /// A lower-cased word of ASCII letters and digits.
    fn ascii_word(&mut self, word: &str) {
        self.word(word);
    }
    /// A bigram of a CJK run.
    fn bigram(&mut self, bigram: &str);
}

/// Reusable buffers for splitting text, so that a folder's worth of text
/// is split without an allocation per word.
#[derive(Debug, Clone, Default)]
struct Splitter {
    word: String,
    run: Vec<char>,
    /// Start of each unit (mora) in `run`.
    units: Vec<usize>,
    bigram: String,
}

impl Splitter {
    fn split(&mut self, text: &str, sink: &mut impl Sink) {
        self.word.clear();
        self.run.clear();
        if text.is_ascii() {
            self.split_ascii(text, sink);
            return;
        }
        // A line break ends every word and run, and NFKC never joins
        // across it, so each line takes the fastest path that fits it: a
        // CJK line in a body of English leaves the rest on the ASCII path.
        for line in text.split_inclusive('\n') {
            if line.is_ascii() {
                self.split_ascii(line, sink);
            } else if is_nfkc_quick(line.chars()) == IsNormalized::Yes {
                // Most text is already in NFKC (CJK text included):
                // checking costs far less than normalising.
                self.split_chars(line.chars(), sink);
            } else {
                self.split_chars(line.nfkc(), sink);
            }
        }
    }

    /// ASCII text, which NFKC leaves as it is: a word is copied and
    /// lower-cased only when it has a capital, otherwise passed on as a
    /// slice of the text.
    fn split_ascii(&mut self, text: &str, sink: &mut impl Sink) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            while i < bytes.len() && !bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let start = i;
            let mut upper = false;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                upper |= bytes[i].is_ascii_uppercase();
                i += 1;
            }
            if start == i {
                break;
            }
            let word = &text[start..i];
            if upper {
                self.word.clear();
                self.word.push_str(word);
                self.word.make_ascii_lowercase();
                sink.ascii_word(&self.word);
                self.word.clear();
            } else {
                sink.ascii_word(word);
            }
        }
    }

    fn split_chars(&mut self, chars: impl Iterator<Item = char>, sink: &mut impl Sink) {
        for c in chars.flat_map(char::to_lowercase) {
            if is_cjk(c) && !is_kana_separator(c) {
                self.flush_word(sink);
                self.run.push(c);
            } else if c.is_alphanumeric() {
                self.flush_run(sink);
                self.word.push(c);
            } else {
                self.flush_word(sink);
                self.flush_run(sink);
            }
        }
        self.flush_word(sink);
        self.flush_run(sink);
    }

    fn flush_word(&mut self, sink: &mut impl Sink) {
        if !self.word.is_empty() {
            sink.word(&self.word);
            self.word.clear();
        }
    }

    fn flush_run(&mut self, sink: &mut impl Sink) {
        if self.run.is_empty() {
            return;
        }
        // Drop combining marks and the final `ー` of long katakana words,
        // then mark where each mora starts.
        let mut kept = 0;
        let mut katakana_len = 0;
        self.units.clear();
        for i in 0..self.run.len() {
            let c = self.run[i];
            if is_combining_mark(c) {
                continue;
            }
            katakana_len = if is_katakana(c) { katakana_len + 1 } else { 0 };
            let word_ends = self.run.get(i + 1).is_none_or(|&n| !is_katakana(n));
            if c == 'ー' && word_ends && katakana_len >= 4 {
                continue;
            }
            if !(is_small_kana(c) && kept > 0) {
                self.units.push(kept);
            }
            self.run[kept] = c;
            kept += 1;
        }
        self.run.truncate(kept);
        self.units.push(kept);
        for w in self.units.windows(3) {
            self.bigram.clear();
            self.bigram.extend(&self.run[w[0]..w[2]]);
            sink.bigram(&self.bigram);
        }
        self.run.clear();
    }
}

/// Collects terms as strings.
struct Strings(Vec<String>);

impl Sink for Strings {
    fn word(&mut self, word: &str) {
        if let Some(term) = word_term(word) {
            self.0.push(term.into_owned());
        }
    }

    fn bigram(&mut self, bigram: &str) {
        if bigram_counts(bigram) {
            self.0.push(bigram.to_owned());
        }
    }
}

/// The terms of `text`, in order, with repeats.
#[must_use]
pub fn tokenize(text: &str) -> Vec<String> {
    let mut sink = Strings(Vec::new());
    Splitter::default().split(text, &mut sink);
    sink.0
}

/// A term's number in a [`Vocab`].
pub(crate) type TermId = u32;

/// Terms numbered as they are first seen, and the term of every distinct
/// word and bigram seen so far, so each is stemmed and looked up once.
///
/// A closed vocabulary knows only the terms it was given: everything else
/// is [`Term::Other`], which still counts towards a memory's length. That
/// is all a single query needs from a folder.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vocab {
    ids: HashMap<Box<str>, TermId>,
    /// Word or bigram, as it appears after normalisation, to its term.
    memo: HashMap<Box<str>, Term>,
    closed: bool,
    /// In a closed vocabulary, the first bytes of its ASCII terms, as bits.
    first_bytes: u128,
    splitter: Splitter,
}

/// What a word or bigram stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Term {
    /// No evidence: a stop word, a single character.
    None,
    /// A term outside a closed vocabulary.
    Other,
    /// A known term.
    Id(TermId),
}

impl Vocab {
    /// A vocabulary that numbers every term it meets.
    pub(crate) fn open() -> Self {
        Vocab::default()
    }

    /// A vocabulary of exactly `terms`.
    pub(crate) fn closed<'a>(terms: impl IntoIterator<Item = &'a str>) -> Self {
        let mut vocab = Vocab::default();
        for t in terms {
            vocab.intern(t);
            if let Some(&b) = t.as_bytes().first().filter(|b| b.is_ascii()) {
                vocab.first_bytes |= 1 << b;
            }
        }
        vocab.closed = true;
        vocab
    }

    /// The number of terms known.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Every known term, by id.
    pub(crate) fn into_terms(self) -> Vec<Box<str>> {
        let mut terms: Vec<(TermId, Box<str>)> =
            self.ids.into_iter().map(|(t, id)| (id, t)).collect();
        terms.sort_unstable_by_key(|(id, _)| *id);
        terms.into_iter().map(|(_, t)| t).collect()
    }

    /// The id of `term`, if known.
    pub(crate) fn get(&self, term: &str) -> Option<TermId> {
        self.ids.get(term).copied()
    }

    fn intern(&mut self, term: &str) -> Term {
        if let Some(&id) = self.ids.get(term) {
            return Term::Id(id);
        }
        if self.closed {
            return Term::Other;
        }
        let id = TermId::try_from(self.ids.len()).expect("fewer than 2^32 distinct terms");
        self.ids.insert(term.into(), id);
        Term::Id(id)
    }

    /// Calls `f` with each term of `text`, in order, with repeats.
    pub(crate) fn terms(&mut self, text: &str, f: impl FnMut(Term)) {
        let mut splitter = std::mem::take(&mut self.splitter);
        splitter.split(text, &mut VocabSink { vocab: self, f });
        self.splitter = splitter;
    }

    /// The term of a lower-cased word.
    fn word(&mut self, word: &str) -> Term {
        if word.is_ascii() {
            return self.ascii_word(word);
        }
        // Not stemmed: the word is its own term, or no evidence when it is
        // a single character (stop words are all ASCII).
        if word.chars().nth(1).is_none() {
            Term::None
        } else {
            self.intern(word)
        }
    }

    /// The term of a lower-cased ASCII word.
    fn ascii_word(&mut self, word: &str) -> Term {
        let first = word.as_bytes().first().map_or(0, |&b| b & 0x7F);
        if self.closed && self.first_bytes & (1 << first) == 0 {
            // The stemmer rewrites suffixes only, so a stem starts with its
            // word's first letter (a test holds this): no term of this
            // vocabulary can come from the word, and it need not be stemmed.
            return if word.len() < 2 || is_stop_word(word) {
                Term::None
            } else {
                Term::Other
            };
        }
        self.lookup(word, true)
    }

    fn lookup(&mut self, surface: &str, is_word: bool) -> Term {
        if let Some(&term) = self.memo.get(surface) {
            return term;
        }
        let term = if is_word {
            match word_term(surface) {
                Some(t) => self.intern(&t),
                None => Term::None,
            }
        } else if bigram_counts(surface) {
            self.intern(surface)
        } else {
            Term::None
        };
        self.memo.insert(surface.into(), term);
        term
    }
}

struct VocabSink<'v, F> {
    vocab: &'v mut Vocab,
    f: F,
}

impl<F: FnMut(Term)> Sink for VocabSink<'_, F> {
    fn word(&mut self, word: &str) {
        let term = self.vocab.word(word);
        if term != Term::None {
            (self.f)(term);
        }
    }

    fn ascii_word(&mut self, word: &str) {
        let term = self.vocab.ascii_word(word);
        if term != Term::None {
            (self.f)(term);
        }
    }

    fn bigram(&mut self, bigram: &str) {
        let term = self.vocab.lookup(bigram, false);
        if term != Term::None {
            (self.f)(term);
        }
    }
}

#[cfg(test)]
mod tests;
