//! The measures of one system on a set of queries, accumulated query by
//! query.

use super::dataset::Label;

/// Answers are judged over this many memories: all a recall returns.
const TOP: usize = crate::MAX_RELEVANT;

/// Counts for hit@1, hit@5, MRR over the top five, nothing returned,
/// false injection and hit@5 before abstention. Each rate is over the
/// queries it concerns and `None` when there are none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics {
    /// Queries with an answer ([`Label::Relevant`]).
    pub answerable: usize,
    /// Answerable queries whose first memory is relevant.
    pub hit1: usize,
    /// Answerable queries with a relevant memory in the top five.
    pub hit5: usize,
    /// Sum over answerable queries of 1 / the rank of the first relevant
    /// memory in the top five (0 when there is none).
    pub reciprocal_ranks: f64,
    /// Answerable queries that got nothing at all.
    pub answerable_empty: usize,
    /// Answerable queries with a relevant memory in the top five of the
    /// ranking before abstention.
    pub hit5_before: usize,
    /// Queries no memory is relevant to ([`Label::NoMemory`]).
    pub no_memory: usize,
    /// No-memory queries that got at least one memory.
    pub injected: usize,
    /// Queries without a label ([`Label::Unlabelled`]).
    pub unlabelled: usize,
    /// Unlabelled queries that got nothing.
    pub unlabelled_empty: usize,
}

impl Metrics {
    /// Counts one query: `returned` is what the system gave, best first;
    /// `before` its ranking before abstention (the same list for a system
    /// that never abstains).
    pub fn record(&mut self, label: &Label, returned: &[String], before: &[String]) {
        match label {
            Label::Relevant(relevant) => {
                self.answerable += 1;
                let rank = first_hit(relevant, returned, TOP);
                self.hit1 += usize::from(rank == Some(1));
                self.hit5 += usize::from(rank.is_some());
                self.reciprocal_ranks += rank.map_or(0.0, |r| 1.0 / as_f64(r));
                self.answerable_empty += usize::from(returned.is_empty());
                self.hit5_before += usize::from(first_hit(relevant, before, TOP).is_some());
            }
            Label::NoMemory => {
                self.no_memory += 1;
                self.injected += usize::from(!returned.is_empty());
            }
            Label::Unlabelled => {
                self.unlabelled += 1;
                self.unlabelled_empty += usize::from(returned.is_empty());
            }
        }
    }

    /// Share of answerable queries whose first memory is relevant.
    #[must_use]
    pub fn hit_at_1(&self) -> Option<f64> {
        ratio(self.hit1, self.answerable)
    }

    /// Share of answerable queries with a relevant memory in the top five.
    #[must_use]
    pub fn hit_at_5(&self) -> Option<f64> {
        ratio(self.hit5, self.answerable)
    }

    /// Mean reciprocal rank over the top five, on answerable queries.
    #[must_use]
    pub fn mrr(&self) -> Option<f64> {
        (self.answerable > 0).then(|| self.reciprocal_ranks / as_f64(self.answerable))
    }

    /// Share of answerable queries that got nothing.
    #[must_use]
    pub fn nothing_returned(&self) -> Option<f64> {
        ratio(self.answerable_empty, self.answerable)
    }

    /// hit@5 of the ranking before abstention.
    #[must_use]
    pub fn hit_at_5_before(&self) -> Option<f64> {
        ratio(self.hit5_before, self.answerable)
    }

    /// Share of no-memory queries that got at least one memory.
    #[must_use]
    pub fn false_injection(&self) -> Option<f64> {
        ratio(self.injected, self.no_memory)
    }

    /// Share of unlabelled queries that got nothing.
    #[must_use]
    pub fn unlabelled_nothing(&self) -> Option<f64> {
        ratio(self.unlabelled_empty, self.unlabelled)
    }
}

/// The 1-based rank of the first memory of `returned`, among its first
/// `k`, whose file name is in `relevant`.
#[must_use]
pub fn first_hit(relevant: &[String], returned: &[String], k: usize) -> Option<usize> {
    returned
        .iter()
        .take(k)
        .position(|f| relevant.contains(f))
        .map(|i| i + 1)
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| as_f64(part) / as_f64(whole))
}

/// A count as a float; counts of queries are far below 2^52.
#[allow(clippy::cast_precision_loss, reason = "counts are far below 2^52")]
pub(super) fn as_f64(n: usize) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<String> {
        names.iter().map(|&n| n.to_owned()).collect()
    }

    fn relevant(names: &[&str]) -> Label {
        Label::Relevant(files(names))
    }

    #[test]
    fn the_first_hit_is_ranked_within_k() {
        let got = files(&["a", "b", "c", "d", "e", "f"]);
        assert_eq!(first_hit(&files(&["c", "a"]), &got, 5), Some(1));
        assert_eq!(first_hit(&files(&["c"]), &got, 5), Some(3));
        assert_eq!(first_hit(&files(&["f"]), &got, 5), None);
        assert_eq!(first_hit(&files(&["f"]), &got, 6), Some(6));
        assert_eq!(first_hit(&[], &got, 5), None);
        assert_eq!(first_hit(&files(&["a"]), &[], 5), None);
    }

    #[test]
    fn hits_and_mrr_over_answerable_queries() {
        let mut m = Metrics::default();
        // First place, third place, sixth place (outside the top five),
        // nothing at all, and an answer no memory holds.
        m.record(&relevant(&["a"]), &files(&["a", "b"]), &files(&["a", "b"]));
        m.record(
            &relevant(&["c"]),
            &files(&["a", "b", "c"]),
            &files(&["a", "b", "c"]),
        );
        m.record(
            &relevant(&["f"]),
            &files(&["a", "b", "c", "d", "e", "f"]),
            &files(&["a", "b", "c", "d", "e", "f"]),
        );
        m.record(&relevant(&["a"]), &[], &files(&["x", "a"]));
        m.record(&relevant(&[]), &files(&["a"]), &files(&["a"]));
        assert_eq!(m.answerable, 5);
        assert_eq!(m.hit_at_1(), Some(0.2));
        assert_eq!(m.hit_at_5(), Some(0.4));
        let mrr = m.mrr().unwrap();
        assert!((mrr - (1.0 + 1.0 / 3.0) / 5.0).abs() < 1e-12, "{mrr}");
        assert_eq!(m.nothing_returned(), Some(0.2));
        // The empty answer had its memory second before abstention.
        assert_eq!(m.hit_at_5_before(), Some(0.6));
        assert_eq!(m.false_injection(), None);
        assert_eq!(m.unlabelled_nothing(), None);
    }

    #[test]
    fn false_injection_and_unlabelled_queries_are_counted_apart() {
        let mut m = Metrics::default();
        m.record(&Label::NoMemory, &[], &files(&["a"]));
        m.record(&Label::NoMemory, &files(&["a"]), &files(&["a"]));
        m.record(&Label::NoMemory, &[], &[]);
        m.record(&Label::NoMemory, &[], &[]);
        m.record(&Label::Unlabelled, &[], &[]);
        m.record(&Label::Unlabelled, &files(&["b"]), &files(&["b"]));
        m.record(&Label::Unlabelled, &[], &[]);
        assert_eq!(m.false_injection(), Some(0.25));
        let nothing = m.unlabelled_nothing().unwrap();
        assert!((nothing - 2.0 / 3.0).abs() < 1e-12);
        // None of them is answerable: no hit rate exists.
        assert_eq!(m.answerable, 0);
        assert_eq!((m.hit_at_1(), m.hit_at_5(), m.mrr()), (None, None, None));
        assert_eq!(m.nothing_returned(), None);
    }
}
