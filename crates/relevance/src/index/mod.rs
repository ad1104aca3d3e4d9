//! The persistent recall index of one memory folder (SPEC R6.6): what the
//! local ranker needs of every memory, kept between requests so that a
//! recall reads a query's postings instead of every file.
//!
//! # What it holds
//!
//! One SQLite database per memory folder (`team/` included), under
//! `<base>/memdir/recall/`:
//!
//! - `docs`: each memory's file name, identity ([`FileStamp`]: size, mtime,
//!   inode), a SHA-256 of what was indexed, its time, header fields and
//!   the length of each field in terms;
//! - `base`: the postings of every term as one compact blob per term
//!   (written by a build or a compaction), and `dead`: memories of the
//!   blobs that have since changed or gone;
//! - `fresh`: one row per term and memory for the memories indexed since
//!   (a change rewrites a few rows, not the blobs of every term it holds);
//! - `links`: the `supersedes:` / `supersededBy:` of the memories that
//!   have them; `dirs`: each directory's mtime as last listed, and the
//!   digest of its indexed memories' names and inodes: one sum per bucket
//!   of names, always that of the directory's rows in `docs`.
//!
//! SQLite, not a file format of this crate's own: it gives atomic
//! transactions (a writer killed at any point leaves the previous state),
//! readers that never wait for a writer (WAL), and point reads of one
//! term's blob. FTS5 is not used: the ranker needs each field's counts
//! and this crate's tokenizer (CJK bigrams, stemming), which FTS5's BM25
//! does not give. `docs/benchmarks.md` has the measurements.
//!
//! A recall is one short process, so what a connection does at its close
//! counts: the write-ahead log and its shared index are kept between
//! processes (by default the last connection to close folds the log in
//! and deletes both, for the next process to create again), and the
//! writer that leaves the log over 1 MiB folds it in, as every refresh
//! does. A recall's reads share one snapshot.
//!
//! # How it stays current
//!
//! Every recall reconciles the index before it ranks ([`Depth::Recall`]):
//!
//! - each directory is stat'ed; one whose mtime changed is listed again.
//!   A listing gives every entry's inode without a stat, so a memory
//!   added, removed or replaced (memdir's writes and most editors replace
//!   a file) is found at the next recall, whoever wrote it. The listing
//!   is digested the same way as the stored rows, and only the buckets
//!   whose sums differ are compared by name: one new file in a directory
//!   of 10,000 reads a dozen rows. The kernel's listing itself remains,
//!   and grows with the directory (2 ms at 10,000 entries on ext4, 29 ms
//!   at 100,000), so in a folder of more than [`LIST_IN_FOREGROUND_UP_TO`]
//!   memories a recall leaves it to a background refresh
//!   ([`Reconciled::deferred`], [`RecallIndex::refresh_due`]);
//! - a bounded sweep stat's the next [`SWEEP_PER_RECALL`] memories in name
//!   order, which finds a file rewritten in place (same inode, same
//!   directory mtime);
//! - the memories a recall is about to return are read again, so a memory
//!   deleted or changed since the index last saw it is never returned as
//!   it was.
//!
//! memdir's own writers also bring the memories they wrote up to date
//! ([`RecallIndex::update_files`]). A full reconciliation
//! ([`Depth::Full`]: every directory listed, every memory stat'ed, the
//! segments merged once enough changed) is what `memdir recall-index
//! refresh` runs ([`RecallIndex::refresh`]), in the background when a
//! recall asks for it ([`RecallIndex::refresh_due`]).
//!
//! What may be stale, and for how long: a memory rewritten *in place* by
//! another program keeps ranking on its old text until the sweep reaches
//! it — at the next recall in a folder of up to [`SWEEP_ALL_UP_TO`]
//! memories (the sweep then stat's them all), within
//! `⌈n / SWEEP_PER_RECALL⌉` recalls in a larger one, or at the next
//! background refresh, whichever comes first. In a folder of more than
//! [`LIST_IN_FOREGROUND_UP_TO`] memories, a file another program added or
//! replaced is seen once the background refresh the recall started has
//! listed the folder (measured: 30 ms after the write at 10,000 memories,
//! about 90 ms at 100,000); the agent's own writes, through its post-tool
//! hook ([`RecallIndex::settle_after_write`]), and memdir's are seen at
//! the next recall. Nothing else is stale: in a smaller folder new,
//! removed and replaced files are seen at the next recall, and a returned
//! memory is always read as it is now, so a removed one is never returned.
//!
//! # A cache
//!
//! Deleting, truncating or damaging the database loses nothing: a recall
//! that finds it unreadable removes it, builds it again and says so once
//! ([`RecallIndex::notes`]). A writer killed mid-update leaves the last
//! committed state, which the next reconciliation corrects.

mod listing;
mod postings;
mod vectors;

pub use vectors::Embedded;
#[cfg(feature = "semantic")]
pub(crate) use vectors::text_of;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use memdir_memtypes::MemoryType;
use memdir_scan::{FileStamp, MemoryHeader, read_memory_files};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use sha2::{Digest as _, Sha256};

use crate::corpus::{Corpus, DocId, DocText, FIELDS, FieldCounts, MemCorpus, count_terms};
use crate::local::{Scored, score_best};
use listing::{
    Digest, DirListing, Root, bucket_of, bucket_of_hash, child, mtime_ns_of, parent, stable_ns,
};
use postings::Posting;

/// How many memories a recall's sweep stat's to find files rewritten in
/// place, in a folder of more than [`SWEEP_ALL_UP_TO`]; a few hundred
/// microseconds.
pub const SWEEP_PER_RECALL: usize = 128;

/// In a folder of at most this many memories, every recall's sweep
/// stat's all of them (under a millisecond), so a memory rewritten in
/// place, as an agent's edit tool may, ranks on its new text at the next
/// recall.
pub const SWEEP_ALL_UP_TO: i64 = 512;

/// In a folder of more than this many memories, a recall does not list a
/// directory whose time changed: the kernel's listing grows with the
/// directory (on ext4, 2.2 ms for 10,000 names and 29 ms for 100,000,
/// against a recall of 3.6 and 5 ms), so it is left to a background
/// refresh, and the recall ranks on the index as it was. Up to here the
/// listing costs about a millisecond.
pub const LIST_IN_FOREGROUND_UP_TO: i64 = 5_000;

/// How many of the best-ranked memories [`RecallIndex::score`] keeps: a
/// recall returns at most five, after passing over those already surfaced
/// or superseded.
pub const RANKED: usize = 256;

/// The write-ahead log, kept between processes, is folded into the
/// database by the writer that leaves it larger than this.
const WAL_BYTES: u64 = 1 << 20;

/// The version of the database layout; another version is rebuilt.
const SCHEMA_VERSION: i32 = 4;

/// How long a recall waits for another process's write to the index
/// before it ranks on the index as it is.
const BUSY_WAIT: Duration = Duration::from_millis(250);

/// Above this many memories indexed or removed since the last compaction,
/// a background refresh is due.
const COMPACT_AFTER: i64 = 512;

/// A full reconciliation merges the segments from this many memories
/// indexed or removed since the last merge. The merge writes every term's
/// postings again and holds the index's write lock meanwhile (0.1 s at
/// 10,000 memories): not worth it, nor the wait it makes other writers
/// do, for a change or two, which the fresh segment holds well.
const COMPACT_FROM: i64 = 64;

/// A background refresh is due when the last one started longer ago than
/// this and the sweep has not covered the folder since.
const REFRESH_INTERVAL_MS: i64 = 10_000;

/// A refresh that started longer ago than this and has not recorded its
/// end is taken for dead (killed, or its machine slept).
const REFRESH_RUNS_AT_MOST_MS: i64 = 60_000;

/// How many times a refresh lists again what changed while it ran.
const SETTLE_PASSES: usize = 3;

/// Errors of the recall index. Recall never fails because of one: it
/// ranks from a scan of the folder instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The database cannot be opened, read or written.
    #[error("recall index {}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// The folder that holds the database cannot be created.
    #[error("cannot create the recall index folder {}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The memory folder cannot be listed.
    #[error("cannot list memory folder {}", path.display())]
    MemoryFolder {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Another process is writing the index, and it has never been built.
    #[error("recall index {} is being built by another process", path.display())]
    Busy {
        /// The database file.
        path: PathBuf,
    },
    /// The database holds something this version cannot read.
    #[error("recall index {} is damaged", path.display())]
    Damaged {
        /// The database file.
        path: PathBuf,
    },
    /// The embedding model failed on memories being embedded.
    #[error("embedding memories: {message}")]
    Embedding {
        /// What the model said.
        message: String,
    },
}

impl IndexError {
    /// What went wrong underneath, for a note: SQLite's message, or this
    /// error's own.
    fn cause(&self) -> String {
        std::error::Error::source(self).map_or_else(|| self.to_string(), ToString::to_string)
    }

