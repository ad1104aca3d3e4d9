//! The floor every figure is printed beside: plain BM25 as a textbook
//! gives it, with nothing of the local ranker's (no stemming, no NFKC, no
//! field weights, no thresholds), over the whole text of every memory.

use std::collections::HashMap;
use std::path::Path;

use memdir_memtypes::{parse_memory, read_regular_file};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

use super::metrics::as_f64;
use crate::RelevanceError;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// A memory file larger than this is refused rather than read: memories
/// are a few lines.
const MAX_MEMORY_BYTES: u64 = 4 * 1024 * 1024;

/// A small English stop list: words that say nothing about a topic.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for",
    "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "my", "not", "of", "on", "or", "our", "she", "so", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where",
    "which", "who", "why", "will", "with", "would", "you", "your",
];

/// The floor's terms of `text`: lowercase runs of letters and digits
/// (Unicode-aware) that are not stop words. Han, kana and Hangul have no
/// spaces between words, so their runs give overlapping character
/// bigrams instead (a lone character stands for itself): without them
/// the floor would be absurd on Chinese, Japanese and Korean text.
#[must_use]
pub fn floor_terms(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    for c in text.chars() {
        if is_cjk(c) {
            push_word(&mut terms, &mut word);
            run.push(c);
        } else if c.is_alphanumeric() {
            push_run(&mut terms, &mut run);
            word.extend(c.to_lowercase());
        } else {
            push_word(&mut terms, &mut word);
            push_run(&mut terms, &mut run);
        }
    }
    push_word(&mut terms, &mut word);
    push_run(&mut terms, &mut run);
    terms
}

fn push_word(terms: &mut Vec<String>, word: &mut String) {
    if !word.is_empty() && !STOP_WORDS.contains(&word.as_str()) {
        terms.push(word.clone());
    }
    word.clear();
}

fn push_run(terms: &mut Vec<String>, run: &mut Vec<char>) {
    match run.len() {
        0 => {}
        1 => terms.push(run[0].to_string()),
        _ => terms.extend(run.windows(2).map(|w| w.iter().collect())),
    }
    run.clear();
}

/// Han, hiragana, katakana (full and halfwidth) and Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{309f}'
        | '\u{30a0}'..='\u{30fa}'
        | '\u{30fc}'..='\u{30ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ff66}'..='\u{ff9f}'
        | '\u{1100}'..='\u{11ff}'
        | '\u{3130}'..='\u{318f}'
        | '\u{ac00}'..='\u{d7af}'
        | '\u{20000}'..='\u{2ffff}')
}

/// A BM25 index (k1 1.2, b 0.75, IDF `ln(1 + (N - df + 0.5) / (df + 0.5))`)
/// over whole documents, ranked without any threshold.
#[derive(Debug, Clone, Default)]
pub struct Bm25Floor {
    /// Each document's name (a memory's file name).
    names: Vec<String>,
    /// Each document's term frequencies.
    tf: Vec<HashMap<String, f64>>,
    /// Each document's length in terms.
    lens: Vec<f64>,
    /// In how many documents each term occurs.
    df: HashMap<String, f64>,
    avg_len: f64,
}

impl Bm25Floor {
    /// Indexes named documents.
    pub fn from_documents<I, S>(docs: I) -> Self
    where
        I: IntoIterator<Item = (String, S)>,
        S: AsRef<str>,
    {
        let mut index = Bm25Floor::default();
        for (name, text) in docs {
            let terms = floor_terms(text.as_ref());
            let mut tf: HashMap<String, f64> = HashMap::new();
            for t in &terms {
                *tf.entry(t.clone()).or_default() += 1.0;
            }
            for t in tf.keys() {
                *index.df.entry(t.clone()).or_default() += 1.0;
            }
            index.names.push(name);
            index.lens.push(as_f64(terms.len()));
            index.tf.push(tf);
        }
        index.avg_len = if index.lens.is_empty() {
            1.0
        } else {
            (index.lens.iter().sum::<f64>() / as_f64(index.lens.len())).max(1.0)
        };
        index
    }

