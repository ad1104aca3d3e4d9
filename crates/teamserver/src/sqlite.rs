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

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use memdir_protocol::{View, entry_checksum, repo_checksum};

use crate::store::{IfMatch, NewToken, PutOutcome, PutRequest, RepoState, Store, StoreError};
use crate::token;

/// The schema, one step per version: `MIGRATIONS[n]` takes version `n` to
/// `n + 1`. Never edit a step that has shipped; add one.
const MIGRATIONS: &[&str] = &["
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
"];

/// The newest schema version this server knows.
pub const SCHEMA_VERSION: u32 = 1;

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
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Database(Box::new(e))
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, and migrates its
    /// schema to [`SCHEMA_VERSION`].
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let mut conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(db)?;
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db)?;
        migrate(&mut conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
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
        View::Full => "SELECT key, checksum, content FROM entries WHERE org = ?1 AND repo = ?2",
        View::Hashes => "SELECT key, checksum, NULL FROM entries WHERE org = ?1 AND repo = ?2",
    };
    let mut stmt = conn.prepare_cached(sql).map_err(db)?;
    let rows = stmt
        .query_map(params![org, repo], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .map_err(db)?;
    let mut entries = BTreeMap::new();
    for row in rows {
        let (key, sum, content) = row.map_err(db)?;
        if let Some(content) = content {
            entries.insert(key.clone(), content);
        }
        state.entry_checksums.insert(key, sum);
    }
    if view == View::Full {
        state.entries = Some(entries);
    }
    Ok(state)
}

impl Store for SqliteStore {
    fn get(&self, org: &str, repo: &str, view: View) -> Result<Option<RepoState>, StoreError> {
        let conn = self.lock()?;
        let state = read_state(&conn, org, repo, view)?;
        Ok((!state.entry_checksums.is_empty()).then_some(state))
    }

    fn put(&self, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError> {
        let &PutRequest {
            org,
            repo,
            entries,
            if_match,
            limits,
        } = request;
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let mut state = read_state(&tx, org, repo, View::Hashes)?;
        let has_entries = !state.entry_checksums.is_empty();
        match if_match {
            IfMatch::Absent if has_entries => return Ok(PutOutcome::PreconditionRequired(state)),
            IfMatch::Any if !has_entries => return Ok(PutOutcome::PreconditionFailed(state)),
            IfMatch::Checksum(seen) if *seen != state.checksum => {
                return Ok(PutOutcome::PreconditionFailed(state));
            }
            _ => {}
        }
        let added = entries
            .keys()
            .filter(|k| !state.entry_checksums.contains_key(*k))
            .count();
        let would_hold = state.entry_checksums.len() + added;
        if would_hold > limits.max_entries {
            return Ok(PutOutcome::TooManyEntries {
                max_entries: limits.max_entries,
                would_hold,
            });
        }
        {
            let mut upsert = tx
                .prepare_cached(
                    "INSERT INTO entries (org, repo, key, content, checksum)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (org, repo, key)
                     DO UPDATE SET content = excluded.content, checksum = excluded.checksum",
                )
                .map_err(db)?;
            for (key, text) in entries {
                let sum = entry_checksum(text);
                upsert
                    .execute(params![org, repo, key, text, sum])
                    .map_err(db)?;
                state.entry_checksums.insert(key.clone(), sum);
            }
        }
        // Stored to the millisecond; answer with what a later GET will say.
        let now = Timestamp::from_millisecond(Timestamp::now().as_millisecond())
            .unwrap_or(Timestamp::UNIX_EPOCH);
        state.version += 1;
        state.last_modified = Some(now);
        state.checksum = repo_checksum(&state.entry_checksums);
        tx.execute(
            "INSERT INTO repos (org, repo, version, last_modified_ms, checksum)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (org, repo) DO UPDATE SET version = excluded.version,
                 last_modified_ms = excluded.last_modified_ms, checksum = excluded.checksum",
            params![
                org,
                repo,
                state.version.cast_signed(),
                now.as_millisecond(),
                state.checksum
            ],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(PutOutcome::Accepted(state))
    }

    fn create_token(&self, org: &str) -> Result<NewToken, StoreError> {
        token::check_org(org)?;
        let (secret, id) = token::generate()?;
        let conn = self.lock()?;
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
            organization_id: org.to_owned(),
        })
    }

    fn verify_token(&self, token: &str) -> Result<Option<String>, StoreError> {
        let conn = self.lock()?;
        conn.query_row(
            "SELECT org FROM tokens WHERE hash = ?1",
            params![token::hash(token)],
            |r| r.get(0),
        )
        .optional()
        .map_err(db)
    }

    fn revoke_token(&self, prefix: &str) -> Result<bool, StoreError> {
        let id = token::id_from_prefix(prefix)
            .ok_or_else(|| StoreError::InvalidTokenPrefix(prefix.to_owned()))?;
        let conn = self.lock()?;
        let n = conn
            .execute("DELETE FROM tokens WHERE id = ?1", params![id])
            .map_err(db)?;
        Ok(n > 0)
    }

    fn schema_version(&self) -> Result<u32, StoreError> {
        user_version(&*self.lock()?)
    }
}

#[cfg(test)]
mod tests;