    /// Whether the database itself is damaged: it is then removed and
    /// built again.
    fn is_damage(&self) -> bool {
        match self {
            IndexError::Damaged { .. } => true,
            IndexError::Database { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
            ),
            _ => false,
        }
    }
}

/// How much a reconciliation checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// What a recall does: changed directories listed again, a bounded
    /// sweep of file stamps. In a folder of more than
    /// [`LIST_IN_FOREGROUND_UP_TO`] memories a changed directory is not
    /// listed: it is left to a background refresh
    /// ([`Reconciled::deferred`]).
    Recall,
    /// What follows an agent's write, off the prompt's path: as
    /// [`Depth::Recall`], but a changed directory is listed whatever the
    /// folder's size.
    Settle,
    /// Everything: every directory listed, every memory stat'ed, the
    /// segments merged when enough changed since the last merge.
    Full,
}

/// Progress of a build: memories read of those found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Memories read so far.
    pub done: usize,
    /// Memories found.
    pub total: usize,
}

/// What a reconciliation changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconciled {
    /// The index was built from nothing (new, damaged, or asked for).
    pub built: bool,
    /// Memories indexed that were not.
    pub added: usize,
    /// Memories indexed again because they changed.
    pub updated: usize,
    /// Memories removed from the index.
    pub removed: usize,
    /// Directories listed.
    pub listed: usize,
    /// Memories whose stamp was checked.
    pub swept: usize,
    /// The segments were merged into one.
    pub compacted: bool,
    /// Another process was writing the index: it was used as it was.
    pub busy: bool,
    /// Directories whose time changed that were left for a background
    /// refresh to list ([`Depth::Recall`] in a folder of more than
    /// [`LIST_IN_FOREGROUND_UP_TO`] memories).
    pub deferred: usize,
}

/// What `memdir recall-index status` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexStatus {
    /// The database file.
    pub path: PathBuf,
    /// The memory folder it indexes.
    pub folder: PathBuf,
    /// Memories indexed.
    pub memories: usize,
    /// Directories it watches.
    pub folders: usize,
    /// Memories indexed or removed since the last compaction.
    pub pending: usize,
    /// Bytes on disk (database and write-ahead log).
    pub bytes: u64,
    /// When the last complete sweep started (every memory stat'ed since),
    /// milliseconds since the Unix epoch.
    pub swept_ms: Option<i64>,
}

/// A memory as the index knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedMemory {
    /// Its number in the index.
    pub id: DocId,
    /// Its path relative to the memory folder.
    pub filename: String,
    /// Its time (SPEC R2.5), milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// Its identity when it was indexed (an mtime of `-1`: too recent to
    /// trust when it was indexed).
    pub stamp: FileStamp,
    hash: Vec<u8>,
}

impl IndexedMemory {
    /// Whether a memory as read now (`header`, `stamp`) is what was
    /// indexed: the same identity, or, when its time was too recent to
    /// trust, the same text.
    #[must_use]
    pub fn is_current(&self, header: &MemoryHeader, stamp: FileStamp) -> bool {
        if self.stamp.mtime_ns != -1 {
            return self.stamp == stamp;
        }
        self.stamp.size == stamp.size
            && self.stamp.ino == stamp.ino
            && self.hash == content_hash(header)
    }
}

/// The recall index of one memory folder, open.
pub struct RecallIndex {
    conn: Connection,
    db: PathBuf,
    folder: PathBuf,
    notes: Vec<String>,
}

impl std::fmt::Debug for RecallIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecallIndex")
            .field("db", &self.db)
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

/// Now, in nanoseconds since the Unix epoch.
pub(crate) fn now_ns() -> i64 {
    memdir_memtypes::unix_nanos(std::time::SystemTime::now())
}

