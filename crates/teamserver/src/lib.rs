//! A self-hostable team-memory sync server: the server side of memdir's
//! team sync protocol (SPEC R8.1, R9). The protocol — endpoints, query,
//! wire types, error codes, checksums, repository and key rules, default
//! limits — is `memdir_protocol`'s, shared with the client; this crate
//! serves it and keeps it in a database.
//!
//! - [`Server`] — HTTP/1.1 with hyper on a tokio runtime of its own:
//!   `GET/PUT /api/claude_code/team_memory?repo=owner/name[&view=hashes]`
//!   and `GET /healthz`; bearer tokens scoped to one organisation;
//!   `If-Match` with 412 (current hashes in the body) and 428; the size
//!   limits of R8.3 and a cap on entries per repository with 413 ([`Config`]);
//!   keys checked with the client's own text rules, without a file system
//!   ([`memdir_protocol::validate_team_mem_key_text`]), and a new key that
//!   names another's file on macOS or Windows refused with 409
//!   ([`memdir_protocol::fold_team_mem_key`]);
//!   request deadlines; one JSON log line per request, through the `log`
//!   facade ([`REQUEST_LOG_TARGET`]; the crate never prints); a
//!   shutdown that lets requests under way finish ([`ShutdownHandle`],
//!   or SIGTERM/SIGINT with [`Server::run_until_signal`]).
//! - [`Store`] — the storage trait: a read, a check-and-write in one
//!   transaction ([`PutRequest`]), tokens and web-view sessions kept only
//!   as SHA-256 hashes.
//!   [`SqliteStore`] is the embedded backend (one file, WAL, fsync on every
//!   commit, writes waiting together committed together, reads beside the
//!   writer, schema migrated on open).
//! - [`PgStore`] (feature `postgres`, on by default) — the backend for a
//!   PostgreSQL database, which several server processes can share: a
//!   connection pool on a small runtime of its own, the repository row
//!   locked for each write, schema migrated on connect.
//! - A read-only web view for a team's members under [`UI_PREFIX`]
//!   (`/ui/`): a sign-in form that starts a server-side [`Session`] (the
//!   browser keeps only its random id, in an `HttpOnly`, `SameSite=Strict`
//!   cookie; signing out or revoking the token ends it; every form needs
//!   its form token and the server's own origin), a repository's memories by type,
//!   a search with recall's local ranker, and one memory rendered from
//!   markdown with everything of its text escaped, under a
//!   Content-Security-Policy that lets no script run and nothing load.
//! - [`respond`] — the server's answer to one connection's bytes, with no
//!   socket: the same parsing, limits and handlers, for tests and fuzzing.
//!
//! ```
//! use std::sync::Arc;
//! use memdir_teamserver::{Config, Server, SqliteStore, Store};
//!
//! let dir = tempfile::tempdir()?;
//! let store = Arc::new(SqliteStore::open(&dir.path().join("team.db"))?);
//! let token = store.create_token("acme")?; // show token.token once
//! let server = Server::bind("127.0.0.1:0", store, Config::default())?;
//! let url = format!(
//!     "http://{}/api/claude_code/team_memory?repo=owner/name",
//!     server.local_addr()
//! );
//! # let _ = (url, token);
//! server.shutdown();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod api;
mod config;
mod http;
mod offline;
#[cfg(feature = "postgres")]
mod postgres;
mod server;
mod service;
mod session;
mod sqlite;
mod store;
mod token;
mod web;

pub use web::UI_PREFIX;

pub use config::{Config, REQUEST_LOG_TARGET};
pub use offline::respond;
#[cfg(feature = "postgres")]
pub use postgres::PgStore;
pub use server::{ServeError, Server, ShutdownHandle};
pub use sqlite::{SCHEMA_VERSION, SqliteStore};
pub use store::{
    EntryChange, IfMatch, Limits, NewSession, NewToken, PutOutcome, PutRequest, RepoState, Session,
    Store, StoreError,
};
pub use token::TOKEN_PREFIX;
