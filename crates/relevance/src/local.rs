//! The embedded default selector (SPEC R6.4 b): a BM25 ranker over a
//! memory's name, description and file name, with its body's first lines
//! as weaker evidence. It needs no network, and it abstains: a result is
//! kept only when the evidence is real.

use std::collections::HashMap;

use memdir_memtypes::MemoryType;
use memdir_scan::MemoryHeader;

use crate::corpus::{Corpus, DocId, DocText, FIELDS, MemCorpus, file_stem};
use crate::tokenize::tokenize;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Weight of a term in each field ([`Field`] order: name, description,
/// file name, body): the body is evidence, but weaker.
const FIELD_WEIGHTS: [f64; FIELDS] = [1.0, 1.0, 1.0, 0.3];
/// IDF is computed as if the folder held at least this many memories. In
/// a folder of three, every word would otherwise look common and no score
/// would reach the thresholds; with the floor, scores mean the same in a
/// small folder as in a large one.
const MIN_CORPUS: f64 = 50.0;

/// How sure the ranker must be before it names a memory ("when unsure,
/// leave it out"): a request is given memories only when the abstention
/// model ([`abstain`](crate::abstain)) estimates at least `need` that it
/// needs one, and then only those scoring within `relative_cut` of the
/// best.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// The lowest [`Features::need`](crate::abstain::Features::need) at
    /// which anything is recalled.
    pub need: f64,
    /// Results scoring below this fraction of the best score are dropped.
    pub relative_cut: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            need: crate::abstain::NEED_THRESHOLD,
            relative_cut: RELATIVE_CUT,
        }
    }
}

/// The default [`Thresholds::relative_cut`]: a memory scoring under this
/// share of the best one adds tokens more often than it helps.
pub(crate) const RELATIVE_CUT: f64 = 0.25;

/// A ranked memory: its number in the corpus (for [`LocalRanker`], its
/// index in the slice it was built from) and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index into the memories the ranker was built from.
    pub index: usize,
    /// BM25 score.
    pub score: f64,
    /// Share of the query's weight this memory matched, 0 to 1.
    pub coverage: f64,
    /// Share of the query's weight it matched in its name, description or
    /// file name (not only in its body), 0 to 1.
    pub head_coverage: f64,
}

/// A query's ranking before abstention, with what the abstention reads of
/// the query itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Every memory with any evidence, best first.
    pub ranked: Vec<Ranked>,
    /// Share of the query's weight carried by terms that some memory of the
    /// folder holds: low for a question about things the folder never
    /// mentions.
    pub known_share: f64,
    /// How many distinct terms the query has.
    pub terms: usize,
}

/// A BM25 index over a set of scanned memories (an inverted index, so a
/// query touches only the memories that share a term with it).
///
/// [`LocalRanker::new`] indexes every term, for many queries over one
/// folder; [`LocalRanker::for_query`] indexes only one query's terms (and
/// every memory's length), which is all a single request needs and much
/// less work. Both give the same scores for that query.
#[derive(Debug, Clone)]
pub struct LocalRanker {
    corpus: MemCorpus,
    thresholds: Thresholds,
}

impl LocalRanker {
    /// Indexes `memories` with the default thresholds.
    #[must_use]
    pub fn new(memories: &[MemoryHeader]) -> Self {
        Self::with_thresholds(memories, Thresholds::default())
    }

    /// Indexes `memories` with the given thresholds.
    #[must_use]
    pub fn with_thresholds(memories: &[MemoryHeader], thresholds: Thresholds) -> Self {
        LocalRanker {
            corpus: MemCorpus::new(memories.iter().map(DocText::of_header)),
            thresholds,
        }
    }

    /// Indexes `memories` for `query` alone: only the query's terms get
    /// postings, every other word only counts towards its memory's length.
    /// Rank `query` with it; another query would find nothing it does not
    /// share with this one.
    #[must_use]
    pub fn for_query(memories: &[MemoryHeader], query: &str, thresholds: Thresholds) -> Self {
        let terms = tokenize(query);
        LocalRanker {
            corpus: MemCorpus::for_terms(
                memories.iter().map(DocText::of_header),
                terms.iter().map(String::as_str),
            ),
            thresholds,
        }
    }

    /// Every memory with any evidence for `query`, best first, with scores
    /// and coverage, before thresholds apply. For diagnostics and tuning.
    #[must_use]
    pub fn score_all(&self, query: &str) -> Vec<Ranked> {
        score_all(&self.corpus, query)
    }

    /// [`score_all`](Self::score_all), with what the abstention reads of
    /// the query.
    #[must_use]
    pub fn score_query(&self, query: &str) -> Scored {
        score_query(&self.corpus, query)
    }

    /// The memories `query` has real evidence for, best first, at most
    /// `limit`; empty when the ranker is unsure.
    #[must_use]
    pub fn rank(&self, query: &str, limit: usize) -> Vec<Ranked> {
        apply_thresholds(
            query,
            score_query(&self.corpus, query),
            self.thresholds,
            limit,
        )
    }
}