pub(crate) fn now_ms() -> i64 {
    memdir_memtypes::unix_millis(std::time::SystemTime::now())
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dirs(rel TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, digest BLOB) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY,
    filename TEXT NOT NULL UNIQUE,
    dir TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash BLOB NOT NULL,
    time_ms INTEGER NOT NULL,
    l0 INTEGER NOT NULL, l1 INTEGER NOT NULL, l2 INTEGER NOT NULL, l3 INTEGER NOT NULL,
    in_base INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_dir ON docs(dir, bucket, filename, ino, id);
CREATE TABLE IF NOT EXISTS dead(id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS base(term TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fresh(
    term TEXT NOT NULL, doc INTEGER NOT NULL,
    c0 INTEGER NOT NULL, c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, c3 INTEGER NOT NULL,
    PRIMARY KEY(term, doc)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fresh_doc ON fresh(doc);
CREATE TABLE IF NOT EXISTS links(doc INTEGER PRIMARY KEY, supersedes TEXT NOT NULL, superseded_by TEXT);
CREATE TABLE IF NOT EXISTS vectors(model TEXT NOT NULL, hash BLOB NOT NULL, v BLOB NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID;
";

/// The totals of the indexed memories, kept in `meta`.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    n: i64,
    lens: [i64; FIELDS],
}

const TOTAL_KEYS: [&str; 5] = ["n", "len0", "len1", "len2", "len3"];

impl Totals {
    /// The totals and the number of changes waiting for a merge, from
    /// `meta`.
    fn load(conn: &Connection) -> rusqlite::Result<(Totals, i64)> {
        let mut totals = Totals::default();
        let mut pending = 0;
        let pairs: Vec<(String, i64)> = rows(
            conn,
            "SELECT key, value FROM meta WHERE key IN ('n','len0','len1','len2','len3','pending')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        for (key, value) in pairs {
            match TOTAL_KEYS.iter().position(|k| *k == key) {
                Some(0) => totals.n = value,
                Some(i) => totals.lens[i - 1] = value,
                None => pending = value,
            }
        }
        Ok((totals, pending))
    }
}

/// Every row of a query, each taken by `map`.
fn rows<T, P: rusqlite::Params>(
    conn: &Connection,
    sql: &str,
    params: P,
    map: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    conn.prepare_cached(sql)?.query_map(params, map)?.collect()
}

/// The numbers of base-segment memories that have changed or gone since
/// the last merge.
fn dead_ids(conn: &Connection) -> rusqlite::Result<HashSet<DocId>> {
    Ok(rows(conn, "SELECT id FROM dead", [], |r| r.get(0))?
        .into_iter()
        .collect())
}

impl RecallIndex {
    /// Opens (or creates) the index `db` of the memory folder `folder`. A
    /// database that is unreadable, of another layout version or of
    /// another folder is removed and made anew, with a note saying so
    /// ([`RecallIndex::notes`]). Nothing is indexed yet: call
    /// [`RecallIndex::reconcile`].
    pub fn open(db: &Path, folder: &Path) -> Result<RecallIndex, IndexError> {
        if let Some(dir) = db.parent() {
            std::fs::create_dir_all(dir).map_err(|source| IndexError::Folder {
                path: dir.to_owned(),
                source,
            })?;
        }
        let mut notes = Vec::new();
        if remove_odd_files(db) {
            notes.push(format!(
                "recall index {}: found something other than a regular file in its place; removed and rebuilt",
                db.display()
            ));
        }
        let conn = match Self::connect(db, folder) {
            Ok(Some(conn)) => conn,
            Ok(None) => {
                notes.push(format!(
                    "recall index {} was made by another version or for another folder; rebuilt",
                    db.display()
                ));
                remove_database(db);
                Self::connect(db, folder)?.ok_or_else(|| IndexError::Damaged {
                    path: db.to_owned(),
                })?
            }
            Err(e) if e.is_damage() => {
                notes.push(format!(
                    "recall index {} was unreadable ({}); rebuilt",
                    db.display(),
                    e.cause()
                ));
                remove_database(db);
                Self::connect(db, folder)?.ok_or_else(|| IndexError::Damaged {
                    path: db.to_owned(),
                })?
            }
            Err(e) => return Err(e),
        };
        Ok(RecallIndex {
            conn,
            db: db.to_owned(),
            folder: folder.to_owned(),
            notes,
        })
    }

    /// Opens the database and checks it is this version's and this
    /// folder's: `None` when it is not.
    fn connect(db: &Path, folder: &Path) -> Result<Option<Connection>, IndexError> {
        let fail = |source| IndexError::Database {
            path: db.to_owned(),
            source,
        };
        let conn = Connection::open(db).map_err(fail)?;
        conn.busy_timeout(BUSY_WAIT).map_err(fail)?;
        let version: i32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        let folder_text = folder.to_string_lossy();
        if version == 0 {
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(fail)?;
            let tx = conn.unchecked_transaction().map_err(fail)?;
            tx.execute_batch(SCHEMA).map_err(fail)?;
            tx.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('folder', ?1)",
                [&*folder_text],
            )
            .map_err(fail)?;
            tx.pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(fail)?;
            tx.commit().map_err(fail)?;
        } else if version != SCHEMA_VERSION {
            return Ok(None);
        }
        // A cache: a process killed mid-write leaves the last commit (the
        // write-ahead log is still written in order); only an operating
        // system crash could damage the file, and a damaged index is
        // rebuilt. No fsync is worth a recall's time.
        conn.pragma_update(None, "synchronous", "OFF")
            .map_err(fail)?;
        // The last connection to close would otherwise fold the log into
        // the database and delete the log and its shared index, which the
        // next recall then creates again: most of a recall's file system
        // work. Writers fold the log in as it grows, and a refresh at its
        // end.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(fail)?;

        let stored: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'folder'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(fail)?;
        if stored.as_deref() != Some(&*folder_text) {
            return Ok(None);
        }
        Ok(Some(conn))
    }

    /// What happened to the database that a user should hear of once (it
    /// was unreadable and was rebuilt), one line each.
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.db
    }

    fn fail(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |source| IndexError::Database {
            path: self.db.clone(),
            source,
        }
    }

    /// Runs `f`, and when it finds the database damaged, removes it, opens
    /// it anew (with a note) and runs `f` once more.
    fn healing<T>(
        &mut self,
        mut f: impl FnMut(&mut Self) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        match f(self) {
            Err(e) if e.is_damage() => {
                self.notes.push(format!(
                    "recall index {} was unreadable ({}); rebuilt",
                    self.db.display(),
                    e.cause()
                ));
                // Close the damaged database before removing it.
                let fresh = Connection::open_in_memory().map_err(self.fail())?;
                drop(std::mem::replace(&mut self.conn, fresh));
                remove_database(&self.db);
                self.conn =
                    Self::connect(&self.db, &self.folder)?.ok_or_else(|| IndexError::Damaged {
                        path: self.db.clone(),
                    })?;
                f(self)
            }
            other => other,
        }
    }

    /// Brings the index up to date with the folder, as deep as asked; a
    /// new index is built, with `progress` called as memories are read.
    /// When another process is writing the index, a recall's
    /// reconciliation is skipped ([`Reconciled::busy`]) unless the index
    /// was never built ([`IndexError::Busy`]).
    pub fn reconcile(
        &mut self,
        depth: Depth,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Reconciled, IndexError> {
        self.healing(|index| index.reconcile_once(depth, progress))
    }

    /// Builds the index again from nothing, with `progress` called as
    /// memories are read.
    pub fn rebuild(
        &mut self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Reconciled, IndexError> {
        self.healing(|index| index.build(progress, true))
    }

    fn reconcile_once(
        &mut self,
        depth: Depth,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Reconciled, IndexError> {
        let dirs: Vec<(String, i64)> =
            rows(&self.conn, "SELECT rel, mtime_ns FROM dirs", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(self.fail())?;
        if dirs.is_empty() {
            return self.build(progress, false);
        }
        let folder = self.folder.clone();
        let root = Root::new(&folder);
        let now = now_ns();
        // Look at the directories before taking the write lock: most
        // recalls find nothing changed.
        let mut changed: Vec<(String, Option<DirListing>)> = Vec::new();
        let n = self.meta_int("n")?;
        let defer = depth == Depth::Recall && n > LIST_IN_FOREGROUND_UP_TO;
        let mut deferred = 0;
        for (rel, stored) in &dirs {
            let current = std::fs::metadata(root.join(rel))
                .ok()
                .filter(std::fs::Metadata::is_dir)
                .map(|m| FileStamp::of(&m).mtime_ns);
            match current {
                None => changed.push((rel.clone(), None)),
                Some(m) if depth == Depth::Full || m != *stored || *stored == -1 => {
                    if defer {
                        deferred += 1;
                        continue;
                    }
                    let listing = match root.list(rel, now) {
                        Ok(listing) => Some(listing),
                        Err(e) if rel.is_empty() && e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(IndexError::MemoryFolder {
                                path: self.folder.clone(),
                                source: e,
                            });
                        }
                        Err(_) => None,
                    };
                    changed.push((rel.clone(), listing));
                }
                Some(_) => {}
            }
        }
        let limit = match depth {
            Depth::Recall | Depth::Settle if n > SWEEP_ALL_UP_TO => SWEEP_PER_RECALL,
            Depth::Recall | Depth::Settle | Depth::Full => usize::MAX,
        };
        let sweep = self.sweep(&root, limit)?;
        let nothing_to_write = changed.is_empty()
            && sweep.stale.is_empty()
            && sweep.gone.is_empty()
            && !(depth == Depth::Full && self.meta_int("pending")? >= COMPACT_FROM);
        let mut report = if nothing_to_write {
            // Most recalls: nothing changed, and nothing is written.
            Reconciled::default()
        } else {
            let Some(mut writer) = Writer::begin(self, false)? else {
                return Ok(Reconciled {
                    busy: true,
                    ..Reconciled::default()
                });
            };
            writer.report.listed = changed.len();
            let mut to_read: Vec<String> = Vec::new();
            for (rel, listing) in changed {
                writer.apply_listing(
                    &root,
                    &rel,
                    listing,
                    depth == Depth::Full,
                    now,
                    &mut to_read,
                )?;
            }
            for id in &sweep.gone {
                writer.remove_doc(*id)?;
            }
            to_read.extend(sweep.stale.iter().cloned());
            writer.read_and_apply(&folder, to_read, &mut |_| {})?;
            if depth == Depth::Full && writer.pending >= COMPACT_FROM {
                writer.compact()?;
            }
            let report = writer.commit()?;
            self.fold_log(false);
            report
        };
        if depth == Depth::Full {
            self.fold_log(true);
        }
        report.swept = sweep.checked;
        report.deferred = deferred;
        sweep.state.save(&self.sweep_path());
        Ok(report)
    }

    /// The file that keeps the sweep's place between recalls: beside the
    /// database, so that a recall that finds nothing changed writes
    /// nothing to the database.
    fn sweep_path(&self) -> PathBuf {
        self.db.with_extension("sweep")
    }

    fn meta_int(&self, key: &str) -> Result<i64, IndexError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map_err(self.fail())?
            .unwrap_or(0))
    }

    /// Stat's up to `limit` memories after the sweep's place, in name
    /// order (all of them for `usize::MAX`): which are gone, which
    /// changed.
    fn sweep(&self, root: &Root<'_>, limit: usize) -> Result<Swept, IndexError> {
        let full = limit == usize::MAX;
        let now = now_ms();
        let mut state = if full {
            SweepState::starting(now, SweepState::load(&self.sweep_path()).swept_ms)
        } else {
            SweepState::load(&self.sweep_path())
        };
        let rows: Vec<(i64, String, i64, i64, i64)> = rows(
            &self.conn,
            "SELECT id, filename, size, mtime_ns, ino FROM docs WHERE filename > ?1 ORDER BY filename LIMIT ?2",
            params![state.cursor, i64::try_from(limit).unwrap_or(i64::MAX)],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .map_err(self.fail())?;
        let mut out = Swept::default();
        let wrapped = rows.len() < limit;
        // Each name is looked up from the folder, not from the root of the
        // file system: a quarter of the cost of a stat by full path.
        let folder = rustix::fs::open(
            root.path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .ok();
        #[allow(
            clippy::useless_conversion,
            reason = "the C types of a stat's fields differ between targets"
        )]
        let stamp_of = |filename: &str| -> Option<FileStamp> {
            match &folder {
                Some(fd) => {
                    let st = rustix::fs::statat(fd, filename, AtFlags::empty()).ok()?;
                    (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then(|| {
                        FileStamp {
                            size: u64::try_from(st.st_size).unwrap_or(0),
                            mtime_ns: mtime_ns_of(&st),
                            ino: st.st_ino,
                        }
                    })
                }
                None => std::fs::metadata(root.join(filename))
                    .ok()
                    .filter(std::fs::Metadata::is_file)
                    .map(|meta| FileStamp::of(&meta)),
            }
        };
        for (id, filename, size, mtime_ns, ino) in rows {
            out.checked += 1;
            match stamp_of(&filename) {
                Some(now) => {
                    let same = i64::try_from(now.size).ok() == Some(size)
                        && now.mtime_ns == mtime_ns
                        && now.ino.cast_signed() == ino;
                    if !same {
                        out.stale.push(filename.clone());
                    }
                }
                None => out.gone.push(id),
            }
            state.cursor = filename;
        }
        if wrapped {
            // Every memory has been stat'ed since the sweep started.
            state = SweepState::starting(now, Some(state.started_ms));
        }
        out.state = state;
        Ok(out)
    }

    /// Lists the whole folder, reads every memory and writes the index
    /// anew, as one transaction. Unless `wait`, another process writing
    /// the index (building it too) makes this [`IndexError::Busy`] rather
    /// than a wait: a recall then scans instead.
    fn build(
        &mut self,
        progress: &mut dyn FnMut(Progress),
        wait: bool,
    ) -> Result<Reconciled, IndexError> {
        let folder = self.folder.clone();
        let root = Root::new(&folder);
        let now = now_ns();
        let mut dirs: Vec<(String, i64)> = Vec::new();
        let mut files: Vec<String> = Vec::new();
        let mut stack = vec![String::new()];
        while let Some(rel) = stack.pop() {
            let listing = match root.list(&rel, now) {
                Ok(listing) => listing,
                Err(e) if rel.is_empty() => {
                    return Err(IndexError::MemoryFolder {
                        path: self.folder.clone(),
                        source: e,
                    });
                }
                Err(_) => continue,
            };
            dirs.push((rel.clone(), listing.mtime_ns));
            files.extend(listing.files().map(|(name, _, _)| child(&rel, name)));
            stack.extend(listing.dirs.iter().map(|d| child(&rel, d)));
        }
        files.sort();
        let read = read_in_chunks(&folder, &files, progress);
        let Some(mut writer) = Writer::begin(self, wait)? else {
            return Err(IndexError::Busy {
                path: self.db.clone(),
            });
        };
        writer.clear()?;
        writer.report.built = true;
        writer.report.listed = dirs.len();
        for (rel, mtime) in &dirs {
            writer.set_dir(rel, *mtime)?;
        }
        // Every memory straight into the base segment: the postings of every
        // term gathered in memory (each distinct word stemmed once), one
        // blob per term. Memory `i` of `headers` is number `i + 1`.
        let headers: Vec<(MemoryHeader, FileStamp)> = read.into_iter().flatten().collect();
        let corpus = MemCorpus::new(headers.iter().map(|(h, _)| DocText::of_header(h)));
        let (terms, lens) = corpus.into_parts();
        for (i, ((header, stamp), lens)) in headers.iter().zip(&lens).enumerate() {
            let id = DocId::try_from(i + 1).map_err(|_| IndexError::Damaged {
                path: writer.db.to_owned(),
            })?;
            writer.insert_doc(id, header, *stamp, &content_hash(header), lens, true, now)?;
            writer.report.added += 1;
        }
        let by_term: HashMap<String, Vec<Posting>> = terms
            .into_iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(term, list)| {
                let list = list
                    .into_iter()
                    .map(|(doc, counts)| Posting {
                        doc: doc + 1,
                        counts,
                        lens: lens[doc as usize],
                    })
                    .collect();
                (term.into(), list)
            })
            .collect();
        writer.write_base(by_term)?;
        let report = writer.commit()?;
        self.fold_log(true);
        // Every memory was read just now: a complete round.
        let started = now / 1_000_000;
        SweepState::starting(started, Some(started)).save(&self.db.with_extension("sweep"));
        Ok(report)
    }

    /// Brings the named memories (folder-relative) up to date: what
    /// memdir's own writers call after they write, so that the next recall
    /// has nothing to find. A file that no longer exists is removed.
    pub fn update_files(&mut self, filenames: &[String]) -> Result<Reconciled, IndexError> {
        self.healing(|index| {
            let folder = index.folder.clone();
            // A writer holds the folder's lock: it never waits long for the
            // index (another process's build or merge may hold it for
            // seconds); the next recall's reconciliation finds the change.
            let Some(mut writer) = Writer::begin(index, false)? else {
                return Ok(Reconciled {
                    busy: true,
                    ..Reconciled::default()
                });
            };
            writer.read_and_apply(&folder, filenames.to_vec(), &mut |_| {})?;
            let report = writer.commit()?;
            index.fold_log(false);
            Ok(report)
        })
    }

    /// Brings the index up to date after another program wrote the named
    /// memories (folder-relative): what the agent's post-tool hook calls,
    /// so that the next recall finds nothing to do. It first waits until
    /// the files and their directories are older than the window in which
    /// a time is not trusted (at most 20 ms): a directory time stored as
    /// untrusted would make the next recall list the folder again. Then
    /// the files are read and the folder reconciled as a recall reconciles
    /// it.
    pub fn settle_after_write(&mut self, filenames: &[String]) -> Result<Reconciled, IndexError> {
        let newest = filenames
            .iter()
            .flat_map(|f| [self.folder.join(f), self.folder.join(parent(f))])
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| FileStamp::of(&m).mtime_ns)
            .max();
        if let Some(newest) = newest {
            let wait = newest
                .saturating_add(listing::RACY_NS)
                .saturating_sub(now_ns());
            if wait > 0 {
                let wait = wait.min(listing::RACY_NS).unsigned_abs();
                std::thread::sleep(Duration::from_nanos(wait));
            }
        }
        self.update_files(filenames)?;
        self.reconcile(Depth::Settle, &mut |_| {})
    }

    /// Folds the write-ahead log into the database and empties it, when
    /// `always` or once it is over [`WAL_BYTES`] (the log is kept between
    /// processes, so nothing else bounds it). Never waits: while another
    /// process reads, the next writer tries again.
    fn fold_log(&self, always: bool) {
        if !always
            && std::fs::metadata(companion(&self.db, "-wal")).map_or(true, |m| m.len() <= WAL_BYTES)
        {
            return;
        }
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = self.conn.busy_timeout(BUSY_WAIT);
    }

    /// Ranks `query` over every indexed memory, before thresholds: the
    /// same scores [`crate::score_query`] gives over the same memories,
    /// each [`crate::Ranked::index`] an [`IndexedMemory::id`], the best
    /// [`RANKED`] of them.
    pub fn score(&mut self, query: &str) -> Result<Scored, IndexError> {
        self.healing(|index| {
            let corpus = QueryCorpus::load(index, query)?;
            Ok(score_best(&corpus, query, RANKED))
        })
    }

    /// Runs the reads of `f` in one snapshot of the index: the database is
    /// locked and its log checked once, not at each read.
    pub fn reading<T>(
        &self,
        f: impl FnOnce(&Self) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let snapshot = self.conn.unchecked_transaction().map_err(self.fail())?;
        let out = f(self)?;
        snapshot.commit().map_err(self.fail())?;
        Ok(out)
    }

    /// The indexed memory numbered `id`, if any.
    pub fn memory(&self, id: DocId) -> Result<Option<IndexedMemory>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT filename, time_ms, size, mtime_ns, ino, hash FROM docs WHERE id = ?1",
            )
            .map_err(self.fail())?;
        stmt.query_row([id], |r| {
            Ok(IndexedMemory {
                id,
                filename: r.get(0)?,
                time_ms: r.get(1)?,
                stamp: FileStamp {
                    size: r.get::<_, i64>(2)?.try_into().unwrap_or(0),
                    mtime_ns: r.get(3)?,
                    ino: r.get::<_, i64>(4)?.cast_unsigned(),
                },
                hash: r.get(5)?,
            })
        })
        .optional()
        .map_err(self.fail())
    }

    /// The memories another replaced, each with its replacement, from the
    /// `supersedes:` and `supersededBy:` of the indexed memories.
    pub fn superseded(&self) -> Result<BTreeMap<String, String>, IndexError> {
        let rows: Vec<(String, String, Option<String>)> = rows(
            &self.conn,
            // Few memories have links: read them first (`CROSS JOIN` keeps
            // that order), never every memory.
            "SELECT d.filename, l.supersedes, l.superseded_by
             FROM links l CROSS JOIN docs d ON d.id = l.doc",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(self.fail())?;
        Ok(memdir_memtypes::superseded_map(rows.iter().map(
            |(file, supersedes, by)| {
                (
                    file.as_str(),
                    supersedes
                        .split('\n')
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    by.clone(),
                )
            },
        )))
    }

    /// Whether a background refresh ([`RecallIndex::refresh`]) is worth
    /// starting after `reconciled`: it left a listing for one
    /// ([`Reconciled::deferred`]) and none is running (one that runs
    /// lists again, before it ends, what changed while it ran); or the
    /// sweep has not covered the folder recently, or many memories changed
    /// since the last compaction, and none started in the last ten seconds.
    pub fn refresh_due(&self, reconciled: &Reconciled) -> Result<bool, IndexError> {
        let meta = |key: &str| self.meta_int(key);
        let now = now_ms();
        let started = meta("refresh_started_ms")?;
        let since = now - started;
        if reconciled.deferred > 0 {
            let running = started > meta("refresh_ended_ms")? && since < REFRESH_RUNS_AT_MOST_MS;
            return Ok(!running);
        }
        if since < REFRESH_INTERVAL_MS {
            return Ok(false);
        }
        let pending = meta("pending")?;
        let swept = SweepState::load(&self.sweep_path()).swept_ms.unwrap_or(0);
        Ok(pending >= COMPACT_AFTER || now - swept > REFRESH_INTERVAL_MS)
    }

    /// What `memdir recall-index refresh` runs in the background: the
    /// directories that changed listed first ([`Depth::Settle`]: what a
    /// recall left to it is indexed within tens of milliseconds, before
    /// the rest), then a full reconciliation ([`Depth::Full`], seconds at
    /// 100,000 memories), then what changed while it ran listed again (a
    /// few times at most), so that a recall that leaves a listing while a
    /// refresh runs need not start another. Its start and end are recorded
    /// for [`RecallIndex::refresh_due`].
    pub fn refresh(
        &mut self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Reconciled, IndexError> {
        self.set_meta("refresh_started_ms", now_ms())?;
        let refreshed = self
            .reconcile(Depth::Settle, &mut |_| {})
            .and_then(|first| {
                let mut report = self.reconcile(Depth::Full, progress)?;
                let mut add = |pass: &Reconciled| {
                    report.added += pass.added;
                    report.updated += pass.updated;
                    report.removed += pass.removed;
                    report.listed += pass.listed;
                };
                add(&first);
                for _ in 0..SETTLE_PASSES {
                    let pass = self.reconcile(Depth::Settle, &mut |_| {})?;
                    add(&pass);
                    if pass.listed == 0 {
                        break;
                    }
                }
                Ok(report)
            });
        let ended = self.set_meta("refresh_ended_ms", now_ms());
        let report = refreshed?;
        ended?;
        Ok(report)
    }

    fn set_meta(&self, key: &str, value: i64) -> Result<(), IndexError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map(drop)
            .map_err(self.fail())
    }

    /// What the index holds.
    pub fn status(&self) -> Result<IndexStatus, IndexError> {
        let count = |sql: &str| -> Result<usize, IndexError> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| usize::try_from(n).unwrap_or(0))
                .map_err(self.fail())
        };
        let swept_ms = SweepState::load(&self.sweep_path()).swept_ms;
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        Ok(IndexStatus {
            path: self.db.clone(),
            folder: self.folder.clone(),
            memories: count("SELECT count(*) FROM docs")?,
            folders: count("SELECT count(*) FROM dirs")?,
            pending: count("SELECT coalesce((SELECT value FROM meta WHERE key = 'pending'), 0)")?,
            bytes: size(&self.db) + size(&companion(&self.db, "-wal")),
            swept_ms,
        })
    }
}

