//! The coding-agent recall set: memories and prompts as a coding agent's
//! user would write them, in folders laid out as
//!
//! ```text
//! <root>/<folder>/memory/*.md       the memory folder
//! <root>/<folder>/prompts.jsonl     one prompt a line
//! ```
//!
//! with each prompt `{"id", "prompt", "relevant": ["file.md", …], "kind",
//! "lang"}`: `relevant` names files of `memory/`, and an empty list means
//! no memory is relevant (a no-memory prompt). Reported per `kind` and
//! per `lang`.

use std::path::{Component, Path};

use serde::Deserialize;

use super::dataset::{Case, Dataset, Folder, Label};
use super::report::{Evaluation, Target};
use super::{EvalError, parse_jsonl, read_text};

/// One line of `prompts.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Prompt {
    /// Its identifier, unique in its folder.
    pub id: String,
    /// The user's prompt.
    pub prompt: String,
    /// The memory files it needs (relative to `memory/`); empty when it
    /// needs none.
    pub relevant: Vec<String>,
    /// What kind of prompt it is.
    pub kind: String,
    /// Its language, when given.
    #[serde(default)]
    pub lang: Option<String>,
}

/// Reads every folder of `root` (in name order; hidden entries and plain
/// files are passed over) as a dataset. A folder without
/// `prompts.jsonl`, a bad line, or a relevant file that is not in its
/// `memory/` is an error that names it.
pub fn load(root: &Path) -> Result<Dataset, EvalError> {
    let list = |e| EvalError::List {
        path: root.to_owned(),
        source: e,
    };
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(root).map_err(list)? {
        let entry = entry.map_err(list)?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !hidden && entry.file_type().map_err(list)?.is_dir() {
            dirs.push(entry.path());
        }
    }
    dirs.sort();
    let mut folders = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prompts_path = dir.join("prompts.jsonl");
        let memory = dir.join("memory");
        let text = read_text(&prompts_path)?;
        let prompts: Vec<(usize, Prompt)> = parse_jsonl(&text, &prompts_path)?;
        let mut cases = Vec::with_capacity(prompts.len());
        for (line, p) in prompts {
            if let Some(bad) = p.relevant.iter().find(|f| !is_memory_file(&memory, f)) {
                return Err(crate::RelevanceError::Dataset {
                    path: prompts_path,
                    line,
                    message: format!(
                        "relevant file {bad:?} is not a file of {}",
                        memory.display()
                    ),
                }
                .into());
            }
            let mut groups = vec![format!("kind {}", p.kind)];
            groups.extend(p.lang.map(|l| format!("lang {l}")));
            cases.push(Case {
                id: format!("{name}/{}", p.id),
                groups,
                query: p.prompt,
                label: if p.relevant.is_empty() {
                    Label::NoMemory
                } else {
                    Label::Relevant(p.relevant)
                },
            });
        }
        folders.push(Folder {
            path: memory,
            cases,
        });
    }
    Ok(Dataset {
        name: "coding set".to_owned(),
        folders,
    })
}

/// Whether `file` is a plain relative path to a regular file of `memory`.
fn is_memory_file(memory: &Path, file: &str) -> bool {
    let rel = Path::new(file);
    rel.components().all(|c| matches!(c, Component::Normal(_)))
        && std::fs::symlink_metadata(memory.join(rel)).is_ok_and(|m| m.is_file())
}

/// The targets memdir is held to on the coding set: hit@5 at least 0.85
/// on answerable prompts, false injection at most 15% on no-memory
/// prompts, and hit@5 before abstention at least 0.90.
#[must_use]
pub fn targets(e: &Evaluation) -> Vec<Target> {
    let m = &e.memdir.all;
    vec![
        Target::at_least("memdir hit@5 (answerable)", m.hit_at_5(), 0.85),
        Target::at_most_percent(
            "memdir false injection (no-memory)",
            m.false_injection(),
            0.15,
        ),
        Target::at_least("memdir hit@5 before abstention", m.hit_at_5_before(), 0.90),
    ]
}
