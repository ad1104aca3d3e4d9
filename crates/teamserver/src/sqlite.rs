//! The embedded backend: one SQLite file (bundled SQLite, so the server
//! does not depend on the system's library).
//!
//! Durability: the journal is a write-ahead log and `synchronous=FULL`
//! makes every commit fsync the log before it returns, so a PUT that was
//! acknowledged survives `kill -9` and power loss. Writes take the write
//! lock at the start of their transaction (`BEGIN IMMEDIATE`), so the
//! precondition read and the write cannot interleave with another writer,
//! even one in another process. The schema version is SQLite's
//! `user_version`; pending migrations run, each in its own transaction,
//! when the file is opened.
//!
//! Group commit: writes go to one writer thread, which takes every write
//! waiting for it, runs each in its own savepoint of one transaction, and
//! commits them together — one fsync for the batch, and each write is
//! answered only once that commit is on disk. A write that fails rolls
//! back its own savepoint, not its neighbours'; a commit that fails fails
//! every write of the batch. Writes are served in arrival order. Reads run
//! on a small pool of their own connections, each read in one snapshot
//! (WAL readers never wait for the writer); an in-memory database, which
//! a second connection could not see, reads through the writer.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use memdir_protocol::View;

use crate::store::{
    NewSession, NewToken, PutOutcome, PutRequest, RepoState, Session, Store, StoreError,
};
use crate::{session, token};

/// The schema, one step per version: `MIGRATIONS[n]` takes version `n` to
/// `n + 1`. Never edit a step that has shipped; add one.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        org TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE repos (
        org TEXT NOT NULL,
        repo TEXT NOT NULL,
        version INTEGER NOT NULL,
        last_modified_ms INTEGER NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (org, repo)
    );
    CREATE TABLE entries (
        org TEXT NOT NULL,
        repo TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (org, repo, key)
    );
",
    "
    ALTER TABLE entries ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE entries ADD COLUMN modified_ms INTEGER NOT NULL DEFAULT 0;
",
    "
    CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        token_id TEXT NOT NULL,
        csrf TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
    );
    CREATE INDEX sessions_by_token ON sessions (token_id);
",
];

/// The newest schema version this server knows.
pub const SCHEMA_VERSION: u32 = 3;

/// A [`Store`] in one SQLite file.
///
/// ```
/// use memdir_teamserver::{SqliteStore, Store};
/// let dir = tempfile::tempdir()?;
/// let store = SqliteStore::open(&dir.path().join("team.db"))?;
/// let token = store.create_token("acme")?;
/// assert_eq!(store.verify_token(&token.token)?.as_deref(), Some("acme"));
/// assert!(store.revoke_token(&token.prefix)?);
/// assert_eq!(store.verify_token(&token.token)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SqliteStore {
    writer: Writer,
    /// `None` for an in-memory database: reads go through the writer.
    readers: Option<Readers>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("readers", &self.readers.as_ref().map(|r| &r.path))
            .finish_non_exhaustive()
    }
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(Box::new(e))
}

/// The most writes one commit carries.
const MAX_BATCH: usize = 128;
/// The most idle read connections kept open.
const MAX_IDLE_READERS: usize = 16;

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, and migrates its
    /// schema to [`SCHEMA_VERSION`].
    ///
    /// `path` must name a regular file (or a symbolic link to one) or
    /// nothing yet: a FIFO, a device, a folder, or a symbolic link to one
    /// of them or to nothing is refused with [`StoreError::NotAFile`]
    /// before SQLite opens it, so that no journal is created beside
    /// `/dev/zero`, say. (`:memory:` and the empty path are SQLite's
    /// in-memory and temporary databases.)
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        check_path(path)?;
        let mut conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(db)?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db)?;
        migrate(&mut conn)?;
        // Only a database in WAL mode (a file) can be read beside the
        // writer; SQLite reports "memory" for an in-memory one.
        let readers = mode.eq_ignore_ascii_case("wal").then(|| Readers {
            path: path.to_path_buf(),
            idle: Mutex::new(Vec::new()),
        });
        Ok(Self {
            writer: Writer::start(conn)?,
            readers,
        })
    }

    /// Runs `f` in the writer's transaction (its own savepoint) and returns
    /// its result once the batch holding it has committed.
    fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel(1);
        let job = Box::new(TypedJob {
            f: Some(f),
            result: None,
            reply,
        });
        self.writer.submit(job)?;
        answer.recv().map_err(|_| StoreError::Poisoned)?
    }

    /// Runs `f` on a read connection, in one snapshot.
    fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let Some(readers) = &self.readers else {
            return self.write(f);
        };
        let conn = readers.take()?;
        let result = (|| {
            let snapshot = conn.unchecked_transaction().map_err(db)?;
            let value = f(&snapshot)?;
            snapshot.finish().map_err(db)?;
            Ok(value)
        })();
        readers.give_back(conn);
        result
    }
}

