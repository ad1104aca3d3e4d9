//! The storage trait: what the HTTP layer needs from a database, and
//! nothing of how it is kept.
//!
//! Every method is a whole unit of work. In particular [`Store::put`]
//! checks the precondition, the limits and writes in one transaction, so
//! that two racing writers cannot both succeed against the same checksum:
//! SQLite's backend takes the write lock with `BEGIN IMMEDIATE`, the
//! PostgreSQL backend locks the repository row with `SELECT … FOR UPDATE`
//! (inserting it first if it is absent), which also serialises writers in
//! different server processes.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::PathBuf;

use jiff::Timestamp;
use memdir_protocol::{View, fold_team_mem_key};

/// A repository as stored: the data of an R8.1 response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoState {
    /// The organisation that owns it.
    pub organization_id: String,
    /// `owner/name`.
    pub repo: String,
    /// The number of accepted PUTs; 0 for a repository never written.
    pub version: u64,
    /// When the last accepted PUT committed; `None` if there was none.
    pub last_modified: Option<Timestamp>,
    /// The whole-repository checksum (R8.1).
    pub checksum: String,
    /// Key → entry checksum, for every entry.
    pub entry_checksums: BTreeMap<String, String>,
    /// Key → text, for a full read ([`View::Full`]); `None` for
    /// [`View::Hashes`].
    pub entries: Option<BTreeMap<String, String>>,
    /// Key → when the entry last changed: for a read, every entry; for
    /// an accepted write, the entries it wrote.
    pub entry_changes: BTreeMap<String, EntryChange>,
}

/// When one entry last changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryChange {
    /// The repository version whose write last changed the entry's text;
    /// 0 when that was before this was recorded.
    pub version: u64,
    /// When that write committed; `None` when not recorded.
    pub modified: Option<Timestamp>,
}

impl RepoState {
    /// The state of a repository that holds nothing.
    #[must_use]
    pub fn empty(organization_id: &str, repo: &str) -> Self {
        Self {
            organization_id: organization_id.to_owned(),
            repo: repo.to_owned(),
            version: 0,
            last_modified: None,
            checksum: memdir_protocol::repo_checksum(&BTreeMap::new()),
            entry_checksums: BTreeMap::new(),
            entries: None,
            entry_changes: BTreeMap::new(),
        }
    }
}

/// The limits a write must respect, checked inside the write's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most entries one repository may hold after the write.
    pub max_entries: usize,
}

/// One PUT, as a store sees it: where, what, and the conditions it must
/// meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PutRequest<'a> {
    /// The organisation of the caller's token.
    pub org: &'a str,
    /// `owner/name`.
    pub repo: &'a str,
    /// Key → text, to upsert.
    pub entries: &'a BTreeMap<String, String>,
    /// The precondition.
    pub if_match: &'a IfMatch,
    /// The limits the repository must respect after the write.
    pub limits: Limits,
}