/// What a sweep found.
#[derive(Debug, Default)]
struct Swept {
    /// Memories stat'ed.
    checked: usize,
    /// Memories whose stamp changed.
    stale: Vec<String>,
    /// Memories whose file is gone (or is no longer a file).
    gone: Vec<i64>,
    /// Where the next sweep starts.
    state: SweepState,
}

/// The sweep's place between recalls: the last memory stat'ed, when this
/// round started, and when the last complete round started (every memory
/// has been stat'ed since). Kept in a small file beside the database;
/// a torn or missing file starts a new round, which only costs stat's.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct SweepState {
    cursor: String,
    started_ms: i64,
    swept_ms: Option<i64>,
}

impl SweepState {
    fn starting(now_ms: i64, swept_ms: Option<i64>) -> Self {
        SweepState {
            cursor: String::new(),
            started_ms: now_ms,
            swept_ms,
        }
    }

    fn load(path: &Path) -> Self {
        // Never blocks on a FIFO, never reads more than a small file.
        let text = memdir_memtypes::read_regular_file(path, 64 * 1024)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_default();
        let mut lines = text.split('\n');
        let (Some(started), Some(swept), Some(cursor), Some("end")) =
            (lines.next(), lines.next(), lines.next(), lines.next())
        else {
            return SweepState::starting(now_ms(), None);
        };
        SweepState {
            cursor: cursor.to_owned(),
            started_ms: started.parse().unwrap_or_else(|_| now_ms()),
            swept_ms: swept.parse().ok(),
        }
    }

