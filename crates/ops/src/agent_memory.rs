//! What an agent is given of a memory: one display-ready value, built here
//! once for every front end that hands memories to a model (the prompt
//! hook, the MCP tools and resources), which only puts it in its envelope.
//!
//! A memory given to an agent is read once per request: one bounded read
//! of its file, contained in its memory folder, gives the text shown, the
//! frontmatter (name, type, description, `modified`) and the body whose
//! citations are checked. Its age follows SPEC R2.5 (a valid `modified`
//! wins, one in the future counts as now, else the file's mtime), its
//! notes R6.5 and the citation check, and its text is cut at
//! [`MAX_AGENT_MEMORY_CHARS`].

use std::time::SystemTime;

use camino::Utf8PathBuf;
use memdir_folder::{FolderError, MemoryFolder};
use memdir_memtypes::{
    MemoryType, ParsedMemory, ReadError, effective_time_ms, memory_age, memory_age_days,
    memory_freshness_note, parse_memory_str, unix_millis,
};
use memdir_relevance::SelectorUsed;

use crate::memory::MAX_MEMORY_BYTES;
use crate::{OpsError, Project, RecallRequest, Scope, citation_reminder};

/// The most characters of one memory an agent is given: its file's text
/// (frontmatter and body) is cut at a line past this, with a note saying
/// how much was left out and that the file holds the rest.
///
/// Why this size: a recall gives at most five memories
/// ([`memdir_relevance::MAX_RELEVANT`]) and the agent takes at most 10,000
/// characters from a hook (SPEC R17.3). Five memories of 1,800 characters
/// fill 9,000 of them and leave the rest for the headers and notes, so one
/// long memory cannot crowd out the others behind it, while a memory
/// written as the short note it should be (a few paragraphs) is given
/// whole.
pub const MAX_AGENT_MEMORY_CHARS: usize = 1_800;

/// One memory as an agent is given it, ready to be shown: the same for
/// the prompt hook, MCP `recall_memories` and MCP `read_memory`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AgentMemory {
    /// The memory file.
    pub path: Utf8PathBuf,
    /// Its path relative to its memory folder (`deploy.md`, `team/ci.md`).
    pub filename: String,
    /// The `name` of its frontmatter.
    pub name: Option<String>,
    /// The `type` of its frontmatter.
    pub memory_type: Option<MemoryType>,
    /// The `description` of its frontmatter.
    pub description: Option<String>,
    /// The memory's time (SPEC R2.5), milliseconds since the Unix epoch:
    /// the valid `modified` its frontmatter records (one in the future
    /// counts as now), else the file's modification time.
    pub time_ms: i64,
    /// Whole days since [`time_ms`](Self::time_ms), never negative.
    pub age_days: u64,
    /// The age in words: `today`, `yesterday` or `N days ago`.
    pub age_text: String,
    /// The `<system-reminder>` of SPEC R6.5 for a memory older than a day.
    pub freshness_note: Option<String>,
    /// The `<system-reminder>` naming what the memory cites that no longer
    /// holds in the project ([`citation_reminder`]).
    pub citation_note: Option<String>,
    /// The file's text as given (frontmatter and body, trailing white space
    /// trimmed), cut to [`MAX_AGENT_MEMORY_CHARS`] with a note when longer.
    pub content: String,
    /// Whether [`content`](Self::content) was cut.
    pub truncated: bool,
    /// The whole block the agent reads, ending with a line break:
    ///
    /// ```text
    /// ## <filename> (<path>, saved <age_text>)
    /// <freshness_note, when there is one>
    /// <citation_note, when there is one>
    /// <content>
    /// ```
    pub text: String,
}

/// The memories a request needs, as an agent is given them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentRecall {
    /// The memories, most relevant first (at most
    /// [`memdir_relevance::MAX_RELEVANT`]). A chosen memory whose file
    /// could no longer be read is left out (and logged).
    pub memories: Vec<AgentMemory>,
    /// Which selector answered.
    pub selector: SelectorUsed,
    /// Why the selector asked for did not answer, and what went wrong with
    /// it, one line each.
    pub notes: Vec<String>,
    /// The citation cache asks for a refresh: a front end that can should
    /// run [`Project::refresh_citation_cache`] in the background.
    pub citation_refresh: bool,
    /// The recall index asks for a full reconciliation: a front end that
    /// can should run [`Project::refresh_recall_index`] in the background.
    pub index_refresh: bool,
}

