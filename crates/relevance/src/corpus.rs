//! What the ranker reads of a set of memories: how many there are, how
//! long each one's fields are, and which memories hold a term, field by
//! field. [`Corpus`] is the boundary: [`MemCorpus`] builds it in memory
//! from scanned headers, and a persistent recall index serves the same
//! answers from disk, so one scoring function ranks both.

use std::borrow::Cow;

use memdir_scan::MemoryHeader;

use crate::tokenize::{Term, Vocab};

/// How many fields a memory has for ranking.
pub const FIELDS: usize = 4;

/// A memory's fields, as the ranker weighs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The frontmatter `name`.
    Name = 0,
    /// The frontmatter `description`: one line saying what it holds.
    Description = 1,
    /// The file name without its folder and `.md`.
    FileName = 2,
    /// The text after the frontmatter.
    Body = 3,
}

/// A count for each [`Field`], indexed by `Field as usize`.
pub type FieldCounts = [u32; FIELDS];

/// A memory's number in a corpus.
pub type DocId = u32;

/// A term and the memories that hold it.
pub(crate) type TermPostings = (Box<str>, Vec<(DocId, FieldCounts)>);

/// The statistics ranking needs, however they are stored.
pub trait Corpus {
    /// How many memories the corpus holds.
    fn len(&self) -> usize;

    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sum of each field's length (in terms) over every memory.
    fn total_lens(&self) -> [u64; FIELDS];

    /// The length of each field of one memory, in terms.
    fn lens(&self, doc: DocId) -> FieldCounts;

    /// The memories that hold `term`, with how often it occurs in each of
    /// their fields, in increasing [`DocId`] order.
    fn postings(&self, term: &str) -> Cow<'_, [(DocId, FieldCounts)]>;
}

/// The text of a memory's fields, before it is split into terms.
#[derive(Debug, Clone, Copy)]
pub struct DocText<'a> {
    /// The frontmatter `name`, or empty.
    pub name: &'a str,
    /// The frontmatter `description`, or empty.
    pub description: &'a str,
    /// The file name without its folder and `.md`.
    pub file_stem: &'a str,
    /// The body (or the part of it that was read).
    pub body: &'a str,
}

impl<'a> DocText<'a> {
    /// The fields of a scanned memory: its body is the part the scan read.
    #[must_use]
    pub fn of_header(m: &'a MemoryHeader) -> Self {
        DocText {
            name: m.name.as_deref().unwrap_or(""),
            description: m.description.as_deref().unwrap_or(""),
            file_stem: file_stem(&m.filename),
            body: &m.body_head,
        }
    }

    fn fields(&self) -> [&'a str; FIELDS] {
        [self.name, self.description, self.file_stem, self.body]
    }
}

/// The file name without its folder and `.md`, as text to tokenise.
#[must_use]
pub fn file_stem(filename: &str) -> &str {
    let name = filename.rsplit('/').next().unwrap_or(filename);
    name.strip_suffix(".md").unwrap_or(name)
}

/// Calls `each` with every term of every field of `text`, once per
/// occurrence, in order; returns the length of each field in terms (what
/// a corpus stores for the memory).
pub fn count_terms(text: &DocText<'_>, mut each: impl FnMut(&str, Field)) -> FieldCounts {
    let mut lens = [0u32; FIELDS];
    for (i, field_text) in text.fields().into_iter().enumerate() {
        let field = FIELD_ORDER[i];
        for term in crate::tokenize::tokenize(field_text) {
            lens[i] = lens[i].saturating_add(1);
            each(&term, field);
        }
    }
    lens
}

const FIELD_ORDER: [Field; FIELDS] = [
    Field::Name,
    Field::Description,
    Field::FileName,
    Field::Body,
];

/// A corpus built in memory from scanned memories: every term of them, or
/// only a query's terms ([`MemCorpus::for_terms`]), which is all one
/// request needs and much less work.
#[derive(Debug, Clone)]
pub struct MemCorpus {
    vocab: Vocab,
    postings: Vec<Vec<(DocId, FieldCounts)>>,
    lens: Vec<FieldCounts>,
    totals: [u64; FIELDS],
}