/// Refuses a database path that names something other than a regular
/// file or nothing.
fn check_path(path: &Path) -> Result<(), StoreError> {
    let refuse = |kind| StoreError::NotAFile {
        path: path.to_path_buf(),
        kind,
    };
    // The metadata of what a symbolic link points to: a link to a FIFO is
    // refused as the FIFO is.
    match std::fs::metadata(path) {
        Ok(meta) => memdir_memtypes::not_a_file(&meta).map_or(Ok(()), |kind| Err(refuse(kind))),
        // Nothing there: a new database, unless a symbolic link points to
        // nothing, which SQLite would follow to create a file elsewhere.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::symlink_metadata(path)
        {
            Ok(_) => Err(refuse("a symbolic link to nothing")),
            Err(_) => Ok(()),
        },
        // A path that cannot be looked at: SQLite says why it cannot open it.
        Err(_) => Ok(()),
    }
}

/// Idle read connections, opened as needed.
struct Readers {
    path: std::path::PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Readers {
    fn take(&self) -> Result<Connection, StoreError> {
        let idle = self.idle.lock().map_err(|_| StoreError::Poisoned)?.pop();
        if let Some(conn) = idle {
            return Ok(conn);
        }
        let conn = Connection::open(&self.path).map_err(db)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(db)?;
        Ok(conn)
    }

    fn give_back(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE_READERS
        {
            idle.push(conn);
        }
    }
}

/// The writer thread and the queue to it.
struct Writer {
    queue: Mutex<Option<mpsc::Sender<Box<dyn Job>>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

/// One write waiting for the writer.
trait Job: Send {
    /// Runs the write inside its savepoint; keeps the result.
    fn run(&mut self, conn: &Connection);
    /// Whether the write failed (its savepoint is rolled back).
    fn failed(&self) -> bool;
    /// Delivers the result once the commit is known.
    fn finish(self: Box<Self>, commit: Result<(), SharedError>);
}

struct TypedJob<T, F> {
    f: Option<F>,
    result: Option<Result<T, StoreError>>,
    reply: mpsc::SyncSender<Result<T, StoreError>>,
}

impl<T, F> Job for TypedJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection) {
        if let Some(f) = self.f.take() {
            self.result = Some(f(conn));
        }
    }

    fn failed(&self) -> bool {
        !matches!(self.result, Some(Ok(_)))
    }

    fn finish(self: Box<Self>, commit: Result<(), SharedError>) {
        let result = match (commit, self.result) {
            (Ok(()), Some(result)) => result,
            (Ok(()), None) => Err(StoreError::Poisoned),
            (Err(e), _) => Err(StoreError::Database(Box::new(e))),
        };
        // The caller may be gone; nothing to tell it then.
        let _ = self.reply.send(result);
    }
}

/// A database error shared by every write of a batch whose commit failed.
#[derive(Debug, Clone)]
struct SharedError(Arc<rusqlite::Error>);

impl std::fmt::Display for SharedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the commit failed: {}", self.0)
    }
}

impl std::error::Error for SharedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl Writer {
    fn start(conn: Connection) -> Result<Self, StoreError> {
        let (queue, jobs) = mpsc::channel::<Box<dyn Job>>();
        let thread = std::thread::Builder::new()
            .name("teamserver-sqlite-writer".to_owned())
            .spawn(move || write_loop(&conn, &jobs))
            .map_err(|e| StoreError::Database(Box::new(e)))?;
        Ok(Self {
            queue: Mutex::new(Some(queue)),
            thread: Mutex::new(Some(thread)),
        })
    }

    fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        let queue = self.queue.lock().map_err(|_| StoreError::Poisoned)?;
        queue
            .as_ref()
            .ok_or(StoreError::Poisoned)?
            .send(job)
            .map_err(|_| StoreError::Poisoned)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Closing the queue ends the writer once it has written what it holds.
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
        if let Ok(mut thread) = self.thread.lock()
            && let Some(thread) = thread.take()
        {
            let _ = thread.join();
        }
    }
}

fn write_loop(conn: &Connection, jobs: &mpsc::Receiver<Box<dyn Job>>) {
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit_batch(conn, batch);
    }
}

