//! Tests of the tokenizer: English words, NFKC, CJK bigrams and kana.

use super::stop::{MAX_STOP_WORD_LEN, STOP_WORDS};
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
    check("Café résumé", &["café", "résumé"]);
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
    check("人々", &["人々"]);
}

#[test]
fn hiragana_runs_become_bigrams() {
    check(
        "よくあるしつもん",
        &["よく", "くあ", "るし", "しつ", "つも", "もん"],
    );
    check("しつもん", &["しつ", "つも", "もん"]);
}

#[test]
fn katakana_runs_become_bigrams() {
    check("デプロイ", &["デプ", "プロ", "ロイ"]);
    // Four characters: the final `ー` goes, and `ュ` belongs to `ビ`.
    check("レビュー", &["レビュ"]);
}

#[test]
fn small_kana_belong_to_the_kana_before_them() {
    check("キャッシュ", &["キャッ", "ッシュ"]);
    check("チャット", &["チャッ", "ット"]);
    check("しゃしん", &["しゃし", "しん"]);
    // A run of one mora is one unit: no bigram.
    check("キャ", &[]);
}

#[test]
fn a_long_katakana_word_loses_its_final_prolonged_sound_mark() {
    check("サーバー", &["サー", "ーバ"]);
    check("サーバ", &["サー", "ーバ"]);
    check("サーバーの設定", &["サー", "ーバ", "バの", "の設", "設定"]);
    // Three characters are too short to tell a variant from a word.
    check("コピー", &["コピ", "ピー"]);
    // Only katakana words: a prolonged mark after hiragana stays.
    check("すごーい", &["すご", "ごー", "ーい"]);
}

#[test]
fn halfwidth_katakana_meets_fullwidth() {
    check("ｷｬｯｼｭ", &["キャッ", "ッシュ"]);
    check("ｻｰﾊﾞｰ", &["サー", "ーバ"]);
    // A halfwidth voiced mark with no composed form is part of its kana.
    check("ｱﾞｲ", &["アイ"]);
}

#[test]
fn the_middle_dot_separates_words() {
    check("キャッシュ・パージ", &["キャッ", "ッシュ", "パー", "ージ"]);
    check("ｷｬｯｼｭ･ﾊﾟｰｼﾞ", &["キャッ", "ッシュ", "パー", "ージ"]);
}

#[test]
fn mixed_kanji_and_kana_words_keep_their_bigrams() {
    check("書き方", &["書き", "き方"]);
    check(
        "本番のデプロイ",
        &["本番", "番の", "のデ", "デプ", "プロ", "ロイ"],
    );
    check("問い合わせ", &["問い", "い合", "合わ", "わせ"]);
}

#[test]
fn kana_function_words_are_dropped() {
    check("これは", &[]);
    // What is left straddles a word boundary, and weighs little as a
    // bigram no memory holds.
    check("それはどうですか", &["うで"]);
    check("の", &[]);
}

#[test]
fn the_vocabulary_gives_the_same_terms_as_tokenize() {
    let texts = [
        "How do I deploy the staging servers? Deploying again.",
        "本番デプロイは火曜と木曜の午前中だけ",
        "よくあるしつもん ｷｬｯｼｭ･ﾊﾟｰｼﾞ 배포를 언제",
    ];
    let mut vocab = Vocab::open();
    for text in texts {
        for _ in 0..2 {
            let mut ids = Vec::new();
            vocab.terms(text, |t| ids.push(t));
            let expected: Vec<Term> = tokenize(text)
                .iter()
                .map(|t| Term::Id(vocab.get(t).expect("interned")))
                .collect();
            assert_eq!(ids, expected, "{text:?}");
        }
    }
}

#[test]
fn a_closed_vocabulary_knows_only_its_terms() {
    let mut vocab = Vocab::closed(["deploy", "しつ"]);
    let mut got = Vec::new();
    vocab.terms("deploying the servers: しつもん", |t| got.push(t));
    assert_eq!(
        got,
        [
            Term::Id(0),
            Term::Other,
            Term::Id(1),
            Term::Other,
            Term::Other
        ]
    );
    assert_eq!(vocab.len(), 2);
}

#[test]
fn no_stop_word_is_longer_than_the_bound() {
    assert!(
        STOP_WORDS
            .iter()
            .all(|w| w.len() <= MAX_STOP_WORD_LEN && w.is_ascii())
    );
}

proptest::proptest! {
    /// A closed vocabulary skips stemming words whose first letter no term
    /// has; that is exact only while stems keep their word's first letter.
    #[test]
    fn a_stem_keeps_the_first_letter_of_its_word(word in "[a-z0-9]{2,14}") {
        let stem = stemmer().stem(&word);
        proptest::prop_assert_eq!(stem.as_bytes().first(), word.as_bytes().first());
    }

    #[test]
    fn english_suffixes_keep_the_first_letter(
        root in "[a-z]{1,6}",
        suffix in "(s|es|ies|sses|ed|eed|ing|ly|edly|ingly|y|ational|tional|ization|ness|ful|ment|ence|ance|ive|ize|ate|iti)",
    ) {
        let word = format!("{root}{suffix}");
        let stem = stemmer().stem(&word);
        proptest::prop_assert_eq!(stem.as_bytes().first(), word.as_bytes().first());
    }
}
