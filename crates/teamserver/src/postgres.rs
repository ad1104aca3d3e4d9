//! The database-server backend: PostgreSQL through `tokio-postgres`, with
//! a `deadpool-postgres` pool, for one or several server processes over
//! one database.
//!
//! The [`Store`] trait is synchronous; the store owns a small tokio
//! runtime and each method blocks on it, so it may be called from plain
//! threads and from the blocking threads (`spawn_blocking`) of another
//! runtime, never from inside an async task.
//!
//! Concurrency: [`Store::put`] first inserts the repository row if it is
//! absent, then locks it with `SELECT … FOR UPDATE`; the precondition read,
//! the entry cap and the write follow in the same transaction. Two writers
//! of one repository — threads of one server or different server
//! processes — therefore take turns, first writes to a new repository
//! included (the second insert waits on the first one's uncommitted row).
//! Reads run in one read-only `REPEATABLE READ` transaction, so the
//! repository row and its entries come from one snapshot. Durability is
//! PostgreSQL's: a commit returns once its WAL is flushed (with the default
//! `synchronous_commit = on`).
//!
//! Schema: a one-row table `memdir_schema` holds the version; on connect,
//! pending migrations run, each in its own transaction under a
//! transaction-level advisory lock, so servers starting together do not
//! both run a step. Entry text is stored as UTF-8 `bytea`, because
//! PostgreSQL's `text` cannot hold the NUL character that JSON (and the
//! SQLite backend) can.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod};
use jiff::Timestamp;
use tokio_postgres::{IsolationLevel, NoTls};

use memdir_protocol::{View, repo_checksum};

use crate::store::{
    NewSession, NewToken, PutOutcome, PutRequest, RepoState, Session, Store, StoreError,
};
use crate::{session, token};

/// The schema, one step per version: `MIGRATIONS[n]` takes version `n` to
/// `n + 1`. Never edit a step that has shipped; add one. The version is
/// the same number as the SQLite backend's for the same tables.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE memdir_tokens (
        id TEXT PRIMARY KEY,
        org TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        created_ms BIGINT NOT NULL
    );
    CREATE TABLE memdir_repos (
        org TEXT NOT NULL,
        repo TEXT NOT NULL,
        version BIGINT NOT NULL,
        last_modified_ms BIGINT,
        checksum TEXT NOT NULL,
        PRIMARY KEY (org, repo)
    );
    CREATE TABLE memdir_entries (
        org TEXT NOT NULL,
        repo TEXT NOT NULL,
        key TEXT NOT NULL,
        content BYTEA NOT NULL,
        checksum TEXT NOT NULL,
        PRIMARY KEY (org, repo, key)
    );
",
    "
    ALTER TABLE memdir_entries
        ADD COLUMN version BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN modified_ms BIGINT NOT NULL DEFAULT 0;
",
    "
    CREATE TABLE memdir_sessions (
        hash TEXT PRIMARY KEY,
        token_id TEXT NOT NULL,
        csrf TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        expires_ms BIGINT NOT NULL
    );
    CREATE INDEX memdir_sessions_by_token ON memdir_sessions (token_id);
",
];

/// The newest schema version this backend knows.
const SCHEMA_VERSION: u32 = 3;

/// The advisory lock that migrations hold: a fixed number, `memdir` in
/// ASCII and a 1.
const MIGRATION_LOCK: i64 = 0x6d65_6d64_6972_0001;

/// At most this many connections per store.
const POOL_SIZE: usize = 16;

/// How long a caller waits for a free connection, and for a new one.
const POOL_TIMEOUT: Duration = Duration::from_secs(30);

/// A [`Store`] in a PostgreSQL database.
///
/// Its methods block on the store's own runtime: call them from plain
/// threads or from `tokio::task::spawn_blocking`, not from inside an async
/// task (tokio panics there). Dropping it is fine anywhere.
///
/// ```no_run
/// use memdir_teamserver::{PgStore, Store};
/// let store = PgStore::connect("postgres://memdir@127.0.0.1:5432/memdir")?;
/// let token = store.create_token("acme")?;
/// assert_eq!(store.verify_token(&token.token)?.as_deref(), Some("acme"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PgStore {
    /// Taken in `drop`, which shuts it down without blocking: the last
    /// handle to a store may be dropped inside another runtime's task.
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    target: String,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A connection string that does not parse. Its text is not repeated: it
/// may hold a password.
#[derive(Debug, thiserror::Error)]
#[error(
    "invalid PostgreSQL connection string (expected postgres://user[:password]@host[:port]/dbname \
     or key=value pairs such as host=/run/postgresql dbname=memdir)"
)]
struct InvalidConnectionString;

