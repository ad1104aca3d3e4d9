//! How alike two memories are: a weighted cosine over the relevance
//! tokenizer's terms (stems for Latin text, bigrams for CJK) of the name,
//! the description and the body.

use std::collections::HashMap;

use memdir_memtypes::ParsedMemory;
use memdir_relevance::tokenize;

/// Weights of the name, the description and the body; they sum to 1.
const WEIGHTS: [f64; 3] = [0.3, 0.4, 0.3];

/// Term counts of one field.
pub(crate) type Terms = HashMap<String, f64>;

/// The terms of a memory's three fields.
pub(crate) fn fields(memory: &ParsedMemory) -> [Terms; 3] {
    let name = memory
        .header
        .name
        .as_deref()
        .unwrap_or_default()
        .replace(['-', '_'], " ");
    [
        terms(&name),
        terms(memory.header.description.as_deref().unwrap_or_default()),
        terms(&memory.body),
    ]
}

fn terms(text: &str) -> Terms {
    let mut counts = Terms::new();
    for term in tokenize(text) {
        *counts.entry(term).or_default() += 1.0;
    }
    counts
}

fn cosine(a: &Terms, b: &Terms) -> f64 {
    let dot: f64 = a.iter().filter_map(|(t, x)| b.get(t).map(|y| x * y)).sum();
    let norm = |v: &Terms| v.values().map(|x| x * x).sum::<f64>().sqrt();
    let denominator = norm(a) * norm(b);
    if denominator == 0.0 {
        0.0
    } else {
        dot / denominator
    }
}

/// The similarity of two memories' fields, in 0..=1. A field empty in
/// both does not count: the weights of the others are scaled up.
pub(crate) fn field_similarity(a: &[Terms; 3], b: &[Terms; 3]) -> f64 {
    let mut sum = 0.0;
    let mut weight = 0.0;
    for ((x, y), w) in a.iter().zip(b).zip(WEIGHTS) {
        if x.is_empty() && y.is_empty() {
            continue;
        }
        sum += w * cosine(x, y);
        weight += w;
    }
    if weight == 0.0 { 0.0 } else { sum / weight }
}

/// How alike two memories are, from 0 (nothing shared) to 1 (the same
/// terms in the same proportions): the cosine of their term counts, per
/// field, weighted name 0.3, description 0.4, body 0.3.
///
/// ```
/// use memdir_memtypes::parse_memory_str;
/// let a = parse_memory_str("---\nname: use-pnpm\ndescription: The repo uses pnpm, not npm\n---\nUse pnpm.\n");
/// let b = parse_memory_str("---\nname: pnpm-only\ndescription: This repo uses pnpm instead of npm\n---\nAlways pnpm.\n");
/// let c = parse_memory_str("---\nname: staging-vpn\ndescription: Staging needs the VPN\n---\nConnect first.\n");
/// assert!(memdir_doctor::similarity(&a, &b) > memdir_doctor::similarity(&a, &c));
/// ```
#[must_use]
pub fn similarity(a: &ParsedMemory, b: &ParsedMemory) -> f64 {
    field_similarity(&fields(a), &fields(b))
}