    fn save(&self, path: &Path) {
        let swept = self.swept_ms.map_or_else(String::new, |t| t.to_string());
        // The cursor is the third line and "end" closes the record; a name
        // with a line break in it is not kept (the next round starts over).
        if self.cursor.contains('\n') {
            return;
        }
        // Only over a regular file (or none): never through a link, never
        // into a FIFO, which would block (and the opening itself follows
        // no link and waits for no reader).
        if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
            return;
        }
        let mut record = format!("{}\n{swept}\n{}\nend\n", self.started_ms, self.cursor);
        // Written over the old record, padded to its length, never
        // truncated: a truncation makes the file system write the file out
        // at close, which would cost a recall more than its whole sweep.
        let Ok(file) = rustix::fs::open(
            path,
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map(std::fs::File::from) else {
            return;
        };
        let old_len = file
            .metadata()
            .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
        if old_len > 64 * 1024 {
            let _ = file.set_len(0);
        } else if record.len() < old_len {
            record.extend(std::iter::repeat_n(' ', old_len - record.len()));
        }
        let _ = std::os::unix::fs::FileExt::write_all_at(&file, record.as_bytes(), 0);
    }
}

/// The file SQLite keeps beside `db` under `suffix` (`"-wal"`, …).
fn companion(db: &Path, suffix: &str) -> PathBuf {
    let mut path = db.as_os_str().to_owned();
    path.push(suffix);
    PathBuf::from(path)
}

/// The database and its companion files: SQLite's journals and the
/// sweep's place.
fn database_files(db: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    ["", "-wal", "-shm", "-journal"]
        .into_iter()
        .map(|suffix| companion(db, suffix))
        .chain(std::iter::once(db.with_extension("sweep")))
}

