//! The words and bigrams that carry no topic: English stop words, and CJK
//! bigrams that are function words or request phrasing.

use std::collections::HashSet;
use std::sync::OnceLock;

/// English words that carry no topic.
#[rustfmt::skip]
pub(super) const STOP_WORDS: &[&str] = &[
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
#[rustfmt::skip]
const STOP_BIGRAMS: &[&str] = &[
    // Chinese
    "什么", "怎么", "怎样", "如何", "为什", "我们", "你们", "他们", "这个", "那个", "一个", "一下",
    "可以", "需要", "应该", "是否", "有没", "没有", "哪里", "哪个", "请问", "告诉", "的是", "是什",
    "么样", "么办", "吗？", "我的", "你的", "这里", "那里", "现在", "关于", "还是", "就是", "不是",
    "时候",
    // Japanese phrasing with kanji
    "何で", "何を", "何か", "教え", "下さ",
    // Japanese in kana: demonstratives, particles and particle pairs,
    // auxiliaries and verb endings, request phrasing
    "これ", "それ", "あれ", "どれ", "この", "その", "あの", "どの", "ここ", "そこ", "あそ", "どこ",
    "こう", "そう", "ああ", "どう", "れは", "れが", "れを", "です", "でし", "ます", "まし", "ませ",
    "せん", "した", "して", "する", "すれ", "され", "させ", "れる", "られ", "ない", "なか", "なっ",
    "なる", "なり", "いる", "いた", "いて", "いま", "ある", "あり", "あっ", "った", "って", "こと",
    "もの", "とき", "ため", "よう", "など", "から", "まで", "より", "ので", "のは", "のが", "のを",
    "のに", "のも", "のか", "のこ", "には", "では", "とは", "でも", "ても", "へは", "だっ", "だけ",
    "しか", "くだ", "ださ", "さい", "おね", "ねが", "がい", "につ", "つい", "でしょ", "しょう", "ましょ",
    "すか", "ですか", "ますか", "たい", "かな", "けど", "けれ", "れど", "たら", "れば", "なら", "ださい",
    "かた", "おし", "しえ", "えて", "しら", "らせ", "はど", "はな", "はあ",
    // Korean
    "어디", "무엇", "뭐야", "어떻", "떻게", "합니", "니다", "해야", "하나", "있나", "알려", "주세",
    "세요", "에서", "으로", "하는", "이야", "인가", "나요", "까요", "있어", "없어", "우리", "저는",
    "제가", "이거", "그거", "뭔가", "해요", "어요", "아요", "에요", "예요", "대해", "관련",
];

/// The length of the longest stop word, in bytes.
pub(super) const MAX_STOP_WORD_LEN: usize = 7;

/// Whether a lower-cased word is a stop word. The words are grouped by
/// first byte and length, a group holds a few words at most: cheaper than
/// hashing, and this runs for most words of a folder.
pub(super) fn is_stop_word(word: &str) -> bool {
    static GROUPS: OnceLock<Vec<Vec<&'static [u8]>>> = OnceLock::new();
    let groups = GROUPS.get_or_init(|| {
        let mut groups = vec![Vec::new(); 128 * (MAX_STOP_WORD_LEN + 1)];
        for w in STOP_WORDS {
            groups[stop_group(w.as_bytes()[0], w.len())].push(w.as_bytes());
        }
        groups
    });
    let bytes = word.as_bytes();
    match bytes.first() {
        Some(&b) if b.is_ascii() && bytes.len() <= MAX_STOP_WORD_LEN => {
            groups[stop_group(b, bytes.len())].contains(&bytes)
        }
        _ => false,
    }
}

fn stop_group(first: u8, len: usize) -> usize {
    usize::from(first) * (MAX_STOP_WORD_LEN + 1) + len
}

fn stop_bigrams() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_BIGRAMS.iter().copied().collect())
}

/// Whether a bigram counts as evidence.
pub(super) fn bigram_counts(bigram: &str) -> bool {
    !stop_bigrams().contains(bigram)
}