impl Project {
    /// The memories `request` needs from the private memory folder, as an
    /// agent is given them: each file read once, its age, notes and text
    /// as [`AgentMemory`] describes, the citations of all of them checked
    /// at once within `request.citations_budget`.
    pub fn recall_for_agent(&self, request: &RecallRequest) -> Result<AgentRecall, OpsError> {
        let (recall, mut notes) = self.choose(request)?;
        notes.extend(recall.diagnostics);
        let index_refresh = recall.index_refresh_due;
        let mut reads = Vec::with_capacity(recall.memories.len());
        if !recall.memories.is_empty() {
            let folder_path = self.folder(Scope::Private)?;
            let folder = MemoryFolder::open(folder_path.as_std_path())?;
            for m in &recall.memories {
                match MemoryRead::read(&folder, &m.filename, m.path.clone()) {
                    Ok(read) => reads.push(read),
                    Err(e) => log::warn!("{}: not given to the agent: {e}", m.path),
                }
            }
        }
        // The one read of each file gives both the body whose citations
        // are checked (all at once) and the text the agent is shown.
        let bodies: Vec<String> = reads.iter().map(|r| r.parsed.body.clone()).collect();
        let (cited, citation_refresh) = self.cited_notes_of(&bodies, request.citations_budget);
        let now_ms = unix_millis(SystemTime::now());
        let memories = reads
            .into_iter()
            .zip(cited)
            .map(|(read, cited)| read.render(cited.as_deref(), now_ms))
            .collect();
        Ok(AgentRecall {
            memories,
            selector: recall.selector,
            notes,
            citation_refresh,
            index_refresh,
        })
    }

    /// The memory file `file` of `scope`'s folder (a `/`-separated path
    /// inside it, such as `deploy.md`), as an agent is given it: read once,
    /// within the folder and never through a symbolic link, its age, notes
    /// and text as [`AgentMemory`] describes, its citations checked within
    /// the recall budget. Anything but a regular file there is
    /// [`OpsError::NotFound`].
    pub fn read_memory_for_agent(&self, scope: Scope, file: &str) -> Result<AgentMemory, OpsError> {
        let folder_path = self.folder(scope)?;
        let not_found = || OpsError::NotFound {
            folder: folder_path.clone().into_std_path_buf(),
            file: file.to_owned(),
        };
        let folder = match MemoryFolder::open(folder_path.as_std_path()) {
            Ok(folder) => folder,
            Err(FolderError::NotAFolder { .. }) => return Err(not_found()),
            Err(e) => return Err(e.into()),
        };
        let read = match MemoryRead::read(&folder, file, folder_path.join(file)) {
            Ok(read) => read,
            Err(ReadFailed::NotAMemory) => return Err(not_found()),
            Err(ReadFailed::Folder(e)) => return Err(e.into()),
        };
        let (cited, _) = self.cited_notes_of(std::slice::from_ref(&read.parsed.body), None);
        let cited = cited.into_iter().next().flatten();
        Ok(read.render(cited.as_deref(), unix_millis(SystemTime::now())))
    }
}

/// One memory file as read for an agent: everything the rendering needs,
/// from one read.
#[derive(Debug)]
struct MemoryRead {
    path: Utf8PathBuf,
    filename: String,
    /// The file's text (at most [`MAX_MEMORY_BYTES`] of it; invalid UTF-8
    /// replaced).
    text: String,
    /// Its frontmatter and body.
    parsed: ParsedMemory,
    /// The file's modification time, when it could be had.
    mtime_ms: Option<i64>,
}

/// Why a memory file was not read.
#[derive(Debug, thiserror::Error)]
enum ReadFailed {
    /// Nothing is there, or something other than a regular file (a
    /// symbolic link is not followed).
    #[error("it is not a memory file (missing, or not a regular file)")]
    NotAMemory,
    /// The folder refused the path or the read failed.
    #[error(transparent)]
    Folder(#[from] FolderError),
}

impl MemoryRead {
    /// Reads `rel` in `folder`, whose path is `path`: its first
    /// [`MAX_MEMORY_BYTES`], which is more than any memory memdir writes
    /// holds, so a larger file is given cut rather than refused.
    fn read(folder: &MemoryFolder, rel: &str, path: Utf8PathBuf) -> Result<Self, ReadFailed> {
        let bytes = match folder.read_prefix(rel, MAX_MEMORY_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) | Err(FolderError::Read(ReadError::NotAFile { .. })) => {
                return Err(ReadFailed::NotAMemory);
            }
            Err(e) => return Err(e.into()),
        };
        // Only stands in for a `modified` the frontmatter does not record;
        // taken without following a link, as the read was.
        let mtime_ms = std::fs::symlink_metadata(path.as_std_path())
            .and_then(|m| m.modified())
            .ok()
            .map(unix_millis);
        Ok(Self::new(
            path,
            rel.to_owned(),
            String::from_utf8_lossy(&bytes).into_owned(),
            mtime_ms,
        ))
    }

