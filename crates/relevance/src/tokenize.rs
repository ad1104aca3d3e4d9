//! Turning text into the terms the local ranker compares.
//!
//! Text is normalised with NFKC and lower-cased, so fullwidth `ＡＰＩ`,
//! halfwidth katakana and ligatures meet their ordinary forms. Letters and
//! digits outside the CJK scripts form words; a word of one character, a
//! stop word, or a bare number of one digit is no evidence; English words
//! are stemmed (Snowball), so `deploying` meets `deploys`. Chinese, Japanese
//! and Korean runs, which have no spaces between words, become overlapping
//! character bigrams, so the two-character query `部署` meets `部署流程`;
//! a run of one character yields nothing, and bigrams made only of
//! hiragana (particles, verb endings) or on a short stop list are dropped.

use std::collections::HashSet;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;

/// English words that carry no topic.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "don", "down", "during", "each", "few", "for", "from", "further",
    "get", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "me", "more", "most",
    "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "please", "same", "she", "should", "so", "some", "such",
    "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "you", "your", "yours", "tell", "show", "remind", "help", "know", "need", "want", "use",
    "using", "used", "make", "thing", "things", "way", "again", "ok", "okay", "hi", "hello",
    "thanks", "md",
];

/// CJK bigrams that are function words or request phrasing, not topics.
const STOP_BIGRAMS: &[&str] = &[
    // Chinese
    "什么", "怎么", "怎样", "如何", "为什", "我们", "你们", "他们", "这个", "那个", "一个", "一下",
    "可以", "需要", "应该", "是否", "有没", "没有", "哪里", "哪个", "请问", "告诉", "的是", "是什",
    "么样", "么办", "吗？", "我的", "你的", "这里", "那里", "现在", "关于", "还是", "就是", "不是",
    "时候",
    // Japanese (kanji-bearing phrasing; hiragana-only bigrams are dropped wholesale)
    "何で", "何を", "何か", "教え", "下さ", // Korean
    "어디", "무엇", "뭐야", "어떻", "떻게", "합니", "니다", "해야", "하나", "있나", "알려", "주세",
    "세요", "에서", "으로", "하는", "이야", "인가", "나요", "까요", "있어", "없어", "우리", "저는",
    "제가", "이거", "그거", "뭔가", "해요", "어요", "아요", "에요", "예요", "대해", "관련",
];

fn stop_words() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
}

fn stop_bigrams() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_BIGRAMS.iter().copied().collect())
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Whether a character belongs to a script written without spaces between
/// words (Han, kana, Hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30FF      // hiragana, katakana (with the prolonged sound mark)
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

fn is_hiragana(c: char) -> bool {
    ('\u{3040}'..='\u{309F}').contains(&c)
}

/// The terms of `text`, in order, with repeats.
#[must_use]
pub fn tokenize(text: &str) -> Vec<String> {
    // NFKC leaves ASCII as it is; skip it for the common case.
    let normalized: String = if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        text.nfkc().flat_map(char::to_lowercase).collect()
    };
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    for c in normalized.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut terms);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_run(&mut run, &mut terms);
            word.push(c);
        } else {
            flush_word(&mut word, &mut terms);
            flush_run(&mut run, &mut terms);
        }
    }
    flush_word(&mut word, &mut terms);
    flush_run(&mut run, &mut terms);
    terms
}

fn flush_word(word: &mut String, terms: &mut Vec<String>) {
    if word.is_empty() {
        return;
    }
    let chars = word.chars().count();
    let lone_digit = chars == 1 && word.chars().all(|c| c.is_ascii_digit());
    if chars >= 2 && !lone_digit && !stop_words().contains(word.as_str()) {
        let term = if word.is_ascii() {
            stemmer().stem(word).into_owned()
        } else {
            word.clone()
        };
        terms.push(term);
    }
    word.clear();
}

fn flush_run(run: &mut Vec<char>, terms: &mut Vec<String>) {
    for pair in run.windows(2) {
        if pair.iter().all(|&c| is_hiragana(c)) {
            continue;
        }
        let bigram: String = pair.iter().collect();
        if !stop_bigrams().contains(bigram.as_str()) {
            terms.push(bigram);
        }
    }
    run.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[&str]) {
        assert_eq!(tokenize(text), expected, "{text:?}");
    }

    #[test]
    fn english_words_are_stemmed_and_stop_words_dropped() {
        check(
            "How do I deploy the staging servers?",
            &["deploy", "stage", "server"],
        );
        check(
            "Deploying, deployed, deploys",
            &["deploy", "deploy", "deploy"],
        );
        check("migrations migrate", &["migrat", "migrat"]);
        check("use-pnpm.md", &["pnpm"]);
        check("a x 5 of the", &[]);
        check("k8s v2 2026", &["k8s", "v2", "2026"]);
    }

    #[test]
    fn nfkc_and_case_folding() {
        check("ＡＰＩ Ｋｅｙｓ", &["api", "key"]);
        check("ﬂaky", &["flaki"]);
        check("ﾃﾞﾌﾟﾛｲ", &["デプ", "プロ", "ロイ"]);
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        check("部署", &["部署"]);
        check("部署流程", &["部署", "署流", "流程"]);
        check("的", &[]);
        check("怎么部署", &["么部", "部署"]);
        check("使用 pnpm 而不是 npm", &["使用", "pnpm", "而不", "npm"]);
        check("배포를 언제", &["배포", "포를", "언제"]);
    }

    #[test]
    fn hiragana_only_bigrams_are_dropped() {
        check("これは", &[]);
        check(
            "本番のデプロイ",
            &["本番", "番の", "のデ", "デプ", "プロ", "ロイ"],
        );
    }
}