impl MemCorpus {
    /// Indexes every term of `docs`.
    #[must_use]
    pub fn new<'a>(docs: impl IntoIterator<Item = DocText<'a>>) -> Self {
        Self::build(docs, Vocab::open())
    }

    /// Indexes only `terms` (every other term counts towards its field's
    /// length alone).
    #[must_use]
    pub fn for_terms<'a, 't>(
        docs: impl IntoIterator<Item = DocText<'a>>,
        terms: impl IntoIterator<Item = &'t str>,
    ) -> Self {
        Self::build(docs, Vocab::closed(terms))
    }

    fn build<'a>(docs: impl IntoIterator<Item = DocText<'a>>, mut vocab: Vocab) -> Self {
        let mut postings: Vec<Vec<(DocId, FieldCounts)>> = Vec::new();
        let mut lens = Vec::new();
        let mut totals = [0u64; FIELDS];
        // This memory's counts by term number, and which terms it has:
        // reused from memory to memory.
        let mut tf: Vec<FieldCounts> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        for (doc, text) in docs.into_iter().enumerate() {
            let doc = DocId::try_from(doc).unwrap_or(DocId::MAX);
            let mut doc_lens = [0u32; FIELDS];
            for (i, field_text) in text.fields().into_iter().enumerate() {
                vocab.terms(field_text, |term| {
                    doc_lens[i] = doc_lens[i].saturating_add(1);
                    if let Term::Id(id) = term {
                        let at = id as usize;
                        if at >= tf.len() {
                            tf.resize(at + 1, [0; FIELDS]);
                        }
                        if tf[at] == [0; FIELDS] {
                            seen.push(id);
                        }
                        tf[at][i] = tf[at][i].saturating_add(1);
                    }
                });
            }
            for (total, len) in totals.iter_mut().zip(doc_lens) {
                *total += u64::from(len);
            }
            lens.push(doc_lens);
            if postings.len() < tf.len() {
                postings.resize_with(tf.len(), Vec::new);
            }
            for id in seen.drain(..) {
                let at = id as usize;
                postings[at].push((doc, tf[at]));
                tf[at] = [0; FIELDS];
            }
        }
        postings.resize_with(vocab.len(), Vec::new);
        MemCorpus {
            vocab,
            postings,
            lens,
            totals,
        }
    }
}

impl MemCorpus {
    /// Every term with its postings, and each memory's field lengths.
    pub(crate) fn into_parts(self) -> (Vec<TermPostings>, Vec<FieldCounts>) {
        let terms = self
            .vocab
            .into_terms()
            .into_iter()
            .zip(self.postings)
            .collect();
        (terms, self.lens)
    }
}

impl Corpus for MemCorpus {
    fn len(&self) -> usize {
        self.lens.len()
    }

    fn total_lens(&self) -> [u64; FIELDS] {
        self.totals
    }

    fn lens(&self, doc: DocId) -> FieldCounts {
        self.lens.get(doc as usize).copied().unwrap_or_default()
    }

    fn postings(&self, term: &str) -> Cow<'_, [(DocId, FieldCounts)]> {
        Cow::Borrowed(
            self.vocab
                .get(term)
                .map_or(&[][..], |id| self.postings[id as usize].as_slice()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(name: &'a str, description: &'a str, body: &'a str) -> DocText<'a> {
        DocText {
            name,
            description,
            file_stem: name,
            body,
        }
    }

    #[test]
    fn counts_terms_per_field() {
        let docs = [
            doc(
                "deploy",
                "deploys go out on Tuesdays",
                "never deploy on Friday",
            ),
            doc("tests", "integration tests hit a real database", ""),
        ];
        let corpus = MemCorpus::new(docs);
        assert_eq!(corpus.len(), 2);
        let deploy = corpus.postings("deploy");
        assert_eq!(&*deploy, &[(0, [1, 1, 1, 1])]);
        assert_eq!(corpus.lens(1)[Field::Body as usize], 0);
        assert!(corpus.postings("nothing").is_empty());
        let closed = MemCorpus::for_terms(docs, ["databas"]);
        assert_eq!(closed.lens(0), corpus.lens(0));
        assert_eq!(&*closed.postings("databas"), &*corpus.postings("databas"));
        assert!(closed.postings("deploy").is_empty());
        let mut terms = Vec::new();
        let lens = count_terms(&docs[0], |t, f| terms.push((t.to_owned(), f)));
        assert_eq!(lens, corpus.lens(0));
        assert_eq!(terms[0], ("deploy".to_owned(), Field::Name));
    }
}
