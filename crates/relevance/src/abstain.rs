//! Whether a request needs a memory at all: the abstention of the local
//! ranker (SPEC R6.3, "when unsure, leave it out").
//!
//! A lexical ranker finds *some* memory for almost any prompt that shares
//! a word with the folder, so whether anything is injected cannot hang on
//! one score threshold: a two-clause question spreads its words over two
//! topics and scores lower per word, while "explain what a mutex is" may
//! share a rare word with some memory by chance. The decision is made from
//! a few measured signals of the ranking and of the prompt:
//!
//! - how strong the best match is and how much of the query it covers
//!   (never how the next memories score: a folder of one memory is judged
//!   as a folder of a thousand);
//! - how long the query is (long prompts gather score from many weak
//!   matches), and how much of it the folder knows at all (a question
//!   about things no memory mentions);
//! - whether the best match is in a memory's name, description or file
//!   name, or only in its body;
//! - whether the prompt asks a general-knowledge question ("explain …",
//!   "what's the difference between …", "一般的に"), speaks of the team or
//!   project ("we", "our", "我们", "うち"), or of the user ("I", "my"), and
//!   whether it holds pasted text (several lines).
//!
//! They are combined by a logistic model whose weights were fitted on
//! labelled prompts, both answerable and no-memory (the coding-agent set
//! under `fixtures/recall/coding/`, the bundled regression cases and the
//! `LoCoMo` development split),
//! with `cargo run --release -p memdir-relevance --example fit_abstention`,
//! which also prints the trade-off under leave-one-folder-out
//! cross-validation. The threshold is the point of that trade-off where at
//! most one prompt in seven that needs no memory gets one.
//!
//! With an embedding model, a second model ([`SEMANTIC_MODEL`]) reads
//! five more signals of the model's cosines ([`Features::with_cosines`]):
//! four between the query and every memory, and one between the query and
//! the nearest of a bank of prompts that need no memory in any project
//! ([`no_need_prompts`]). It judges the fused ranking
//! ([`fuse`](crate::fuse)). Fitted the same way with all-MiniLM-L6-v2,
//! under cross-validation it keeps coding hit@5 at 0.800 with 14.9% false
//! injection (without the bank's signal: 0.752 at 14.2%; the lexical
//! model: 0.672 at 14.9%) and returns nothing for 1.0% of `LoCoMo`'s
//! answerable questions (lexical: 8.5%).

use crate::Scored;

/// How many signals the model reads.
pub const FEATURES: usize = 10;

/// The signals of one request, in the model's order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features(pub [f64; FEATURES]);

/// Words and phrases that ask a general-knowledge question, one that a
/// memory of the project or the person is not needed for. Lower case; a
/// Latin entry matches whole words, any other a substring.
const GENERAL_MARKERS: &[&str] = &[
    "explain",
    "difference between",
    "in general",
    "generally",
    "conceptually",
    "in theory",
    "how does a",
    "how does an",
    "what is a",
    "what is an",
    "what's a",
    "what's an",
    "是什么",
    "什么是",
    "区别",
    "概念",
    "一般",
    "とは",
    "違い",
    "一般的",
    "일반적",
    "차이",
];

/// Words that speak of the team or the project.
const PROJECT_MARKERS: &[&str] = &[
    "we",
    "our",
    "us",
    "ours",
    "team",
    "here",
    "this repo",
    "我们",
    "咱们",
    "团队",
    "うち",
    "チーム",
    "弊社",
    "우리",
];

/// Words that speak of the user.
const PERSON_MARKERS: &[&str] = &[
    "i", "me", "my", "mine", "我", "私", "僕", "俺", "내", "나", "제",
];