/// Building the pool failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the PostgreSQL connection pool")]
struct PoolBuild(#[source] deadpool_postgres::BuildError);

fn db<E: std::error::Error + Send + Sync + 'static>(e: E) -> StoreError {
    StoreError::Database(Box::new(e))
}

fn parse(url: &str) -> Result<tokio_postgres::Config, StoreError> {
    tokio_postgres::Config::from_str(url).map_err(|_| db(InvalidConnectionString))
}

/// `postgres://user@host:port/dbname` for a parsed configuration, without
/// its password.
fn describe(config: &tokio_postgres::Config) -> String {
    let mut out = String::from("postgres://");
    if let Some(user) = config.get_user() {
        let _ = write!(out, "{user}@");
    }
    let ports = config.get_ports();
    for (i, host) in config.get_hosts().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match host {
            tokio_postgres::config::Host::Tcp(name) => out.push_str(name),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => {
                let _ = write!(out, "[{}]", path.display());
            }
        }
        if let Some(port) = ports.get(i).or_else(|| ports.first()) {
            let _ = write!(out, ":{port}");
        }
    }
    if let Some(dbname) = config.get_dbname() {
        let _ = write!(out, "/{dbname}");
    }
    out
}

impl PgStore {
    /// Connects to the database named by `url`, and migrates its schema.
    ///
    /// `url` is a PostgreSQL connection string: a URL
    /// (`postgres://user:password@host:port/dbname`, `postgresql://…`, a
    /// unix socket folder as `?host=/run/postgresql` or percent-encoded as
    /// the host) or `key=value` pairs (`host=/run/postgresql port=5432
    /// user=memdir dbname=memdir`). Connections are made without TLS: use
    /// a unix socket or a trusted network. A connection string that does
    /// not parse is an error that does not repeat it; no error names the
    /// password.
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        let config = parse(url)?;
        let target = describe(&config);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("memdir-pg")
            .enable_all()
            .build()
            .map_err(db)?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(POOL_TIMEOUT))
            .create_timeout(Some(POOL_TIMEOUT))
            .recycle_timeout(Some(POOL_TIMEOUT))
            .build()
            .map_err(|e| db(PoolBuild(e)))?;
        let store = Self {
            runtime: Some(runtime),
            pool,
            target,
        };
        store.block_on(migrate(&store.pool))?;
        log::debug!("connected to {}", store.target);
        Ok(store)
    }

    /// The database this store is connected to, as
    /// `postgres://user@host:port/dbname`, without a password: fit for
    /// logs and messages.
    #[must_use]
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The connection string `url` as [`PgStore::target`] would show it,
    /// without its password; `None` if it does not parse.
    #[must_use]
    pub fn redact(url: &str) -> Option<String> {
        parse(url).ok().map(|config| describe(&config))
    }

    fn block_on<T>(
        &self,
        work: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        self.runtime
            .as_ref()
            .expect("the runtime is only taken by drop")
            .block_on(work)
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn client(pool: &Pool) -> Result<deadpool_postgres::Object, StoreError> {
    pool.get().await.map_err(db)
}

async fn read_version(client: &impl GenericClient) -> Result<u32, StoreError> {
    let row = client
        .query_one("SELECT version FROM memdir_schema", &[])
        .await
        .map_err(db)?;
    let version: i32 = row.get(0);
    // A negative version is no version this server wrote; treat it as
    // unknown and newer.
    Ok(u32::try_from(version).unwrap_or(u32::MAX))
}

async fn migrate(pool: &Pool) -> Result<(), StoreError> {
    let mut client = client(pool).await?;
    loop {
        let tx = client.transaction().await.map_err(db)?;
        // Taken first, so that two servers starting on one database do not
        // both create the table or run a step.
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(db)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS memdir_schema (
                 one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
                 version INTEGER NOT NULL
             );
             INSERT INTO memdir_schema (one, version) VALUES (TRUE, 0) ON CONFLICT DO NOTHING;",
        )
        .await
        .map_err(db)?;
        let found = read_version(&tx).await?;
        let step = usize::try_from(found).unwrap_or(usize::MAX);
        if step > MIGRATIONS.len() {
            return Err(StoreError::SchemaTooNew {
                found,
                supported: SCHEMA_VERSION,
            });
        }
        let Some(sql) = MIGRATIONS.get(step) else {
            tx.commit().await.map_err(db)?;
            return Ok(());
        };
        tx.batch_execute(sql).await.map_err(db)?;
        let next = i32::try_from(found + 1).expect("MIGRATIONS is short");
        tx.execute("UPDATE memdir_schema SET version = $1", &[&next])
            .await
            .map_err(db)?;
        tx.commit().await.map_err(db)?;
        log::info!("database schema migrated to version {next}");
    }
}