/// The IDF of a term held by `df` of `n` memories.
fn idf(n: usize, df: usize) -> f64 {
    let n = as_f64(n).max(MIN_CORPUS);
    let df = as_f64(df);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A memory's weighted length, or a term's weighted frequency in it.
fn weighted(counts: &[u32; FIELDS]) -> f64 {
    counts
        .iter()
        .zip(FIELD_WEIGHTS)
        .map(|(&c, w)| f64::from(c) * w)
        .sum()
}

/// Every memory of `corpus` with any evidence for `query`, best first, with
/// scores and coverage, before thresholds apply.
#[must_use]
pub fn score_all(corpus: &impl Corpus, query: &str) -> Vec<Ranked> {
    score_query(corpus, query).ranked
}

/// [`score_all`], with what the abstention reads of the query.
#[must_use]
pub fn score_query(corpus: &impl Corpus, query: &str) -> Scored {
    score_best(corpus, query, usize::MAX)
}

/// [`score_query`], keeping only the best `keep` memories: a large folder
/// has thousands with some evidence for a common word, and a request reads
/// only the first few.
#[must_use]
pub(crate) fn score_best(corpus: &impl Corpus, query: &str, keep: usize) -> Scored {
    let mut terms = tokenize(query);
    terms.sort();
    terms.dedup();
    let n = corpus.len();
    let postings: Vec<_> = terms.iter().map(|t| corpus.postings(t)).collect();
    // How much a query term counts towards coverage: its IDF, except that a
    // CJK bigram no memory contains counts a quarter. Bigrams of a CJK
    // query also straddle word boundaries (`释用` in `注释用什么`), and such
    // noise must not drown the real words.
    let weight = |term: &str, df: usize| {
        let cjk = term.chars().next().is_some_and(crate::tokenize::is_cjk);
        if df == 0 && cjk {
            idf(n, df) * 0.25
        } else {
            idf(n, df)
        }
    };
    let total: f64 = terms
        .iter()
        .zip(&postings)
        .map(|(t, p)| weight(t, p.len()))
        .sum();
    let empty = Scored {
        ranked: Vec::new(),
        known_share: 0.0,
        terms: terms.len(),
    };
    if terms.is_empty() || total <= 0.0 || n == 0 {
        return empty;
    }
    let known: f64 = postings
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| idf(n, p.len()))
        .sum();
    let totals = corpus.total_lens();
    let avg_len = (totals
        .iter()
        .zip(FIELD_WEIGHTS)
        .map(|(&t, w)| as_f64(usize::try_from(t).unwrap_or(usize::MAX)) * w)
        .sum::<f64>()
        / as_f64(n))
    .max(1.0);
    // Accumulate each memory's score and matched weight, term by term: in
    // a table by memory number when the query touches many memories (a
    // common word in a large folder), else in a map.
    let max_doc = postings
        .iter()
        .filter_map(|p| p.last().map(|&(d, _)| d as usize))
        .max()
        .unwrap_or(0);
    let touched: usize = postings.iter().map(|p| p.len()).sum();
    let mut dense: Vec<(f64, f64, f64)> = Vec::new();
    let mut sparse: HashMap<DocId, (f64, f64, f64)> = HashMap::new();
    let use_dense = touched.saturating_mul(8) >= max_doc;
    if use_dense {
        dense.resize(max_doc + 1, (0.0, 0.0, 0.0));
    }
    for list in &postings {
        if list.is_empty() {
            continue;
        }
        let idf = idf(n, list.len());
        for &(doc, counts) in list.iter() {
            let tf = weighted(&counts);
            let len = weighted(&corpus.lens(doc));
            let norm = K1 * (1.0 - B + B * len / avg_len);
            let entry = if use_dense {
                &mut dense[doc as usize]
            } else {
                sparse.entry(doc).or_default()
            };
            entry.0 += idf * tf * (K1 + 1.0) / (tf + norm);
            entry.1 += idf;
            if counts[..3].iter().any(|&c| c > 0) {
                entry.2 += idf;
            }
        }
    }
    let to_ranked = |(index, (score, matched, head)): (usize, (f64, f64, f64))| {
        (score > 0.0).then(|| Ranked {
            index,
            score,
            coverage: matched / total,
            head_coverage: head / total,
        })
    };
    let mut ranked: Vec<Ranked> = if use_dense {
        dense
            .into_iter()
            .enumerate()
            .filter_map(to_ranked)
            .collect()
    } else {
        sparse
            .into_iter()
            .map(|(doc, e)| (doc as usize, e))
            .filter_map(to_ranked)
            .collect()
    };
    best_first(&mut ranked, keep);
    Scored {
        ranked,
        known_share: known / total,
        terms: terms.len(),
    }
}

/// Sorts `ranked` best first, ties by number, keeping the best `keep`: a
/// total order, so an unstable sort is deterministic, and the best can be
/// picked before sorting.
fn best_first(ranked: &mut Vec<Ranked>, keep: usize) {
    let order = |a: &Ranked, b: &Ranked| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index));
    if keep < ranked.len() {
        if keep == 0 {
            ranked.clear();
        } else {
            ranked.select_nth_unstable_by(keep - 1, order);
            ranked.truncate(keep);
        }
    }
    ranked.sort_unstable_by(order);
}

