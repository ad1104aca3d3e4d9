//! What an evaluation runs over: folders of memories on disk, each with
//! the labelled queries asked of it.

use std::path::{Path, PathBuf};

use super::{dataset_in, load_queries};
use crate::RelevanceError;

/// What a query's labels say it should recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// The query has an answer: a returned memory is a hit when its file
    /// name (relative to the folder) is one of these. The list may be
    /// empty when the answer is in no memory (a `LoCoMo` question whose
    /// evidence was never made an observation): the query still counts,
    /// and can never be a hit.
    Relevant(Vec<String>),
    /// No memory is relevant: anything returned is a false injection.
    NoMemory,
    /// No relevance label: only how often nothing came back is reported
    /// (`LoCoMo`'s adversarial questions).
    Unlabelled,
}

/// One labelled query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Its identifier, unique in the dataset.
    pub id: String,
    /// The groups it is reported in besides the whole dataset (a
    /// category, a kind, a language).
    pub groups: Vec<String>,
    /// The request text.
    pub query: String,
    /// What it should recall.
    pub label: Label,
}

/// A memory folder and the queries asked of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The memory folder on disk.
    pub path: PathBuf,
    /// The queries.
    pub cases: Vec<Case>,
}

/// A labelled dataset: folders of memories and their queries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataset {
    /// Its name, as the report prints it.
    pub name: String,
    /// The folders.
    pub folders: Vec<Folder>,
}

impl Dataset {
    /// Every query, folder by folder.
    pub fn cases(&self) -> impl Iterator<Item = &Case> {
        self.folders.iter().flat_map(|f| f.cases.iter())
    }
}

/// This crate's own labelled set (or one in its format) as a dataset:
/// `memories/` and `queries.jsonl` in `folder` ([`dataset_in`]); a query
/// expecting a file is answerable by that file alone, one expecting
/// nothing is a no-memory query. Grouped by category.
pub fn bundled(folder: &Path) -> Result<Dataset, RelevanceError> {
    let (memories, queries) = dataset_in(folder);
    let cases = load_queries(&queries)?
        .into_iter()
        .map(|q| Case {
            id: q.id,
            groups: vec![q.category],
            query: q.query,
            label: match q.expect {
                Some(file) => Label::Relevant(vec![file]),
                None => Label::NoMemory,
            },
        })
        .collect();
    Ok(Dataset {
        name: "bundled recall-eval".to_owned(),
        folders: vec![Folder {
            path: memories,
            cases,
        }],
    })
}
