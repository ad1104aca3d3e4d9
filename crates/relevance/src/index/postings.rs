//! The compact form of a term's postings in the index's base segment: one
//! blob per term, each memory as varints (the gap from the previous memory
//! number, the term's count in each field, the memory's length in each
//! field). A term held by 50,000 memories is one read of about 500 KB,
//! decoded in well under a millisecond; one row per posting would be
//! 50,000 rows to step through.

use crate::corpus::{DocId, FIELDS, FieldCounts};

/// One memory holding a term: its number, the term's counts, its lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Posting {
    pub doc: DocId,
    pub counts: FieldCounts,
    pub lens: FieldCounts,
}

fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        // Seven bits at a time, low first; the high bit says more follow.
        out.push(u8::try_from(v & 0x7f).unwrap_or(0) | 0x80);
        v >>= 7;
    }
    out.push(u8::try_from(v).unwrap_or(0));
}

fn get(data: &[u8], at: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let byte = *data.get(*at)?;
        *at += 1;
        v |= u32::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Encodes postings sorted by increasing memory number.
pub(crate) fn encode(postings: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 10);
    let mut last = 0;
    for p in postings {
        put(&mut out, p.doc - last);
        last = p.doc;
        for c in p.counts.iter().chain(&p.lens) {
            put(&mut out, *c);
        }
    }
    out
}

/// Decodes a blob [`encode`] wrote, calling `each` per posting; `None` when
/// the blob is damaged (the index is then rebuilt).
pub(crate) fn decode(data: &[u8], mut each: impl FnMut(Posting)) -> Option<()> {
    let mut at = 0;
    let mut doc: DocId = 0;
    while at < data.len() {
        doc = doc.checked_add(get(data, &mut at)?)?;
        let mut counts = [0; FIELDS];
        let mut lens = [0; FIELDS];
        for c in counts.iter_mut().chain(lens.iter_mut()) {
            *c = get(data, &mut at)?;
        }
        each(Posting { doc, counts, lens });
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decoding_gives_back_what_was_encoded(
            mut raw in proptest::collection::vec((0u32..5_000_000, [any::<u32>(); 4], [any::<u32>(); 4]), 0..50)
        ) {
            raw.sort_by_key(|r| r.0);
            raw.dedup_by_key(|r| r.0);
            let postings: Vec<Posting> = raw.iter().map(|&(doc, counts, lens)| Posting { doc, counts, lens }).collect();
            let mut back = Vec::new();
            prop_assert!(decode(&encode(&postings), |p| back.push(p)).is_some());
            prop_assert_eq!(back, postings);
        }

        #[test]
        fn damaged_blobs_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode(&data, |_| {});
        }
    }
}
