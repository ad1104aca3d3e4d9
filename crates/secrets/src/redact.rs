//! Redaction to a fixpoint: the redacted text scans clean.
//!
//! Replacing one finding can bring another to light. A rule's matches do
//! not overlap (gitleaks' semantics), so a low-entropy match that a rule
//! then drops can hide a real secret starting inside it; and a marker put
//! in place of one secret changes the context (word boundaries,
//! terminators) of the text around it. So redaction runs in rounds: scan
//! the current output, add what each finding covers of the original text
//! to the redacted set, rebuild the output, and stop when a scan finds
//! nothing. Every round redacts at least one more byte of the original, so
//! the rounds end; a byte no finding of any round covers is never touched.

use std::ops::Range;

use crate::{Scanner, SecretMatch};

/// A text with its secrets redacted, and where they were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redaction {
    /// The text, each redacted span replaced by `[REDACTED:<rule-id>]`.
    pub text: String,
    /// The redacted spans of the original text, in order, disjoint and not
    /// touching, at character boundaries.
    pub spans: Vec<RedactedSpan>,
    /// Whether the output still holds a finding. Only a custom rule that
    /// matches the marker itself can cause this; the built-in rules never
    /// do (tested).
    pub residue: bool,
}

/// One redacted span of the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactedSpan {
    /// Byte offset in the original text where the span starts.
    pub start: usize,
    /// Byte offset just past the span.
    pub end: usize,
    /// The rule of the first finding in the span, named in its marker.
    pub rule_id: String,
}

/// The marker for a span redacted by `rule_id`.
fn marker(rule_id: &str) -> String {
    format!("[REDACTED:{rule_id}]")
}

/// A piece of the output: original text, or the marker of span `i`.
enum Piece {
    Kept(Range<usize>),
    Marker(usize),
}

pub(crate) fn redaction(scanner: &Scanner, text: &str) -> Redaction {
    let mut spans: Vec<RedactedSpan> = Vec::new();
    let mut findings = scanner.scan(text);
    let mut output = text.to_owned();
    let mut pieces = vec![(0..text.len(), Piece::Kept(0..text.len()))];
    loop {
        findings.retain(|f| f.start < f.end);
        if findings.is_empty() {
            return Redaction {
                text: output,
                spans,
                residue: false,
            };
        }
        let before: usize = spans.iter().map(|s| s.end - s.start).sum();
        let mut covered: Vec<(Range<usize>, String)> = spans
            .iter()
            .map(|s| (s.start..s.end, s.rule_id.clone()))
            .collect();
        for f in &findings {
            covered.extend(to_original(&pieces, &spans, f));
        }
        spans = merge(text, covered);
        let after: usize = spans.iter().map(|s| s.end - s.start).sum();
        (output, pieces) = render(text, &spans);
        if after == before {
            // The findings lie wholly in markers: a rule matches the
            // marker, and no further round can help.
            return Redaction {
                text: output,
                spans,
                residue: true,
            };
        }
        findings = scanner.scan(&output);
    }
}

/// What a finding in the output covers of the original text.
fn to_original(
    pieces: &[(Range<usize>, Piece)],
    spans: &[RedactedSpan],
    f: &SecretMatch,
) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    // The pieces are in output order: start at the first that ends after
    // the finding starts, so a round costs a search per finding, not a
    // pass over every piece.
    let first = pieces.partition_point(|(at, _)| at.end <= f.start);
    for (at, piece) in &pieces[first..] {
        if at.start >= f.end {
            break;
        }
        let (start, end) = (f.start.max(at.start), f.end.min(at.end));
        if start >= end {
            continue;
        }
        match piece {
            Piece::Kept(orig) => {
                let shift = orig.start;
                out.push((
                    start - at.start + shift..end - at.start + shift,
                    f.rule_id.clone(),
                ));
            }
            Piece::Marker(i) => {
                let s = &spans[*i];
                out.push((s.start..s.end, s.rule_id.clone()));
            }
        }
    }
    out
}

/// Sorted, disjoint, non-touching spans at character boundaries; a merged
/// span is named by the rule of its earliest part.
fn merge(text: &str, mut covered: Vec<(Range<usize>, String)>) -> Vec<RedactedSpan> {
    for (r, _) in &mut covered {
        // Rules run over bytes, so a span may cut a character in two.
        r.start = floor_boundary(text, r.start);
        r.end = ceil_boundary(text, r.end);
    }
    covered.sort_by(|a, b| a.0.start.cmp(&b.0.start).then(b.0.end.cmp(&a.0.end)));
    let mut spans: Vec<RedactedSpan> = Vec::new();
    for (r, rule_id) in covered {
        match spans.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => spans.push(RedactedSpan {
                start: r.start,
                end: r.end,
                rule_id,
            }),
        }
    }
    spans
}

/// The output for `spans`, and where each of its pieces comes from.
fn render(text: &str, spans: &[RedactedSpan]) -> (String, Vec<(Range<usize>, Piece)>) {
    let mut out = String::with_capacity(text.len());
    let mut pieces = Vec::with_capacity(2 * spans.len() + 1);
    let mut pos = 0;
    let keep = |out: &mut String, pieces: &mut Vec<_>, orig: Range<usize>| {
        if orig.is_empty() {
            return;
        }
        let at = out.len();
        out.push_str(&text[orig.clone()]);
        pieces.push((at..out.len(), Piece::Kept(orig)));
    };
    for (i, s) in spans.iter().enumerate() {
        keep(&mut out, &mut pieces, pos..s.start);
        let at = out.len();
        out.push_str(&marker(&s.rule_id));
        pieces.push((at..out.len(), Piece::Marker(i)));
        pos = s.end;
    }
    keep(&mut out, &mut pieces, pos..text.len());
    (out, pieces)
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}