    /// Indexes every memory file of `folder` (however many: no cap on the
    /// count, unlike a recall's scan), each as its name, description and
    /// whole body. A folder that does not exist holds nothing.
    pub fn index_folder(folder: &Path) -> Result<Self, RelevanceError> {
        let options = ScanOptions {
            max_files: usize::MAX,
            ..ScanOptions::default()
        };
        let scan = match scan_memory_dir(folder, &options, &CancelToken::new()) {
            Ok(scan) => scan,
            Err(e) if e.is_not_found() => {
                return Ok(Bm25Floor::from_documents(Vec::<(String, String)>::new()));
            }
            Err(e) => return Err(e.into()),
        };
        let mut docs = Vec::with_capacity(scan.memories.len());
        for m in scan.memories {
            let bytes = read_regular_file(m.file_path.as_std_path(), MAX_MEMORY_BYTES)?;
            let parsed = parse_memory(&bytes);
            let name = parsed.header.name.unwrap_or_default();
            let description = parsed.header.description.unwrap_or_default();
            let text = format!("{name}\n{description}\n{}", parsed.body);
            docs.push((m.filename, text));
        }
        Ok(Bm25Floor::from_documents(docs))
    }

    /// How many documents it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds no document.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The documents sharing a term with `query`, best first (ties by
    /// name), at most `limit`, with their scores.
    #[must_use]
    pub fn search(&self, query: &str, limit: usize) -> Vec<(String, f64)> {
        let n = as_f64(self.names.len());
        let mut terms = floor_terms(query);
        terms.sort();
        terms.dedup();
        let mut scored: Vec<(usize, f64)> = Vec::new();
        for (i, tf) in self.tf.iter().enumerate() {
            let norm = K1 * (1.0 - B + B * self.lens[i] / self.avg_len);
            let score: f64 = terms
                .iter()
                .filter_map(|t| {
                    let f = *tf.get(t)?;
                    let df = self.df.get(t).copied().unwrap_or(0.0);
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    Some(idf * f * (K1 + 1.0) / (f + norm))
                })
                .sum();
            if score > 0.0 {
                scored.push((i, score));
            }
        }
        scored.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.names[a.0].cmp(&self.names[b.0]))
        });
        scored
            .into_iter()
            .take(limit)
            .map(|(i, s)| (self.names[i].clone(), s))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_lowercase_words_without_stop_words() {
        assert_eq!(
            floor_terms("What did Émile deploy to the STAGING-2 server?"),
            ["émile", "deploy", "staging", "2", "server"]
        );
        assert_eq!(floor_terms("the of and"), Vec::<String>::new());
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(floor_terms("部署流程"), ["部署", "署流", "流程"]);
        assert_eq!(floor_terms("用pnpm安装"), ["用", "pnpm", "安装"]);
        assert_eq!(floor_terms("배포 일정"), ["배포", "일정"]);
        assert_eq!(
            floor_terms("キャッシュ・パージ"),
            ["キャ", "ャッ", "ッシ", "シュ", "パー", "ージ"]
        );
    }

    #[test]
    fn bm25_prefers_the_rarer_term_and_the_shorter_document() {
        let index = Bm25Floor::from_documents([
            (
                "deploy.md".to_owned(),
                "staging deploys go through the release channel",
            ),
            ("staging.md".to_owned(), "staging staging notes"),
            (
                "long.md".to_owned(),
                "staging notes and a great many other words about nothing in particular at all",
            ),
            ("other.md".to_owned(), "banana bread recipe"),
        ]);
        let got = index.search("release staging", 5);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        // `release` is in one document only: it outweighs `staging` twice.
        assert_eq!(names, ["deploy.md", "staging.md", "long.md"]);
        assert!(got[1].1 > got[2].1);
        assert_eq!(index.search("banana", 5).len(), 1);
        assert!(index.search("the", 5).is_empty());
        assert_eq!(index.search("staging", 1).len(), 1);
    }

    #[test]
    fn the_score_is_textbook_bm25() {
        // Two documents; "b" occurs once in the first (length 2).
        let index = Bm25Floor::from_documents([
            ("1".to_owned(), "alpha beta"),
            ("2".to_owned(), "gamma delta epsilon zeta"),
        ]);
        let got = index.search("beta", 5);
        let idf = (1.0_f64 + (2.0 - 1.0 + 0.5) / (1.0 + 0.5)).ln();
        let norm = K1 * (1.0 - B + B * 2.0 / 3.0);
        let expected = idf * (K1 + 1.0) / (1.0 + norm);
        assert_eq!(got.len(), 1);
        assert!((got[0].1 - expected).abs() < 1e-12, "{got:?}");
    }
}