/// The ranked memories the thresholds keep, at most `limit`: empty when
/// the abstention model says the request needs no memory.
#[must_use]
pub fn apply_thresholds(query: &str, scored: Scored, t: Thresholds, limit: usize) -> Vec<Ranked> {
    let Some(best) = scored.ranked.first().map(|r| r.score) else {
        return Vec::new();
    };
    if crate::abstain::Features::of(query, &scored).need() < t.need {
        return Vec::new();
    }
    scored
        .ranked
        .into_iter()
        .filter(|r| r.score >= best * t.relative_cut)
        .take(limit)
        .collect()
}

/// The weight of an embedding model's cosine against the best-normalised
/// BM25 score in [`fuse`], chosen among 0.5, 1, 2 and 3 on the coding set
/// and the `LoCoMo` development split (hit@5 before abstention:
/// 0.914–0.917 and 0.629–0.661 across them; 2 keeps both near their
/// best).
pub const FUSION_WEIGHT: f64 = 2.0;

/// Every memory's fused score: its BM25 score over the best one's, plus
/// [`FUSION_WEIGHT`] times its cosine with the query (`cosines`, indexed
/// as [`Ranked::index`]). Both legs score every memory, so one that shares
/// no word with the query can still come first.
#[must_use]
pub fn fuse(scored: &Scored, cosines: &[f64]) -> Vec<f64> {
    let mut fused: Vec<f64> = cosines.iter().map(|c| c * FUSION_WEIGHT).collect();
    if let Some(best) = scored.ranked.first().map(|r| r.score).filter(|b| *b > 0.0) {
        for r in &scored.ranked {
            if let Some(f) = fused.get_mut(r.index) {
                *f += r.score / best;
            }
        }
    }
    fused
}

/// A memory whose fused score is under this share of the best one is not
/// recalled. Measured with all-MiniLM-L6-v2 on the coding set's
/// answerable prompts, before abstention: 3.67 memories returned instead
/// of 5, and a precision of 0.372 instead of 0.214, for hit@5 0.890
/// instead of 0.910 (`LoCoMo`: 4.67, 0.172 against 0.146, 0.654 against
/// 0.656).
pub const FUSED_RELATIVE_CUT: f64 = 0.5;

/// The fewest memories with a vector for recall to fuse: the cosine
/// signals of the abstention (the median and fifth best cosine among
/// them) were fitted on folders of 46 memories and more.
pub const FUSE_FROM: usize = 30;

/// The dot product of two vectors of one model (their cosine, for unit
/// vectors); 0 for vectors of different lengths, which no two vectors of
/// one model have.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f64 {
    if a.len() == b.len() {
        f64::from(a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>())
    } else {
        0.0
    }
}

/// The indices of `scores`, best first (ties by index).
#[must_use]
pub fn order_by_score(scores: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order
}

/// A count as a float; memory counts are far below 2^52, where the
/// conversion would round.
#[allow(clippy::cast_precision_loss, reason = "counts are far below 2^52")]
fn as_f64(n: usize) -> f64 {
    n as f64
}

/// Words that mark a memory as a warning or gotcha rather than API
/// documentation (SPEC R6.3).
const WARNING_WORDS: &[&str] = &[
    "warn",
    "warning",
    "gotcha",
    "pitfall",
    "caveat",
    "careful",
    "beware",
    "avoid",
    "never",
    "don't",
    "do not",
    "bug",
    "broken",
    "breaks",
    "trap",
    "danger",
    "fails",
    "footgun",
    "注意",
    "警告",
    "坑",
    "避免",
    "不要",
    "禁止",
    "危険",
    "気をつけ",
    "バグ",
    "주의",
    "경고",
    "금지",
    "위험",
];

/// Whether a memory is a reference memory that merely documents one of the
/// recently used tools: then the agent has just used the tool and does not
/// need its documentation again (SPEC R6.3). Warnings and gotchas about a
/// tool are still wanted.
#[must_use]
pub fn is_redundant_tool_doc(memory: &MemoryHeader, recent_tools: &[String]) -> bool {
    if memory.memory_type != Some(MemoryType::Reference) || recent_tools.is_empty() {
        return false;
    }
    let head = format!(
        "{} {} {}",
        memory.name.as_deref().unwrap_or(""),
        memory.description.as_deref().unwrap_or(""),
        file_stem(&memory.filename)
    );
    let head_terms = tokenize(&head);
    let names_a_tool = recent_tools.iter().any(|tool| {
        let tool_terms = tokenize(tool);
        !tool_terms.is_empty() && tool_terms.iter().all(|t| head_terms.contains(t))
    });
    let text = format!("{head} {}", memory.body_head).to_lowercase();
    names_a_tool && !WARNING_WORDS.iter().any(|w| text.contains(w))
}