/// Removes a database and its companion files; a cache, so a failure to
/// remove is only a failure to rebuild later.
fn remove_database(db: &Path) {
    for path in database_files(db) {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes whatever stands where the database or a companion file belongs
/// and is not a regular file: a link (SQLite would write through it), a
/// FIFO (reading it would block recall forever), a folder. Returns
/// whether anything was removed.
fn remove_odd_files(db: &Path) -> bool {
    let mut removed = false;
    for path in database_files(db) {
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && !meta.file_type().is_file()
        {
            let gone = if meta.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed |= gone.is_ok();
        }
    }
    removed
}

/// Reads `files`, calling `progress` every few hundred.
fn read_in_chunks(
    folder: &Path,
    files: &[String],
    progress: &mut dyn FnMut(Progress),
) -> Vec<Option<(MemoryHeader, FileStamp)>> {
    const CHUNK: usize = 512;
    let now = now_ms();
    let mut out = Vec::with_capacity(files.len());
    progress(Progress {
        done: 0,
        total: files.len(),
    });
    for chunk in files.chunks(CHUNK) {
        out.extend(
            read_memory_files(folder, chunk, now)
                .into_iter()
                .map(Result::ok),
        );
        progress(Progress {
            done: out.len(),
            total: files.len(),
        });
    }
    out
}

/// A memory's field lengths and the counts of each of its terms.
fn terms_of(header: &MemoryHeader) -> (FieldCounts, HashMap<String, FieldCounts>) {
    let mut counts: HashMap<String, FieldCounts> = HashMap::new();
    let lens = count_terms(&DocText::of_header(header), |term, field| {
        let c = counts.entry(term.to_owned()).or_default();
        c[field as usize] = c[field as usize].saturating_add(1);
    });
    (lens, counts)
}

/// What of a memory's text the index depends on: equal hashes, equal
/// postings.
fn content_hash(h: &MemoryHeader) -> Vec<u8> {
    let mut hasher = Sha256::new();
    for part in [
        h.name.as_deref().unwrap_or("\u{0}none"),
        h.description.as_deref().unwrap_or("\u{0}none"),
        h.memory_type.map_or("\u{0}none", MemoryType::as_str),
        &h.body_head,
        &h.supersedes.join("\n"),
        h.superseded_by.as_deref().unwrap_or("\u{0}none"),
    ] {
        hasher.update(part.len().to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().to_vec()
}

/// One write transaction on the index, with the totals it keeps.
struct Writer<'a> {
    tx: rusqlite::Transaction<'a>,
    db: &'a Path,
    totals: Totals,
    pending: i64,
    report: Reconciled,
    /// The buckets of each directory's [`Digest`] whose memories changed
    /// in this write, summed again at the commit.
    changed_buckets: BTreeMap<String, BTreeSet<u16>>,
    /// Directories whose digest is summed again in full at the commit.
    whole_dirs: BTreeSet<String>,
}

impl<'a> Writer<'a> {
    /// Begins a write; `None` when another process holds the index for
    /// longer than [`BUSY_WAIT`] (unless `wait`, which waits as long as
    /// SQLite's timeout allows and reports a failure as an error).
    fn begin(index: &'a mut RecallIndex, wait: bool) -> Result<Option<Writer<'a>>, IndexError> {
        let db: &'a Path = &index.db;
        let fail = |source| IndexError::Database {
            path: db.to_owned(),
            source,
        };
        if wait {
            index
                .conn
                .busy_timeout(Duration::from_secs(30))
                .map_err(fail)?;
        }
        let tx = index
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate);
        let tx = match tx {
            Ok(tx) => tx,
            Err(e) if !wait && e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy) => {
                return Ok(None);
            }
            Err(e) => return Err(fail(e)),
        };
        let (totals, pending) = Totals::load(&tx).map_err(fail)?;
        Ok(Some(Writer {
            tx,
            db,
            totals,
            pending,
            report: Reconciled::default(),
            changed_buckets: BTreeMap::new(),
            whole_dirs: BTreeSet::new(),
        }))
    }

    fn fail(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |source| IndexError::Database {
            path: self.db.to_owned(),
            source,
        }
    }

    /// Notes that the memory `filename` was added, removed or replaced:
    /// its directory's digest is brought up to date at the commit.
    fn touched(&mut self, filename: &str) {
        let dir = parent(filename);
        let bucket = bucket_of(base_name(filename));
        if let Some(buckets) = self.changed_buckets.get_mut(dir) {
            buckets.insert(bucket);
        } else {
            self.changed_buckets
                .insert(dir.to_owned(), BTreeSet::from([bucket]));
        }
    }

    /// Sums again each directory's digest where its memories changed: a
    /// digest is always that of the directory's rows in `docs`, so a
    /// listing that matches it holds exactly the memories indexed.
    fn refresh_digests(&mut self) -> Result<(), IndexError> {
        let changed = std::mem::take(&mut self.changed_buckets);
        let whole = std::mem::take(&mut self.whole_dirs);
        let fail = self.fail();
        let dirs = whole
            .iter()
            .chain(changed.keys().filter(|d| !whole.contains(*d)));
        for dir in dirs {
            let stored: Option<Option<Vec<u8>>> = self
                .tx
                .prepare_cached("SELECT digest FROM dirs WHERE rel = ?1")
                .and_then(|mut s| s.query_row([dir], |r| r.get(0)).optional())
                .map_err(&fail)?;
            // A directory that is not listed has no digest to keep.
            let Some(stored) = stored else { continue };
            let stored = stored.as_deref().and_then(Digest::from_blob);
            let digest = match stored {
                Some(mut digest) if !whole.contains(dir) => {
                    let mut stmt = self
                        .tx
                        .prepare_cached(
                            "SELECT filename, ino FROM docs WHERE dir = ?1 AND bucket = ?2",
                        )
                        .map_err(&fail)?;
                    for &bucket in changed.get(dir).into_iter().flatten() {
                        let rows: Vec<(String, i64)> = stmt
                            .query_map(params![dir, bucket], |r| Ok((r.get(0)?, r.get(1)?)))
                            .and_then(Iterator::collect)
                            .map_err(&fail)?;
                        digest.set_bucket(
                            bucket,
                            rows.iter()
                                .map(|(f, ino)| (base_name(f), ino.cast_unsigned())),
                        );
                    }
                    digest
                }
                _ => {
                    let rows: Vec<(String, i64)> = rows(
                        &self.tx,
                        "SELECT filename, ino FROM docs WHERE dir = ?1",
                        [dir],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .map_err(&fail)?;
                    Digest::of(
                        rows.iter()
                            .map(|(f, ino)| (base_name(f), ino.cast_unsigned())),
                    )
                }
            };
            self.tx
                .prepare_cached("UPDATE dirs SET digest = ?2 WHERE rel = ?1")
                .and_then(|mut s| s.execute(params![dir, digest.to_blob()]))
                .map_err(&fail)?;
        }
        Ok(())
    }

    fn commit(mut self) -> Result<Reconciled, IndexError> {
        self.refresh_digests()?;
        let fail = |source| IndexError::Database {
            path: self.db.to_owned(),
            source,
        };
        {
            let mut stmt = self
                .tx
                .prepare_cached("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)")
                .map_err(fail)?;
            let values = [
                self.totals.n,
                self.totals.lens[0],
                self.totals.lens[1],
                self.totals.lens[2],
                self.totals.lens[3],
            ];
            for (key, value) in TOTAL_KEYS.iter().zip(values) {
                stmt.execute(params![key, value]).map_err(fail)?;
            }
            stmt.execute(params!["pending", self.pending])
                .map_err(fail)?;
        }
        self.tx.commit().map_err(fail)?;
        Ok(self.report)
    }

    /// Empties every table but `meta`'s identity.
    fn clear(&mut self) -> Result<(), IndexError> {
        self.tx
            .execute_batch(
                "DELETE FROM dirs; DELETE FROM docs; DELETE FROM dead; DELETE FROM base;
                 DELETE FROM fresh; DELETE FROM links;
                 DELETE FROM meta WHERE key NOT IN ('folder', 'refresh_started_ms');",
            )
            .map_err(self.fail())?;
        self.totals = Totals::default();
        self.pending = 0;
        Ok(())
    }

    fn set_dir(&self, rel: &str, mtime_ns: i64) -> Result<(), IndexError> {
        self.tx
            .prepare_cached(
                "INSERT INTO dirs(rel, mtime_ns) VALUES (?1, ?2)
                 ON CONFLICT(rel) DO UPDATE SET mtime_ns = excluded.mtime_ns",
            )
            .and_then(|mut s| s.execute(params![rel, mtime_ns]))
            .map(drop)
            .map_err(self.fail())
    }

    /// Takes a directory's new listing (`None`: it is gone): memories
    /// added or replaced go to `to_read`, those gone are removed, new
    /// subdirectories are listed in full.
    fn apply_listing(
        &mut self,
        root: &Root<'_>,
        rel: &str,
        listing: Option<DirListing>,
        whole: bool,
        now: i64,
        to_read: &mut Vec<String>,
    ) -> Result<(), IndexError> {
        let Some(listing) = listing else {
            // The directory is gone: everything below it with it.
            let fail = self.fail();
            let prefix = if rel.is_empty() {
                String::new()
            } else {
                format!("{rel}/")
            };
            let ids: Vec<i64> = rows(
                &self.tx,
                "SELECT id FROM docs WHERE dir = ?1 OR substr(dir, 1, length(?2)) = ?2",
                params![rel, prefix],
                |r| r.get(0),
            )
            .map_err(&fail)?;
            self.tx
                .execute(
                    "DELETE FROM dirs WHERE rel = ?1 OR substr(rel, 1, length(?2)) = ?2",
                    params![rel, prefix],
                )
                .map_err(&fail)?;
            drop(fail);
            for id in ids {
                self.remove_doc(id)?;
            }
            return Ok(());
        };
        let gone = self.merge_listing(rel, &listing, whole, to_read)?;
        let known_dirs: HashSet<String> = rows(&self.tx, "SELECT rel FROM dirs", [], |r| r.get(0))
            .map_err(self.fail())?
            .into_iter()
            .collect();
        for id in gone {
            self.remove_doc(id)?;
        }
        // Subdirectories: new ones listed in full, vanished ones removed.
        let listed_dirs: HashSet<String> = listing.dirs.iter().map(|d| child(rel, d)).collect();
        for sub in known_dirs.iter().filter(|d| is_child_dir(rel, d)) {
            if !listed_dirs.contains(sub) {
                self.apply_listing(root, sub, None, whole, now, to_read)?;
            }
        }
        for sub in &listed_dirs {
            if !known_dirs.contains(sub) {
                let listing = root.list(sub, now).ok();
                if listing.is_some() {
                    self.report.listed += 1;
                }
                self.apply_listing(root, sub, listing, whole, now, to_read)?;
            }
        }
        self.set_dir(rel, listing.mtime_ns)
    }

    /// Compares a directory's listing with its stored memories: what to
    /// read goes to `to_read`, the numbers of memories gone are returned.
    /// Only the buckets where the listing and the stored digest differ are
    /// compared by name (all of them when `whole`, or with no digest).
    fn merge_listing(
        &mut self,
        rel: &str,
        listing: &DirListing,
        whole: bool,
        to_read: &mut Vec<String>,
    ) -> Result<Vec<i64>, IndexError> {
        // One file changed in a directory of 10,000 memories reads a dozen
        // rows, not 10,000.
        let fail = self.fail();
        let stored: Option<Digest> = self
            .tx
            .prepare_cached("SELECT digest FROM dirs WHERE rel = ?1")
            .and_then(|mut s| {
                s.query_row([rel], |r| r.get::<_, Option<Vec<u8>>>(0))
                    .optional()
            })
            .map_err(&fail)?
            .flatten()
            .and_then(|blob| Digest::from_blob(&blob))
            .filter(|_| !whole);
        let mut gone: Vec<i64> = Vec::new();
        let mut whole_merged = false;
        if let Some(stored) = stored {
            let mut listed = Digest::new();
            for (_, ino, hash) in listing.files() {
                listed.add_hashed(hash, ino);
            }
            let differing: BTreeSet<u16> = stored.differing(&listed).collect();
            if !differing.is_empty() {
                let mut by_bucket: BTreeMap<u16, Vec<(String, u64)>> = BTreeMap::new();
                for (name, ino, hash) in listing.files() {
                    let bucket = bucket_of_hash(hash);
                    if differing.contains(&bucket) {
                        by_bucket
                            .entry(bucket)
                            .or_default()
                            .push((child(rel, name), ino));
                    }
                }
                let mut stmt = self
                    .tx
                    .prepare_cached(
                        "SELECT filename, id, ino FROM docs WHERE dir = ?1 AND bucket = ?2 ORDER BY filename",
                    )
                    .map_err(&fail)?;
                for bucket in differing {
                    let listed = by_bucket.remove(&bucket).unwrap_or_default();
                    let rows = stmt.query(params![rel, bucket]).map_err(&fail)?;
                    merge_by_name(listed, rows, to_read, &mut gone).map_err(&fail)?;
                }
            }
        } else {
            let listed = listing
                .files()
                .map(|(name, ino, _)| (child(rel, name), ino))
                .collect();
            let mut stmt = self
                .tx
                .prepare_cached(
                    "SELECT filename, id, ino FROM docs WHERE dir = ?1 ORDER BY filename",
                )
                .map_err(&fail)?;
            let rows = stmt.query([rel]).map_err(&fail)?;
            merge_by_name(listed, rows, to_read, &mut gone).map_err(&fail)?;
            whole_merged = true;
        }
        drop(fail);
        if whole_merged {
            self.whole_dirs.insert(rel.to_owned());
        }
        Ok(gone)
    }

    /// Reads `files` and indexes what changed; removes those that cannot
    /// be read as memories.
    fn read_and_apply(
        &mut self,
        folder: &Path,
        mut files: Vec<String>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), IndexError> {
        if files.is_empty() {
            return Ok(());
        }
        files.sort();
        files.dedup();
        let now = now_ns();
        let read = read_in_chunks(folder, &files, progress);
        for (filename, read) in files.iter().zip(read) {
            let existing: Option<(i64, Vec<u8>)> = self
                .tx
                .prepare_cached("SELECT id, hash FROM docs WHERE filename = ?1")
                .and_then(|mut s| {
                    s.query_row([filename], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()
                })
                .map_err(self.fail())?;
            let read = read.map(|(header, stamp)| {
                let hash = content_hash(&header);
                (header, stamp, hash)
            });
            match (read, existing) {
                (None, None) => {}
                (None, Some((id, _))) => self.remove_doc(id)?,
                (Some((header, stamp, hash)), Some((id, stored))) if stored == hash => {
                    // Touched, not changed: a new stamp and time only.
                    let mtime = stable_ns(stamp.mtime_ns, now);
                    self.tx
                        .prepare_cached(
                            "UPDATE docs SET ino = ?2, size = ?3, mtime_ns = ?4, time_ms = ?5 WHERE id = ?1",
                        )
                        .and_then(|mut s| {
                            s.execute(params![
                                id,
                                stamp.ino.cast_signed(),
                                i64::try_from(stamp.size).unwrap_or(i64::MAX),
                                mtime,
                                header.mtime_ms
                            ])
                        })
                        .map_err(self.fail())?;
                    self.touched(filename);
                }
                (Some((header, stamp, hash)), existing) => {
                    if let Some((id, _)) = existing {
                        self.remove_doc(id)?;
                        self.report.updated += 1;
                    } else {
                        self.report.added += 1;
                    }
                    self.add_fresh(&header, stamp, &hash, now)?;
                }
            }
        }
        Ok(())
    }

    /// Indexes a memory in the fresh segment, under a new number.
    fn add_fresh(
        &mut self,
        header: &MemoryHeader,
        stamp: FileStamp,
        hash: &[u8],
        now: i64,
    ) -> Result<(), IndexError> {
        let (lens, counts) = terms_of(header);
        let next: i64 = self
            .tx
            .query_row("SELECT coalesce(max(id), 0) + 1 FROM docs", [], |r| {
                r.get(0)
            })
            .map_err(self.fail())?;
        // Numbers are never reused while the base segment may hold them.
        let floor: i64 = self
            .tx
            .query_row(
                "SELECT coalesce((SELECT value FROM meta WHERE key = 'next_id'), 1)",
                [],
                |r| r.get(0),
            )
            .map_err(self.fail())?;
        let id = next.max(floor);
        self.tx
            .execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('next_id', ?1)",
                [id + 1],
            )
            .map_err(self.fail())?;
        let id = DocId::try_from(id).map_err(|_| IndexError::Damaged {
            path: self.db.to_owned(),
        })?;
        self.insert_doc(id, header, stamp, hash, &lens, false, now)?;
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT INTO fresh(term, doc, c0, c1, c2, c3) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .map_err(self.fail())?;
        for (term, c) in counts {
            stmt.execute(params![term, id, c[0], c[1], c[2], c[3]])
                .map_err(self.fail())?;
        }
        self.pending += 1;
        Ok(())
    }

    /// Writes a memory's row and its links, and counts it in the totals.
    #[allow(
        clippy::too_many_arguments,
        reason = "one row's columns, from two callers that know them differently"
    )]
    fn insert_doc(
        &mut self,
        id: DocId,
        header: &MemoryHeader,
        stamp: FileStamp,
        hash: &[u8],
        lens: &FieldCounts,
        in_base: bool,
        now: i64,
    ) -> Result<(), IndexError> {
        self.tx
            .prepare_cached(
                "INSERT INTO docs(id, filename, dir, ino, size, mtime_ns, hash, time_ms, l0, l1, l2, l3, in_base, bucket)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    id,
                    header.filename,
                    parent(&header.filename),
                    stamp.ino.cast_signed(),
                    i64::try_from(stamp.size).unwrap_or(i64::MAX),
                    stable_ns(stamp.mtime_ns, now),
                    hash,
                    header.mtime_ms,
                    lens[0],
                    lens[1],
                    lens[2],
                    lens[3],
                    in_base,
                    bucket_of(base_name(&header.filename)),
                ])
            })
            .map_err(self.fail())?;
        self.touched(&header.filename);
        if !header.supersedes.is_empty() || header.superseded_by.is_some() {
            self.tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO links(doc, supersedes, superseded_by) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        id,
                        header.supersedes.join("\n"),
                        header.superseded_by
                    ])
                })
                .map_err(self.fail())?;
        }
        self.totals.n += 1;
        for (total, len) in self.totals.lens.iter_mut().zip(lens) {
            *total += i64::from(*len);
        }
        Ok(())
    }

    /// Removes a memory: its row, links and fresh postings; a memory of the
    /// base segment is marked dead until the next compaction.
    fn remove_doc(&mut self, id: i64) -> Result<(), IndexError> {
        let fail = self.fail();
        let row: Option<(bool, [i64; FIELDS], String)> = self
            .tx
            .prepare_cached("SELECT in_base, l0, l1, l2, l3, filename FROM docs WHERE id = ?1")
            .and_then(|mut s| {
                s.query_row([id], |r| {
                    Ok((
                        r.get(0)?,
                        [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?],
                        r.get(5)?,
                    ))
                })
                .optional()
            })
            .map_err(&fail)?;
        let Some((in_base, lens, filename)) = row else {
            return Ok(());
        };
        for sql in [
            "DELETE FROM docs WHERE id = ?1",
            "DELETE FROM links WHERE doc = ?1",
            "DELETE FROM fresh WHERE doc = ?1",
        ] {
            self.tx
                .prepare_cached(sql)
                .and_then(|mut s| s.execute([id]))
                .map_err(&fail)?;
        }
        if in_base {
            self.tx
                .prepare_cached("INSERT OR IGNORE INTO dead(id) VALUES (?1)")
                .and_then(|mut s| s.execute([id]))
                .map_err(&fail)?;
        }
        drop(fail);
        self.touched(&filename);
        self.totals.n -= 1;
        for (total, len) in self.totals.lens.iter_mut().zip(lens) {
            *total -= len;
        }
        self.pending += 1;
        self.report.removed += 1;
        Ok(())
    }

    /// Writes the base segment: one blob per term.
    fn write_base(&mut self, by_term: HashMap<String, Vec<Posting>>) -> Result<(), IndexError> {
        let mut terms: Vec<(String, Vec<Posting>)> = by_term.into_iter().collect();
        // In key order: appends to the table's tree rather than inserts
        // all over it.
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut stmt = self
            .tx
            .prepare_cached("INSERT OR REPLACE INTO base(term, data) VALUES (?1, ?2)")
            .map_err(self.fail())?;
        for (term, mut list) in terms {
            list.sort_by_key(|p| p.doc);
            stmt.execute(params![term, postings::encode(&list)])
                .map_err(self.fail())?;
        }
        Ok(())
    }

    /// Merges the fresh segment into the base one and drops the dead:
    /// every blob is read and written again.
    fn compact(&mut self) -> Result<(), IndexError> {
        let fail = self.fail();
        let dead = dead_ids(&self.tx).map_err(&fail)?;
        let mut by_term: HashMap<String, Vec<Posting>> = HashMap::new();
        {
            let mut stmt = self
                .tx
                .prepare("SELECT term, data FROM base")
                .map_err(&fail)?;
            let mut rows = stmt.query([]).map_err(&fail)?;
            while let Some(row) = rows.next().map_err(&fail)? {
                let term: String = row.get(0).map_err(&fail)?;
                let data: Vec<u8> = row.get(1).map_err(&fail)?;
                let mut list = Vec::new();
                postings::decode(&data, |p| {
                    if !dead.contains(&p.doc) {
                        list.push(p);
                    }
                })
                .ok_or_else(|| IndexError::Damaged {
                    path: self.db.to_owned(),
                })?;
                by_term.insert(term, list);
            }
            let mut stmt = self
                .tx
                .prepare(
                    "SELECT f.term, f.doc, f.c0, f.c1, f.c2, f.c3, d.l0, d.l1, d.l2, d.l3
                     FROM fresh f JOIN docs d ON d.id = f.doc",
                )
                .map_err(&fail)?;
            let mut rows = stmt.query([]).map_err(&fail)?;
            while let Some(row) = rows.next().map_err(&fail)? {
                let get = |i| row.get::<_, u32>(i).map_err(&fail);
                let term: String = row.get(0).map_err(&fail)?;
                by_term.entry(term).or_default().push(Posting {
                    doc: get(1)?,
                    counts: [get(2)?, get(3)?, get(4)?, get(5)?],
                    lens: [get(6)?, get(7)?, get(8)?, get(9)?],
                });
            }
        }
        self.tx
            .execute_batch(
                "DELETE FROM base; DELETE FROM fresh; DELETE FROM dead; UPDATE docs SET in_base = 1;",
            )
            .map_err(&fail)?;
        drop(fail);
        self.renumber(&mut by_term)?;
        by_term.retain(|_, list| !list.is_empty());
        self.write_base(by_term)?;
        self.pending = 0;
        self.report.compacted = true;
        Ok(())
    }

    /// Every change takes a new number; a merge numbers the memories 1 to
    /// n again (in `by_term` too), so that a query's tables stay the size
    /// of the folder.
    fn renumber(&mut self, by_term: &mut HashMap<String, Vec<Posting>>) -> Result<(), IndexError> {
        let fail = self.fail();
        let ids: Vec<i64> = rows(&self.tx, "SELECT id FROM docs ORDER BY id", [], |r| {
            r.get(0)
        })
        .map_err(&fail)?;
        let dense = ids.iter().zip(1..).all(|(&id, n)| id == n);
        if !dense {
            let renumber: HashMap<DocId, DocId> = ids
                .iter()
                .zip(1u32..)
                .map(|(&id, n)| (DocId::try_from(id).unwrap_or(DocId::MAX), n))
                .collect();
            for list in by_term.values_mut() {
                for p in list.iter_mut() {
                    p.doc = renumber.get(&p.doc).copied().unwrap_or(p.doc);
                }
            }
            self.tx
                .execute_batch("UPDATE docs SET id = -id; UPDATE links SET doc = -doc;")
                .map_err(&fail)?;
            let mut docs = self
                .tx
                .prepare("UPDATE docs SET id = ?2 WHERE id = ?1")
                .map_err(&fail)?;
            let mut links = self
                .tx
                .prepare("UPDATE links SET doc = ?2 WHERE doc = ?1")
                .map_err(&fail)?;
            for (&old, new) in ids.iter().zip(1i64..) {
                docs.execute(params![-old, new]).map_err(&fail)?;
                links.execute(params![-old, new]).map_err(&fail)?;
            }
        }
        self.tx
            .execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('next_id', ?1)",
                [i64::try_from(ids.len()).unwrap_or(i64::MAX) + 1],
            )
            .map_err(&fail)?;
        Ok(())
    }
}