/// Runs a batch in one transaction, each write in its savepoint, and
/// answers every write once the commit is known.
fn commit_batch(conn: &Connection, mut batch: Vec<Box<dyn Job>>) {
    let shared = |e: rusqlite::Error| SharedError(Arc::new(e));
    let outcome = (|| {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(shared)?;
        for job in &mut batch {
            if let Err(e) = conn.execute_batch("SAVEPOINT job") {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(shared(e));
            }
            job.run(conn);
            let end = if job.failed() {
                "ROLLBACK TO job; RELEASE job"
            } else {
                "RELEASE job"
            };
            if let Err(e) = conn.execute_batch(end) {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(shared(e));
            }
        }
        if let Err(e) = conn.execute_batch("COMMIT") {
            let _ = conn.execute_batch("ROLLBACK");
            return Err(shared(e));
        }
        Ok(())
    })();
    for job in batch {
        job.finish(outcome.clone());
    }
}

fn user_version(conn: &Connection) -> Result<u32, StoreError> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(db)
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        // Read inside the write lock, so that two servers starting on one
        // file do not both run a step.
        let found = user_version(&tx)?;
        let step = usize::try_from(found).unwrap_or(usize::MAX);
        if step > MIGRATIONS.len() {
            return Err(StoreError::SchemaTooNew {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        let Some(sql) = MIGRATIONS.get(step) else {
            return Ok(());
        };
        tx.execute_batch(sql).map_err(db)?;
        tx.pragma_update(None, "user_version", found + 1)
            .map_err(db)?;
        tx.commit().map_err(db)?;
    }
}

/// The repository row and its entries' checksums, inside a transaction.
fn read_state(
    conn: &Connection,
    org: &str,
    repo: &str,
    view: View,
) -> Result<RepoState, StoreError> {
    let row: Option<(i64, i64, String)> = conn
        .query_row(
            "SELECT version, last_modified_ms, checksum FROM repos WHERE org = ?1 AND repo = ?2",
            params![org, repo],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
        .map_err(db)?;
    let mut state = RepoState::empty(org, repo);
    let Some((version, last_ms, checksum)) = row else {
        return Ok(state);
    };
    state.version = version.cast_unsigned();
    state.last_modified = Timestamp::from_millisecond(last_ms).ok();
    state.checksum = checksum;
    let sql = match view {
        View::Full => {
            "SELECT key, checksum, content, version, modified_ms FROM entries
             WHERE org = ?1 AND repo = ?2"
        }
        View::Hashes => {
            "SELECT key, checksum, NULL, version, modified_ms FROM entries
             WHERE org = ?1 AND repo = ?2"
        }
    };
    let mut stmt = conn.prepare_cached(sql).map_err(db)?;
    let rows = stmt
        .query_map(params![org, repo], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })
        .map_err(db)?;
    let mut entries = BTreeMap::new();
    for row in rows {
        let (key, sum, content, version, modified_ms) = row.map_err(db)?;
        if let Some(content) = content {
            entries.insert(key.clone(), content);
        }
        state.entry_changes.insert(
            key.clone(),
            crate::store::entry_change(version, modified_ms),
        );
        state.entry_checksums.insert(key, sum);
    }
    if view == View::Full {
        state.entries = Some(entries);
    }
    Ok(state)
}

impl Store for SqliteStore {
    fn get(&self, org: &str, repo: &str, view: View) -> Result<Option<RepoState>, StoreError> {
        let (org, repo) = (org.to_owned(), repo.to_owned());
        self.read(move |conn| {
            let state = read_state(conn, &org, &repo, view)?;
            Ok((!state.entry_checksums.is_empty()).then_some(state))
        })
    }

    fn put(&self, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError> {
        let org = request.org.to_owned();
        let repo = request.repo.to_owned();
        let entries = request.entries.clone();
        let if_match = request.if_match.clone();
        let limits = request.limits;
        self.write(move |conn| {
            put_in(
                conn,
                &PutRequest {
                    org: &org,
                    repo: &repo,
                    entries: &entries,
                    if_match: &if_match,
                    limits,
                },
            )
        })
    }

    fn create_token(&self, org: &str) -> Result<NewToken, StoreError> {
        token::check_org(org)?;
        let (secret, id) = token::generate()?;
        let org = org.to_owned();
        self.write(move |conn| {
            conn.execute(
                "INSERT INTO tokens (id, org, hash, created_ms) VALUES (?1, ?2, ?3, ?4)",
                params![
                    id,
                    org,
                    token::hash(&secret),
                    Timestamp::now().as_millisecond()
                ],
            )
            .map_err(db)?;
            Ok(NewToken {
                token: secret,
                prefix: token::prefix_of(&id),
                organization_id: org,
            })
        })
    }

    fn verify_token(&self, token: &str) -> Result<Option<String>, StoreError> {
        let hash = token::hash(token);
        self.read(move |conn| {
            conn.prepare_cached("SELECT org FROM tokens WHERE hash = ?1")
                .map_err(db)?
                .query_row(params![hash], |r| r.get(0))
                .optional()
                .map_err(db)
        })
    }

    fn revoke_token(&self, prefix: &str) -> Result<bool, StoreError> {
        let id = token::id_from_prefix(prefix)
            .ok_or_else(|| StoreError::InvalidTokenPrefix(prefix.to_owned()))?
            .to_owned();
        self.write(move |conn| {
            conn.execute("DELETE FROM sessions WHERE token_id = ?1", params![id])
                .map_err(db)?;
            let n = conn
                .execute("DELETE FROM tokens WHERE id = ?1", params![id])
                .map_err(db)?;
            Ok(n > 0)
        })
    }

    fn create_session(
        &self,
        token: &str,
        expires: Timestamp,
    ) -> Result<Option<NewSession>, StoreError> {
        let (id, csrf) = session::generate()?;
        let token_hash = token::hash(token);
        let now = Timestamp::now().as_millisecond();
        self.write(move |conn| {
            let found: Option<(String, String)> = conn
                .prepare_cached("SELECT id, org FROM tokens WHERE hash = ?1")
                .map_err(db)?
                .query_row(params![token_hash], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
                .map_err(db)?;
            let Some((token_id, org)) = found else {
                return Ok(None);
            };
            conn.execute("DELETE FROM sessions WHERE expires_ms <= ?1", params![now])
                .map_err(db)?;
            conn.execute(
                "INSERT INTO sessions (hash, token_id, csrf, created_ms, expires_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    session::hash(&id),
                    token_id,
                    csrf,
                    now,
                    expires.as_millisecond()
                ],
            )
            .map_err(db)?;
            Ok(Some(NewSession {
                id,
                session: Session {
                    organization_id: org,
                    csrf_token: csrf,
                    expires,
                },
            }))
        })
    }

    fn session(&self, id: &str, now: Timestamp) -> Result<Option<Session>, StoreError> {
        if !session::well_formed(id) {
            return Ok(None);
        }
        let hash = session::hash(id);
        let now = now.as_millisecond();
        let row: Option<(String, String, i64)> = self.read(move |conn| {
            conn.prepare_cached(
                "SELECT t.org, s.csrf, s.expires_ms FROM sessions s
                 JOIN tokens t ON t.id = s.token_id
                 WHERE s.hash = ?1 AND s.expires_ms > ?2",
            )
            .map_err(db)?
            .query_row(params![hash, now], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .map_err(db)
        })?;
        Ok(row.map(|(org, csrf, expires_ms)| Session {
            organization_id: org,
            csrf_token: csrf,
            expires: Timestamp::from_millisecond(expires_ms).unwrap_or(Timestamp::MAX),
        }))
    }

    fn end_session(&self, id: &str) -> Result<bool, StoreError> {
        if !session::well_formed(id) {
            return Ok(false);
        }
        let hash = session::hash(id);
        self.write(move |conn| {
            let n = conn
                .execute("DELETE FROM sessions WHERE hash = ?1", params![hash])
                .map_err(db)?;
            Ok(n > 0)
        })
    }

    fn schema_version(&self) -> Result<u32, StoreError> {
        self.read(user_version)
    }
}

/// A PUT inside the writer's transaction: the precondition, the cap, the
/// upserts and the new repository row.
fn put_in(conn: &Connection, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError> {
    let &PutRequest {
        org, repo, entries, ..
    } = request;
    let mut state = read_state(conn, org, repo, View::Hashes)?;
    if let Some(refused) = request.refusal(&state) {
        return Ok(refused);
    }
    let sums = state.record_write(entries);
    let mut upsert = conn
        .prepare_cached(
            "INSERT INTO entries (org, repo, key, content, checksum, version, modified_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (org, repo, key)
             DO UPDATE SET content = excluded.content, checksum = excluded.checksum,
                 version = CASE WHEN entries.checksum = excluded.checksum
                     THEN entries.version ELSE excluded.version END,
                 modified_ms = CASE WHEN entries.checksum = excluded.checksum
                     THEN entries.modified_ms ELSE excluded.modified_ms END",
        )
        .map_err(db)?;
    let (version, modified_ms) = (state.version.cast_signed(), state.last_modified_ms());
    for ((key, text), sum) in entries.iter().zip(&sums) {
        upsert
            .execute(params![org, repo, key, text, sum, version, modified_ms])
            .map_err(db)?;
    }
    conn.execute(
        "INSERT INTO repos (org, repo, version, last_modified_ms, checksum)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (org, repo) DO UPDATE SET version = excluded.version,
             last_modified_ms = excluded.last_modified_ms, checksum = excluded.checksum",
        params![
            org,
            repo,
            state.version.cast_signed(),
            state.last_modified_ms(),
            state.checksum
        ],
    )
    .map_err(db)?;
    Ok(PutOutcome::Accepted(state))
}

#[cfg(test)]
mod tests;