impl Features {
    /// The signals of `query`, given its ranking before abstention (as
    /// [`score_query`](crate::score_query) gives it).
    #[must_use]
    pub fn of(query: &str, scored: &Scored) -> Self {
        let ranked = &scored.ranked;
        let s1 = ranked.first().map_or(0.0, |r| r.score);
        let lower = query.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .collect();
        let has = |markers: &[&str]| {
            f64::from(u8::from(markers.iter().any(|m| holds(&lower, &words, m))))
        };
        let nq = f64::from(u32::try_from(scored.terms).unwrap_or(u32::MAX));
        // Only the best match and the query are read, never how the next
        // memories score: a folder of one memory is judged as a folder of
        // a thousand.
        Features([
            s1.ln_1p(),
            ranked.first().map_or(0.0, |r| r.coverage),
            nq.ln_1p(),
            s1 / (nq + 1.0),
            has(GENERAL_MARKERS),
            has(PROJECT_MARKERS),
            has(PERSON_MARKERS),
            f64::from(u8::from(query.trim().contains('\n'))),
            scored.known_share,
            ranked.first().map_or(0.0, |r| r.head_coverage),
        ])
    }

    /// The model's estimate that the request needs one of the ranked
    /// memories, 0 to 1.
    #[must_use]
    pub fn need(&self) -> f64 {
        MODEL.estimate(&self.0)
    }

    /// These signals with those of an embedding model's cosines between
    /// the query and every memory (`cosines`, by memory), given the index
    /// of the memory the fused ranking puts first, and the query's cosine
    /// with the nearest of [`no_need_prompts`] (`no_need`, see
    /// [`nearest`]).
    #[must_use]
    pub fn with_cosines(
        &self,
        cosines: &[f64],
        leader: Option<usize>,
        no_need: f64,
    ) -> SemanticFeatures {
        let mut sorted = cosines.to_vec();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let best = sorted.first().copied().unwrap_or(0.0);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
        let fifth = sorted
            .get(4)
            .or_else(|| sorted.last())
            .copied()
            .unwrap_or(0.0);
        let lead = leader.and_then(|i| cosines.get(i)).copied().unwrap_or(0.0);
        let mut x = [0.0; SEMANTIC_FEATURES];
        x[..FEATURES].copy_from_slice(&self.0);
        x[FEATURES..].copy_from_slice(&[best, best - median, lead, best - fifth, no_need]);
        SemanticFeatures(x)
    }
}

/// Prompts that need no memory of a project or a person, whatever the
/// project: thanks and chit-chat, general programming questions,
/// mechanical edits, one-off tasks outside the project, in the scripts
/// recall supports. How close a request comes to the nearest of them is
/// one of [`SemanticFeatures`]' signals: a request that reads like one of
/// them needs a memory only if it also comes much closer to one. Under
/// cross-validation this signal raises coding hit@5 at the same false
/// injection; any half of the prompts, drawn at random, gives most of the
/// gain, so it is not a few of them matching a few test prompts (and none
/// is one of the evaluation sets' prompts or a close variant of one).
#[must_use]
pub fn no_need_prompts() -> &'static [&'static str] {
    static PROMPTS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        include_str!("no_need_prompts.txt")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    });
    &PROMPTS
}

/// The cosine of the unit vector `query` with the nearest of `bank`'s
/// (unit vectors of one model); 0 for an empty bank or vectors of another
/// length.
#[must_use]
pub fn nearest(query: &[f32], bank: &[Vec<f32>]) -> f64 {
    bank.iter()
        .map(|v| crate::local::dot(v, query))
        .fold(0.0, f64::max)
}

/// How many signals the model with an embedding model reads: the
/// lexical ones, then the best cosine, how far it stands above the
/// median memory's, the cosine of the fused ranking's first memory, how
/// far the best stands above the fifth, and the cosine with the nearest
/// prompt that needs no memory ([`no_need_prompts`]).
pub const SEMANTIC_FEATURES: usize = FEATURES + 5;

/// The signals of one request when an embedding model is in use
/// ([`Features::with_cosines`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SemanticFeatures(pub [f64; SEMANTIC_FEATURES]);

impl SemanticFeatures {
    /// [`SEMANTIC_MODEL`]'s estimate that the request needs a memory.
    #[must_use]
    pub fn need(&self) -> f64 {
        SEMANTIC_MODEL.estimate(&self.0)
    }
}