/// The repository row and its entries' checksums (and texts, for
/// [`View::Full`]), inside a transaction.
async fn read_state(
    tx: &impl GenericClient,
    org: &str,
    repo: &str,
    view: View,
    for_update: bool,
) -> Result<RepoState, StoreError> {
    let sql = if for_update {
        "SELECT version, last_modified_ms, checksum FROM memdir_repos
         WHERE org = $1 AND repo = $2 FOR UPDATE"
    } else {
        "SELECT version, last_modified_ms, checksum FROM memdir_repos
         WHERE org = $1 AND repo = $2"
    };
    let row = tx.query_opt(sql, &[&org, &repo]).await.map_err(db)?;
    let mut state = RepoState::empty(org, repo);
    let Some(row) = row else {
        return Ok(state);
    };
    let version: i64 = row.get(0);
    let last_ms: Option<i64> = row.get(1);
    state.version = version.cast_unsigned();
    state.last_modified = last_ms.and_then(|ms| Timestamp::from_millisecond(ms).ok());
    state.checksum = row.get(2);
    let sql = match view {
        View::Full => {
            "SELECT key, checksum, content, version, modified_ms FROM memdir_entries
             WHERE org = $1 AND repo = $2"
        }
        View::Hashes => {
            "SELECT key, checksum, NULL::bytea, version, modified_ms FROM memdir_entries
             WHERE org = $1 AND repo = $2"
        }
    };
    let statement = tx.prepare_cached(sql).await.map_err(db)?;
    let rows = tx.query(&statement, &[&org, &repo]).await.map_err(db)?;
    let mut entries = BTreeMap::new();
    for row in rows {
        let key: String = row.get(0);
        let sum: String = row.get(1);
        if let Some(content) = row.get::<_, Option<Vec<u8>>>(2) {
            entries.insert(key.clone(), String::from_utf8(content).map_err(db)?);
        }
        let change = crate::store::entry_change(row.get(3), row.get(4));
        state.entry_changes.insert(key.clone(), change);
        state.entry_checksums.insert(key, sum);
    }
    if view == View::Full {
        state.entries = Some(entries);
    }
    Ok(state)
}

async fn get(pool: &Pool, org: &str, repo: &str, view: View) -> Result<RepoState, StoreError> {
    let mut client = client(pool).await?;
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(db)?;
    let state = read_state(&tx, org, repo, view, false).await?;
    tx.commit().await.map_err(db)?;
    Ok(state)
}