impl PutRequest<'_> {
    /// What a store answers instead of writing, given the repository's
    /// current state (hashes view, read inside the write's transaction):
    /// the precondition first, then a new key that names another's file,
    /// then the entry cap. `None`: write.
    ///
    /// Every backend decides with this one function, so that they refuse
    /// alike.
    #[must_use]
    pub fn refusal(&self, current: &RepoState) -> Option<PutOutcome> {
        let has_entries = !current.entry_checksums.is_empty();
        match self.if_match {
            IfMatch::Absent if has_entries => {
                return Some(PutOutcome::PreconditionRequired(current.clone()));
            }
            IfMatch::Any if !has_entries => {
                return Some(PutOutcome::PreconditionFailed(current.clone()));
            }
            IfMatch::Checksum(seen) if *seen != current.checksum => {
                return Some(PutOutcome::PreconditionFailed(current.clone()));
            }
            _ => {}
        }
        if let Some(collision) = self.collision(current) {
            return Some(collision);
        }
        let added = self
            .entries
            .keys()
            .filter(|k| !current.entry_checksums.contains_key(*k))
            .count();
        let would_hold = current.entry_checksums.len() + added;
        (would_hold > self.limits.max_entries).then_some(PutOutcome::TooManyEntries {
            max_entries: self.limits.max_entries,
            would_hold,
        })
    }

    /// The first new key (in key order) whose folded form
    /// ([`memdir_protocol::fold_team_mem_key`]) is that of another key:
    /// one the repository holds, or an earlier new key of this request. On
    /// macOS and Windows the two would be one file. A key the repository
    /// already holds is never refused for this, so that data written
    /// before the rule keeps working.
    fn collision(&self, current: &RepoState) -> Option<PutOutcome> {
        let held = &current.entry_checksums;
        // Most writes only update keys the repository holds: fold nothing.
        if self.entries.keys().all(|k| held.contains_key(k)) {
            return None;
        }
        let mut folded: HashMap<String, &str> = HashMap::with_capacity(held.len());
        for key in held.keys() {
            // Of a pair held from before the rule, the first names it.
            folded.entry(fold_team_mem_key(key)).or_insert(key);
        }
        for key in self.entries.keys().filter(|k| !held.contains_key(*k)) {
            match folded.entry(fold_team_mem_key(key)) {
                Entry::Occupied(other) => {
                    return Some(PutOutcome::KeyCollision {
                        key: key.clone(),
                        existing: (*other.get()).to_owned(),
                    });
                }
                Entry::Vacant(slot) => {
                    slot.insert(key);
                }
            }
        }
        None
    }
}

impl RepoState {
    /// The state after an accepted write of `entries`: their checksums
    /// recorded, the version counted, the time stamped (to the
    /// millisecond, as stored, so that the answer says what a later read
    /// will) and the repository checksum recomputed. Returns the written
    /// entries' checksums, in the order of `entries`, for the rows.
    pub fn record_write(&mut self, entries: &BTreeMap<String, String>) -> Vec<String> {
        let sums: Vec<String> = entries
            .iter()
            .map(|(key, text)| {
                let sum = memdir_protocol::entry_checksum(text);
                self.entry_checksums.insert(key.clone(), sum.clone());
                sum
            })
            .collect();
        self.version += 1;
        let now = Timestamp::from_millisecond(Timestamp::now().as_millisecond())
            .unwrap_or(Timestamp::UNIX_EPOCH);
        self.last_modified = Some(now);
        self.entry_changes = entries
            .keys()
            .map(|key| {
                let change = EntryChange {
                    version: self.version,
                    modified: Some(now),
                };
                (key.clone(), change)
            })
            .collect();
        self.checksum = memdir_protocol::repo_checksum(&self.entry_checksums);
        sums
    }

    /// [`RepoState::last_modified`] as stored: milliseconds since the
    /// epoch (0 when never written).
    #[must_use]
    pub fn last_modified_ms(&self) -> i64 {
        self.last_modified.map_or(0, Timestamp::as_millisecond)
    }
}

/// An [`EntryChange`] from its stored columns (0 for either: not recorded).
pub(crate) fn entry_change(version: i64, modified_ms: i64) -> EntryChange {
    EntryChange {
        version: version.cast_unsigned(),
        modified: (modified_ms > 0)
            .then(|| Timestamp::from_millisecond(modified_ms).ok())
            .flatten(),
    }
}

/// The precondition a PUT carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfMatch {
    /// No `If-Match` header: allowed only while the repository is empty.
    Absent,
    /// `If-Match: *`: any state, as long as the repository has entries.
    Any,
    /// The checksum the client last saw.
    Checksum(String),
}

/// What became of a PUT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PutOutcome {
    /// Written; the new state (hashes view).
    Accepted(RepoState),
    /// The `If-Match` checksum is not the current one; the current state
    /// (hashes view), so that the client can recompute at once.
    PreconditionFailed(RepoState),
    /// No `If-Match`, and the repository already has entries; its current
    /// state (hashes view).
    PreconditionRequired(RepoState),
    /// A new key names the same file as another key on a case-insensitive
    /// file system ([`memdir_protocol::fold_team_mem_key`]).
    KeyCollision {
        /// The new key, refused.
        key: String,
        /// The other key: one the repository holds, or a new key of the
        /// same request that comes before it in key order.
        existing: String,
    },
    /// The write would leave more entries than [`Limits::max_entries`].
    TooManyEntries {
        /// The cap.
        max_entries: usize,
        /// How many entries the repository would have held.
        would_hold: usize,
    },
}