/// Whether `dir` is a direct subdirectory of `rel`.
/// Merges a directory's listing (folder-relative names, inodes) with its
/// stored rows (`filename, id, ino`, in name order): names listed and not
/// stored, or stored under another inode, go to `to_read`; rows not
/// listed go to `gone`. SQLite's binary order is Rust's byte order, so
/// both sides are walked once, side by side.
fn merge_by_name(
    mut listed: Vec<(String, u64)>,
    mut rows: rusqlite::Rows<'_>,
    to_read: &mut Vec<String>,
    gone: &mut Vec<i64>,
) -> rusqlite::Result<()> {
    listed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut next = listed.into_iter().peekable();
    while let Some(row) = rows.next()? {
        let name = row.get_ref(0)?.as_str()?;
        let id: i64 = row.get(1)?;
        let ino: i64 = row.get(2)?;
        // Listed names before this stored one are new.
        while let Some((new, _)) = next.next_if(|(l, _)| l.as_str() < name) {
            to_read.push(new);
        }
        match next.next_if(|(l, _)| l.as_str() == name) {
            Some((same, listed_ino)) => {
                if listed_ino != ino.cast_unsigned() {
                    to_read.push(same);
                }
            }
            None => gone.push(id),
        }
    }
    to_read.extend(next.map(|(l, _)| l));
    Ok(())
}