/// Whether `text` (lower case), split into `words`, holds `marker`: a
/// marker of Latin letters as whole words, any other as a substring.
fn holds(text: &str, words: &[&str], marker: &str) -> bool {
    if marker.is_ascii() {
        let parts: Vec<&str> = marker.split(' ').collect();
        words.windows(parts.len()).any(|w| w == parts.as_slice())
    } else {
        text.contains(marker)
    }
}

/// A fitted logistic model over `N` standardised features.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model<const N: usize> {
    /// Each feature's mean over the training prompts.
    pub mean: [f64; N],
    /// Each feature's standard deviation over them (never zero).
    pub scale: [f64; N],
    /// The weight of each standardised feature.
    pub weights: [f64; N],
    /// The intercept.
    pub bias: f64,
}

impl<const N: usize> Model<N> {
    /// The estimate for `x`, 0 to 1.
    #[must_use]
    pub fn estimate(&self, x: &[f64; N]) -> f64 {
        let z: f64 = x
            .iter()
            .zip(self.mean)
            .zip(self.scale)
            .zip(self.weights)
            .map(|(((x, m), s), w)| (x - m) / s * w)
            .sum::<f64>()
            + self.bias;
        1.0 / (1.0 + (-z).exp())
    }
}

/// The model in use (see the module documentation for how it was fitted).
pub const MODEL: Model<FEATURES> = Model {
    mean: [
        2.1904, 0.4881, 1.8717, 1.4651, 0.0287, 0.0333, 0.0854, 0.0317, 0.6895, 0.4534,
    ],
    scale: [
        0.6606, 0.3034, 0.5579, 0.8872, 0.167, 0.1793, 0.2795, 0.1753, 0.3026, 0.3154,
    ],
    weights: [
        1.1109, 1.1117, 0.5405, 0.7349, -0.8427, 0.1138, -0.0112, -0.2851, -0.4253, 1.0542,
    ],
    bias: 3.8752,
};

/// The lowest [`Features::need`] at which memories are recalled: under
/// cross-validation, the lowest at which at most 15% of the coding set's
/// no-memory prompts got a memory.
pub const NEED_THRESHOLD: f64 = 0.86;

/// The model with an embedding model's signals, fitted as [`MODEL`] is,
/// with all-MiniLM-L6-v2's cosines
/// (`cargo run --release -p memdir-relevance --features semantic
/// --example fit_abstention -- --model DIR`). Another embedding model
/// needs its own fit: cosines differ in scale from model to model.
pub const SEMANTIC_MODEL: Model<SEMANTIC_FEATURES> = Model {
    mean: [
        2.1904, 0.4881, 1.8717, 1.4651, 0.0287, 0.0333, 0.0854, 0.0317, 0.6895, 0.4534, 0.5589,
        0.3356, 0.5237, 0.1271, 0.2739,
    ],
    scale: [
        0.6606, 0.3034, 0.5579, 0.8872, 0.167, 0.1793, 0.2795, 0.1753, 0.3026, 0.3154, 0.1607,
        0.1123, 0.1882, 0.1002, 0.1673,
    ],
    weights: [
        0.2637, 2.1469, 0.9202, 0.0542, -0.8091, 0.0473, 0.1662, -0.2353, -0.3381, 1.048, 1.5873,
        0.3283, 0.0236, -0.98, -1.1101,
    ],
    bias: 5.3454,
};

/// The lowest [`SemanticFeatures::need`] at which memories are recalled,
/// chosen as [`NEED_THRESHOLD`] is: under cross-validation, at most 15% of
/// the coding set's no-memory prompts got a memory (14.9%), with coding
/// hit@5 0.800 and `LoCoMo` hit@5 0.660 (all-MiniLM-L6-v2).
pub const SEMANTIC_NEED_THRESHOLD: f64 = 0.79;