/// A token as created: the secret is shown once and never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    /// The whole bearer token; only its SHA-256 is stored.
    pub token: String,
    /// Its public prefix (`mdt_` and an id), enough to revoke it.
    pub prefix: String,
    /// The organisation it belongs to.
    pub organization_id: String,
}

/// A web-view session, as stored: who it is for, the token its forms
/// carry, and when it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The organisation of the token the session was started with.
    pub organization_id: String,
    /// The session's form token: every form the session posts carries it
    /// (a hidden field), so that a page of another site cannot post one.
    pub csrf_token: String,
    /// When the session ends, however it is used until then.
    pub expires: Timestamp,
}

/// A session as started: its id is shown once (in the session cookie);
/// only the id's SHA-256 is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    /// The session id, `mds_` and 64 hex digits: the cookie's value. It is
    /// no bearer token: the API refuses it.
    pub id: String,
    /// The session.
    pub session: Session,
}

/// Errors of a storage backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database failed.
    #[error("database error")]
    Database(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The database was written by a newer server.
    #[error("database schema version {found} is newer than this server's {supported}")]
    SchemaTooNew {
        /// The version found in the database.
        found: u32,
        /// The newest version this server knows.
        supported: u32,
    },
    /// An organisation name that cannot be used.
    #[error("invalid organisation name {0:?}")]
    InvalidOrganization(String),
    /// A token prefix that names no token shape.
    #[error("invalid token prefix {0:?}")]
    InvalidTokenPrefix(String),
    /// The operating system gave no random bytes for a token.
    #[error("no randomness for a new token: {0}")]
    Random(String),
    /// A lock was poisoned by a panic elsewhere.
    #[error("storage lock poisoned")]
    Poisoned,
    /// The database path names something other than a regular file (a
    /// FIFO, a device, a folder, or a symbolic link to one of them or to
    /// nothing): SQLite would block on it, fail on it, or create its
    /// journal beside it.
    #[error("{}: it is {kind}, not a regular file (a database is a regular file or a new one)", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is: `a FIFO`, `a device`, `a folder`, `a symbolic link
        /// to nothing`, ….
        kind: &'static str,
    },
}

/// A team-memory database. Implementations are shared between worker
/// threads.
pub trait Store: Send + Sync {
    /// Reads a repository of an organisation; `None` when it has no
    /// entries (never written, or written only with empty PUTs).
    fn get(&self, org: &str, repo: &str, view: View) -> Result<Option<RepoState>, StoreError>;

    /// Upserts a request's entries into its repository, in one
    /// transaction with the `if_match` check and the entry cap.
    fn put(&self, request: &PutRequest<'_>) -> Result<PutOutcome, StoreError>;

    /// Creates a token for an organisation.
    fn create_token(&self, org: &str) -> Result<NewToken, StoreError>;

    /// The organisation a bearer token belongs to, or `None` for an unknown
    /// or revoked token.
    fn verify_token(&self, token: &str) -> Result<Option<String>, StoreError>;

    /// Revokes the token with this prefix (or the whole token), and ends
    /// the web-view sessions started with it; whether a token was revoked.
    fn revoke_token(&self, prefix: &str) -> Result<bool, StoreError>;

    /// Starts a web-view session for a bearer token, ending at `expires`;
    /// `None` for an unknown or revoked token. The session belongs to the
    /// token: revoking the token ends it. Sessions that have ended by now
    /// are deleted on the way.
    fn create_session(
        &self,
        token: &str,
        expires: Timestamp,
    ) -> Result<Option<NewSession>, StoreError>;

    /// The session with this id, if it is live at `now`: `None` when the
    /// id is unknown, the session was ended or has expired, or its token
    /// was revoked.
    fn session(&self, id: &str, now: Timestamp) -> Result<Option<Session>, StoreError>;

    /// Ends the session with this id (signing out); whether there was one.
    fn end_session(&self, id: &str) -> Result<bool, StoreError>;

    /// The schema version of the open database.
    fn schema_version(&self) -> Result<u32, StoreError>;
}
