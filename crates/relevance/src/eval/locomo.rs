//! The `LoCoMo` benchmark (long-term conversational memory) as a recall
//! dataset that memdir's own authors did not write.
//!
//! Each conversation becomes one memory folder: every session observation
//! (`observation.session_N_observation.<speaker>[i]`, a text and the
//! dialogue turns it came from) is a memory file `sN-<speaker>-<i+1>.md`
//! of type `user` whose description and body are the text, and whose
//! `modified` time (and file time, which the caller sets) is the session's
//! date, so later sessions are newer. `MEMORY.md` lists the files. Its
//! questions of categories 1 to 4 (multi-hop, temporal, open-domain,
//! single-hop) are recall queries: a memory is relevant when one of its
//! dialogue turns is among the question's evidence. Category 5 questions
//! are adversarial (about the other speaker) and have no clean label:
//! only how often nothing comes back is reported.
//!
//! The data's licence forbids copying it into a product: [`load`] turns it
//! into [`Conversation`]s in memory, the caller writes them to a temporary
//! folder, and nothing derived from it is kept.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memdir_memtypes::{Header, MemoryType, read_regular_file, render_memory, update_memory};
use serde::Deserialize;

use super::EvalError;
use super::dataset::{Case, Dataset, Folder, Label};
use super::report::{Evaluation, Target};

/// A benchmark file larger than this is refused rather than read: the
/// whole benchmark is a few megabytes.
pub const MAX_LOCOMO_BYTES: u64 = 64 * 1024 * 1024;

/// One memory file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Its file name (`s3-Caroline-7.md`).
    pub filename: String,
    /// Its whole text: frontmatter and body.
    pub text: String,
    /// Its session's date: the `modified` its frontmatter records, and the
    /// modification time to give the file.
    pub modified: jiff::Timestamp,
}

/// One conversation as a memory folder and its questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// The conversation's id (`sample_id`), usable as a folder name.
    pub id: String,
    /// Its memory files, session by session.
    pub memories: Vec<MemoryFile>,
    /// The text of its `MEMORY.md`: one index line per memory.
    pub index: String,
    /// Its questions.
    pub cases: Vec<Case>,
}

/// Reads and converts a `LoCoMo` file (`locomo10.json` or a part of it).
pub fn load(path: &Path) -> Result<Vec<Conversation>, EvalError> {
    let bytes = read_regular_file(path, MAX_LOCOMO_BYTES).map_err(crate::RelevanceError::from)?;
    parse(&bytes, path)
}

/// Converts the JSON of a `LoCoMo` file; `path` only names it in errors.
pub fn parse(json: &[u8], path: &Path) -> Result<Vec<Conversation>, EvalError> {
    let raw: Vec<RawConversation> =
        serde_json::from_slice(json).map_err(|e| crate::RelevanceError::Dataset {
            path: path.to_owned(),
            line: e.line(),
            message: e.to_string(),
        })?;
    raw.into_iter()
        .map(|c| {
            convert(c).map_err(|message| EvalError::Invalid {
                path: path.to_owned(),
                message,
            })
        })
        .collect()
}

/// The conversations as a dataset, each in the folder named by its id
/// under `root` (where the caller writes them).
#[must_use]
pub fn dataset(conversations: &[Conversation], root: &Path) -> Dataset {
    Dataset {
        name: "LoCoMo dev split".to_owned(),
        folders: conversations
            .iter()
            .map(|c| Folder {
                path: folder_of(c, root),
                cases: c.cases.clone(),
            })
            .collect(),
    }
}

/// The folder `conversation` is written to under `root`.
#[must_use]
pub fn folder_of(conversation: &Conversation, root: &Path) -> PathBuf {
    root.join(&conversation.id)
}

/// How many answerable questions have their evidence among the
/// observations, of how many: no recall can do better than that share.
#[must_use]
pub fn ceiling(conversations: &[Conversation]) -> (usize, usize) {
    let answerable = conversations
        .iter()
        .flat_map(|c| &c.cases)
        .filter_map(|c| match &c.label {
            Label::Relevant(files) => Some(!files.is_empty()),
            _ => None,
        });
    answerable.fold((0, 0), |(reachable, all), r| {
        (reachable + usize::from(r), all + 1)
    })
}

/// The targets memdir is held to on `LoCoMo`: hit@5 at least 0.56 and at
/// least the floor's, MRR at least 0.46, and nothing returned for at
/// most 10% of the answerable questions.
#[must_use]
pub fn targets(e: &Evaluation) -> Vec<Target> {
    let m = &e.memdir.all;
    let floor = e.floor.all.hit_at_5();
    let hit5 = m.hit_at_5();
    vec![
        Target::at_least("memdir hit@5", hit5, 0.56),
        Target {
            what: format!(
                "memdir hit@5 >= the BM25 floor's ({})",
                floor.map_or_else(|| "-".to_owned(), |f| format!("{f:.3}"))
            ),
            value: hit5,
            percent: false,
            met: hit5.zip(floor).is_some_and(|(v, f)| v >= f),
        },
        Target::at_least("memdir MRR", m.mrr(), 0.46),
        Target::at_most_percent(
            "memdir nothing returned (answerable)",
            m.nothing_returned(),
            0.10,
        ),
    ]
}

#[derive(Deserialize)]
struct RawConversation {
    sample_id: String,
    conversation: serde_json::Map<String, serde_json::Value>,
    /// Session key → speaker → observations.
    observation: BTreeMap<String, BTreeMap<String, Vec<(String, DialogueIds)>>>,
    qa: Vec<RawQuestion>,
}