    fn new(path: Utf8PathBuf, filename: String, text: String, mtime_ms: Option<i64>) -> Self {
        let parsed = parse_memory_str(&text);
        MemoryRead {
            path,
            filename,
            text,
            parsed,
            mtime_ms,
        }
    }

    /// The memory as an agent is given it at `now_ms`, with the citation
    /// note `cited` (what it cites that no longer holds).
    fn render(self, cited: Option<&str>, now_ms: i64) -> AgentMemory {
        let time_ms = effective_time_ms(
            self.parsed.modified,
            self.mtime_ms.unwrap_or(now_ms),
            now_ms,
        );
        let age_text = memory_age(time_ms, now_ms);
        let freshness_note = Some(memory_freshness_note(time_ms, now_ms)).filter(|n| !n.is_empty());
        let citation_note = cited.map(citation_reminder);
        let whole = self.text.strip_prefix('\u{feff}').unwrap_or(&self.text);
        let whole = whole.trim_end();
        let (content, truncated) = match cut_to_fit(whole, MAX_AGENT_MEMORY_CHARS, memory_cut_note)
        {
            Some(cut) => (cut, true),
            None => (whole.to_owned(), false),
        };
        let mut text = format!("## {} ({}, saved {age_text})\n", self.filename, self.path);
        for note in [&freshness_note, &citation_note].into_iter().flatten() {
            text.push_str(note);
            text.push('\n');
        }
        text.push_str(&content);
        text.push('\n');
        let header = self.parsed.header;
        AgentMemory {
            path: self.path,
            filename: self.filename,
            name: header.name,
            memory_type: header.memory_type,
            description: header.description,
            time_ms,
            age_days: memory_age_days(time_ms, now_ms),
            age_text,
            freshness_note,
            citation_note,
            content,
            truncated,
            text,
        }
    }
}

/// The last line of a memory cut to [`MAX_AGENT_MEMORY_CHARS`].
fn memory_cut_note(left_out: usize) -> String {
    format!(
        "[memdir: {left_out} more characters not shown (an agent is given at most \
         {MAX_AGENT_MEMORY_CHARS} characters of a memory); the file named above holds the rest]"
    )
}

/// `text` cut to at most `max` characters, or `None` when it fits.
///
/// The cut falls at a line break (inside the first line only when that
/// line alone is too long, and then between characters), and the result
/// ends with the line `note(n)`, `n` being how many characters were left
/// out; room for the note is kept, so the whole is at most `max`
/// characters as long as the note is shorter than `max`.
///
/// ```
/// let note = |n: usize| format!("[{n} more]");
/// let cut = memdir_ops::cut_to_fit("one\ntwo\nthree\nfour\n", 15, note).unwrap();
/// assert_eq!(cut, "one\n[15 more]");
/// assert_eq!(memdir_ops::cut_to_fit("short", 15, note), None);
/// ```
#[must_use]
pub fn cut_to_fit(text: &str, max: usize, note: impl Fn(usize) -> String) -> Option<String> {
    let total = text.chars().count();
    if total <= max {
        return None;
    }
    // Fewer characters left out never make a longer note, so the note for
    // all of them bounds the room it needs (and its line break).
    let room = max.saturating_sub(note(total).chars().count() + 1);
    let mut end = 0;
    let mut kept = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if kept + n > room {
            break;
        }
        kept += n;
        end += line.len();
    }
    if end == 0 {
        end = text.char_indices().nth(room).map_or(text.len(), |(i, _)| i);
        kept = room;
    }
    let mut out = text[..end].to_owned();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&note(total - kept));
    Some(out)
}

#[cfg(test)]
mod tests;