async fn put(pool: &Pool, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError> {
    let &PutRequest {
        org, repo, entries, ..
    } = request;
    let mut client = client(pool).await?;
    let tx = client.transaction().await.map_err(db)?;
    // The row to lock: a new repository's first writers wait on each
    // other here. It is rolled back with the transaction if the PUT fails.
    let empty = repo_checksum(&BTreeMap::new());
    tx.execute(
        "INSERT INTO memdir_repos (org, repo, version, last_modified_ms, checksum)
         VALUES ($1, $2, 0, NULL, $3) ON CONFLICT (org, repo) DO NOTHING",
        &[&org, &repo, &empty],
    )
    .await
    .map_err(db)?;
    let mut state = read_state(&tx, org, repo, View::Hashes, true).await?;
    if let Some(outcome) = request.refusal(&state) {
        tx.rollback().await.map_err(db)?;
        return Ok(outcome);
    }
    let sums = state.record_write(entries);
    let upsert = tx
        .prepare_cached(
            "INSERT INTO memdir_entries (org, repo, key, content, checksum, version, modified_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (org, repo, key)
             DO UPDATE SET content = excluded.content, checksum = excluded.checksum,
                 version = CASE WHEN memdir_entries.checksum = excluded.checksum
                     THEN memdir_entries.version ELSE excluded.version END,
                 modified_ms = CASE WHEN memdir_entries.checksum = excluded.checksum
                     THEN memdir_entries.modified_ms ELSE excluded.modified_ms END",
        )
        .await
        .map_err(db)?;
    let (version, modified_ms) = (state.version.cast_signed(), state.last_modified_ms());
    for ((key, text), sum) in entries.iter().zip(&sums) {
        tx.execute(
            &upsert,
            &[
                &org,
                &repo,
                key,
                &text.as_bytes(),
                sum,
                &version,
                &modified_ms,
            ],
        )
        .await
        .map_err(db)?;
    }
    tx.execute(
        "UPDATE memdir_repos SET version = $3, last_modified_ms = $4, checksum = $5
         WHERE org = $1 AND repo = $2",
        &[
            &org,
            &repo,
            &state.version.cast_signed(),
            &state.last_modified_ms(),
            &state.checksum,
        ],
    )
    .await
    .map_err(db)?;
    tx.commit().await.map_err(db)?;
    Ok(PutOutcome::Accepted(state))
}

impl Store for PgStore {
    fn get(&self, org: &str, repo: &str, view: View) -> Result<Option<RepoState>, StoreError> {
        let state = self.block_on(get(&self.pool, org, repo, view))?;
        Ok((!state.entry_checksums.is_empty()).then_some(state))
    }

    fn put(&self, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError> {
        self.block_on(put(&self.pool, request))
    }

    fn create_token(&self, org: &str) -> Result<NewToken, StoreError> {
        token::check_org(org)?;
        let (secret, id) = token::generate()?;
        let hash = token::hash(&secret);
        let created = Timestamp::now().as_millisecond();
        self.block_on(async {
            client(&self.pool)
                .await?
                .execute(
                    "INSERT INTO memdir_tokens (id, org, hash, created_ms) VALUES ($1, $2, $3, $4)",
                    &[&id, &org, &hash, &created],
                )
                .await
                .map_err(db)
        })?;
        Ok(NewToken {
            token: secret,
            prefix: token::prefix_of(&id),
            organization_id: org.to_owned(),
        })
    }

    fn verify_token(&self, token: &str) -> Result<Option<String>, StoreError> {
        let hash = token::hash(token);
        self.block_on(async {
            let row = client(&self.pool)
                .await?
                .query_opt("SELECT org FROM memdir_tokens WHERE hash = $1", &[&hash])
                .await
                .map_err(db)?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn revoke_token(&self, prefix: &str) -> Result<bool, StoreError> {
        let id = token::id_from_prefix(prefix)
            .ok_or_else(|| StoreError::InvalidTokenPrefix(prefix.to_owned()))?;
        self.block_on(async {
            let mut client = client(&self.pool).await?;
            let tx = client.transaction().await.map_err(db)?;
            tx.execute("DELETE FROM memdir_sessions WHERE token_id = $1", &[&id])
                .await
                .map_err(db)?;
            let n = tx
                .execute("DELETE FROM memdir_tokens WHERE id = $1", &[&id])
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)?;
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
        let id_hash = session::hash(&id);
        let now = Timestamp::now().as_millisecond();
        let expires_ms = expires.as_millisecond();
        let org = self.block_on(async {
            let mut client = client(&self.pool).await?;
            let tx = client.transaction().await.map_err(db)?;
            let Some(row) = tx
                .query_opt(
                    "SELECT id, org FROM memdir_tokens WHERE hash = $1",
                    &[&token_hash],
                )
                .await
                .map_err(db)?
            else {
                return Ok(None);
            };
            let (token_id, org): (String, String) = (row.get(0), row.get(1));
            tx.execute(
                "DELETE FROM memdir_sessions WHERE expires_ms <= $1",
                &[&now],
            )
            .await
            .map_err(db)?;
            // A token that another server revokes between the lookup and
            // the insert leaves a row no lookup finds: every lookup joins
            // the token's row.
            tx.execute(
                "INSERT INTO memdir_sessions (hash, token_id, csrf, created_ms, expires_ms)
                 VALUES ($1, $2, $3, $4, $5)",
                &[&id_hash, &token_id, &csrf, &now, &expires_ms],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Some(org))
        })?;
        Ok(org.map(|organization_id| NewSession {
            id,
            session: Session {
                organization_id,
                csrf_token: csrf,
                expires,
            },
        }))
    }

    fn session(&self, id: &str, now: Timestamp) -> Result<Option<Session>, StoreError> {
        if !session::well_formed(id) {
            return Ok(None);
        }
        let hash = session::hash(id);
        let now = now.as_millisecond();
        let row = self.block_on(async {
            client(&self.pool)
                .await?
                .query_opt(
                    "SELECT t.org, s.csrf, s.expires_ms FROM memdir_sessions s
                     JOIN memdir_tokens t ON t.id = s.token_id
                     WHERE s.hash = $1 AND s.expires_ms > $2",
                    &[&hash, &now],
                )
                .await
                .map_err(db)
        })?;
        Ok(row.map(|r| Session {
            organization_id: r.get(0),
            csrf_token: r.get(1),
            expires: Timestamp::from_millisecond(r.get(2)).unwrap_or(Timestamp::MAX),
        }))
    }

    fn end_session(&self, id: &str) -> Result<bool, StoreError> {
        if !session::well_formed(id) {
            return Ok(false);
        }
        let hash = session::hash(id);
        self.block_on(async {
            let n = client(&self.pool)
                .await?
                .execute("DELETE FROM memdir_sessions WHERE hash = $1", &[&hash])
                .await
                .map_err(db)?;
            Ok(n > 0)
        })
    }

    fn schema_version(&self) -> Result<u32, StoreError> {
        self.block_on(async { read_version(&client(&self.pool).await?).await })
    }
}

#[cfg(test)]
mod tests;