/// The dialogue turns an observation came from: one, or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum DialogueIds {
    One(String),
    Many(Vec<String>),
}

impl DialogueIds {
    fn into_vec(self) -> Vec<String> {
        match self {
            DialogueIds::One(id) => vec![id],
            DialogueIds::Many(ids) => ids,
        }
    }
}

#[derive(Deserialize)]
struct RawQuestion {
    question: String,
    #[serde(default)]
    evidence: Vec<String>,
    category: u8,
}

fn convert(raw: RawConversation) -> Result<Conversation, String> {
    let id = safe_name(&raw.sample_id);
    let mut sessions: Vec<(u32, _)> = Vec::new();
    for (key, speakers) in raw.observation {
        let n = key
            .strip_prefix("session_")
            .and_then(|k| k.strip_suffix("_observation"))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("{id}: observation key {key:?} is not session_N_observation"))?;
        sessions.push((n, speakers));
    }
    sessions.sort_by_key(|s| s.0);
    let mut memories = Vec::new();
    let mut by_turn: HashMap<String, Vec<String>> = HashMap::new();
    let mut index = String::new();
    for (n, speakers) in sessions {
        let date_key = format!("session_{n}_date_time");
        let date = raw
            .conversation
            .get(&date_key)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("{id}: conversation.{date_key} is missing"))?;
        let modified = session_time(date).ok_or_else(|| {
            format!("{id}: {date_key} {date:?} is not a date like \"1:56 pm on 8 May, 2023\"")
        })?;
        for (speaker, observations) in speakers {
            for (i, (text, turns)) in observations.into_iter().enumerate() {
                let stem = format!("s{n}-{}-{}", safe_name(&speaker), i + 1);
                let filename = format!("{stem}.md");
                let _ = writeln!(index, "- [{stem}]({filename}) — {text}");
                for turn in turns.into_vec() {
                    by_turn.entry(turn).or_default().push(filename.clone());
                }
                memories.push(MemoryFile {
                    text: memory_text(&stem, &text, modified),
                    filename,
                    modified,
                });
            }
        }
    }
    let cases = raw
        .qa
        .into_iter()
        .enumerate()
        .map(|(j, q)| question(&id, j, q, &by_turn))
        .collect::<Result<_, _>>()?;
    Ok(Conversation {
        id,
        memories,
        index,
        cases,
    })
}

fn question(
    id: &str,
    j: usize,
    q: RawQuestion,
    by_turn: &HashMap<String, Vec<String>>,
) -> Result<Case, String> {
    let group = match q.category {
        1 => "cat1 multi-hop",
        2 => "cat2 temporal",
        3 => "cat3 open-domain",
        4 => "cat4 single-hop",
        5 => "cat5 adversarial",
        other => {
            return Err(format!(
                "{id}: question {} has unknown category {other}",
                j + 1
            ));
        }
    };
    let label = if q.category == 5 {
        Label::Unlabelled
    } else {
        // An evidence entry may hold several turns (`D8:6; D9:17`).
        let mut files: Vec<String> = Vec::new();
        for turn in q.evidence.iter().flat_map(|e| e.split(';')).map(str::trim) {
            for f in by_turn.get(turn).into_iter().flatten() {
                if !files.contains(f) {
                    files.push(f.clone());
                }
            }
        }
        Label::Relevant(files)
    };
    Ok(Case {
        id: format!("{id}:q{}", j + 1),
        groups: vec![group.to_owned()],
        query: q.question,
        label,
    })
}

/// A session date as `LoCoMo` writes it (`1:56 pm on 8 May, 2023`), in UTC.
fn session_time(text: &str) -> Option<jiff::Timestamp> {
    let civil = jiff::civil::DateTime::strptime("%I:%M %p on %d %B, %Y", text.trim()).ok()?;
    jiff::tz::TimeZone::UTC.to_timestamp(civil).ok()
}

/// A memory of type `user` whose description and body are `text`, with
/// `modified` recorded.
fn memory_text(stem: &str, text: &str, modified: jiff::Timestamp) -> String {
    let header = Header {
        name: Some(stem.to_owned()),
        description: Some(text.to_owned()),
        memory_type: Some(MemoryType::User),
    };
    let body = format!("{text}\n");
    update_memory(
        &render_memory(&header, &body),
        &header,
        Some(modified),
        &body,
    )
}

/// `name` with every character but letters, digits, `-` and `_` replaced
/// by `-`: safe as a file or folder name.
fn safe_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if safe.is_empty() {
        "-".to_owned()
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_dates_are_read_in_utc() {
        let t = session_time("1:56 pm on 8 May, 2023").unwrap();
        assert_eq!(t.to_string(), "2023-05-08T13:56:00Z");
        let t = session_time("10:04 am on 19 December, 2023").unwrap();
        assert_eq!(t.to_string(), "2023-12-19T10:04:00Z");
        assert_eq!(
            session_time("12:30 am on 1 January, 2024")
                .unwrap()
                .to_string(),
            "2024-01-01T00:30:00Z"
        );
        assert!(session_time("yesterday").is_none());
        assert!(session_time("1:56 pm on 31 February, 2023").is_none());
    }

    #[test]
    fn names_are_made_safe() {
        assert_eq!(safe_name("Caroline"), "Caroline");
        assert_eq!(safe_name("Mary Ann/../x"), "Mary-Ann----x");
        assert_eq!(safe_name(""), "-");
    }
}