/// The last component of a folder-relative file name.
fn base_name(filename: &str) -> &str {
    filename.rsplit_once('/').map_or(filename, |(_, name)| name)
}

fn is_child_dir(rel: &str, dir: &str) -> bool {
    if dir.is_empty() {
        return false;
    }
    if rel.is_empty() {
        !dir.contains('/')
    } else {
        dir.strip_prefix(rel)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| !rest.contains('/'))
    }
}

/// The postings of one query's terms, read from the index: a [`Corpus`]
/// over every indexed memory for that query.
struct QueryCorpus {
    n: usize,
    totals: [u64; FIELDS],
    postings: HashMap<String, Vec<(DocId, FieldCounts)>>,
    /// Each memory's lengths, by number (numbers are dense: 1 to about
    /// the number of memories, plus those indexed since a compaction).
    lens: Vec<FieldCounts>,
}

/// Sets `lens[doc]`, growing the table as needed.
fn set_lens(lens: &mut Vec<FieldCounts>, doc: DocId, value: FieldCounts) {
    let at = doc as usize;
    if at >= lens.len() {
        lens.resize(at + 1, [0; FIELDS]);
    }
    lens[at] = value;
}

impl QueryCorpus {
    fn load(index: &RecallIndex, query: &str) -> Result<QueryCorpus, IndexError> {
        let fail = index.fail();
        // One snapshot for every read: the totals and postings agree, and
        // the database is locked and its log checked once, not per term.
        let conn = &index.conn.unchecked_transaction().map_err(&fail)?;
        let (stored, _) = Totals::load(conn).map_err(&fail)?;
        let n = usize::try_from(stored.n).unwrap_or(0);
        let totals = stored.lens.map(|l| u64::try_from(l).unwrap_or(0));
        let dead = dead_ids(conn).map_err(&fail)?;
        let mut terms = crate::tokenize::tokenize(query);
        terms.sort();
        terms.dedup();
        let mut postings = HashMap::with_capacity(terms.len());
        let mut lens: Vec<FieldCounts> = Vec::new();
        let mut base = conn
            .prepare_cached("SELECT data FROM base WHERE term = ?1")
            .map_err(&fail)?;
        let mut fresh = conn
            .prepare_cached(
                "SELECT f.doc, f.c0, f.c1, f.c2, f.c3, d.l0, d.l1, d.l2, d.l3
                 FROM fresh f JOIN docs d ON d.id = f.doc WHERE f.term = ?1",
            )
            .map_err(&fail)?;
        for term in terms {
            let mut list: Vec<(DocId, FieldCounts)> = Vec::new();
            let blob: Option<Vec<u8>> = base
                .query_row([&term], |r| r.get(0))
                .optional()
                .map_err(&fail)?;
            if let Some(blob) = blob {
                postings::decode(&blob, |p| {
                    if dead.is_empty() || !dead.contains(&p.doc) {
                        list.push((p.doc, p.counts));
                        set_lens(&mut lens, p.doc, p.lens);
                    }
                })
                .ok_or_else(|| IndexError::Damaged {
                    path: index.db.clone(),
                })?;
            }
            let mut rows = fresh.query([&term]).map_err(&fail)?;
            while let Some(row) = rows.next().map_err(&fail)? {
                let get = |i| row.get::<_, u32>(i).map_err(&fail);
                let doc = get(0)?;
                list.push((doc, [get(1)?, get(2)?, get(3)?, get(4)?]));
                set_lens(&mut lens, doc, [get(5)?, get(6)?, get(7)?, get(8)?]);
            }
            if !list.is_sorted_by_key(|p| p.0) {
                list.sort_by_key(|p| p.0);
            }
            postings.insert(term, list);
        }
        Ok(QueryCorpus {
            n,
            totals,
            postings,
            lens,
        })
    }
}

impl Corpus for QueryCorpus {
    fn len(&self) -> usize {
        self.n
    }

    fn total_lens(&self) -> [u64; FIELDS] {
        self.totals
    }

    fn lens(&self, doc: DocId) -> FieldCounts {
        self.lens.get(doc as usize).copied().unwrap_or_default()
    }

    fn postings(&self, term: &str) -> std::borrow::Cow<'_, [(DocId, FieldCounts)]> {
        std::borrow::Cow::Borrowed(self.postings.get(term).map_or(&[][..], Vec::as_slice))
    }
}