#[cfg(test)]
#[allow(clippy::float_cmp, reason = "the markers are exactly 0.0 or 1.0")]
mod tests {
    use super::*;

    fn ranked(scores: &[f64]) -> Scored {
        Scored {
            ranked: scores
                .iter()
                .enumerate()
                .map(|(index, &score)| crate::Ranked {
                    index,
                    score,
                    coverage: 0.5,
                    head_coverage: 0.5,
                })
                .collect(),
            known_share: 0.5,
            terms: 2,
        }
    }

    #[test]
    fn markers_match_words_not_parts_of_words() {
        let f = Features::of("Explain what a mutex is", &ranked(&[3.0]));
        assert_eq!(f.0[4], 1.0);
        let f = Features::of("the explainer page is broken", &ranked(&[3.0]));
        assert_eq!(f.0[4], 0.0);
        let f = Features::of("how do we release", &ranked(&[3.0]));
        assert_eq!((f.0[5], f.0[6]), (1.0, 0.0));
        let f = Features::of("我们怎么部署", &ranked(&[3.0]));
        assert_eq!(f.0[5], 1.0);
        let f = Features::of("trace:\n  at x", &ranked(&[]));
        assert_eq!((f.0[0], f.0[7]), (0.0, 1.0));
    }

    #[test]
    fn the_cosine_signals_are_the_best_its_lead_and_the_leader_s() {
        let lexical = Features::of("deploy friday", &ranked(&[3.0]));
        let cosines = [0.1, 0.7, 0.3, 0.2, 0.5, 0.4];
        let x = lexical.with_cosines(&cosines, Some(4), 0.2).0;
        assert_eq!(x[..FEATURES], lexical.0);
        // Sorted: 0.7 0.5 0.4 0.3 0.2 0.1; the median is the fourth.
        let expected = [0.7, 0.7 - 0.3, 0.5, 0.7 - 0.2];
        for (got, want) in x[FEATURES..].iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{x:?}");
        }
        // Fewer than five memories: the last stands in for the fifth.
        let x = lexical.with_cosines(&[0.6, 0.2], None, 0.2).0;
        assert!((x[FEATURES + 3] - 0.4).abs() < 1e-12 && x[FEATURES + 2] == 0.0);
        // A closer best memory never lowers the estimate.
        let far = lexical.with_cosines(&[0.2, 0.1], Some(0), 0.2).need();
        let near = lexical.with_cosines(&[0.8, 0.1], Some(0), 0.2).need();
        assert!(near > far, "{far} {near}");
    }

    #[test]
    fn the_no_need_prompts_are_lines_without_comments_and_the_nearest_is_the_best_cosine() {
        let prompts = no_need_prompts();
        assert!(prompts.len() >= 100, "{}", prompts.len());
        assert!(prompts.iter().all(|p| !p.is_empty() && !p.starts_with('#')));
        let bank = vec![vec![1.0, 0.0], vec![0.6, 0.8], vec![1.0, 0.0, 0.0]];
        assert!((nearest(&[0.0, 1.0], &bank) - 0.8).abs() < 1e-6);
        // Vectors of another length never count; nothing near is 0.
        assert!(nearest(&[0.0, 0.0, 1.0], &bank).abs() < 1e-12);
        assert!(nearest(&[0.0, 1.0], &[]).abs() < 1e-12);
        // Nearer to a prompt that needs no memory never raises the need.
        let lexical = Features::of("deploy friday", &ranked(&[3.0]));
        let far = lexical.with_cosines(&[0.5, 0.1], Some(0), 0.1).need();
        let near = lexical.with_cosines(&[0.5, 0.1], Some(0), 0.9).need();
        assert!(near < far, "{far} {near}");
    }

    #[test]
    fn a_stronger_match_needs_no_less() {
        let weak = Features::of("deploy friday", &ranked(&[1.0, 0.9])).need();
        let strong = Features::of("deploy friday", &ranked(&[12.0, 0.9])).need();
        assert!(strong >= weak, "{weak} {strong}");
    }
}
