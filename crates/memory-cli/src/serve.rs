//! `memdir serve`: run the team-memory sync server, or manage its tokens.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Args;
use memdir_teamserver::{Config, PgStore, Server, SqliteStore, Store, StoreError};
use serde::Serialize;

use crate::Outcome;
use crate::context::{GlobalArgs, Rejected};
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    memdir serve --db team.db --create-token acme      print a new token for organisation acme (once)\n  \
    memdir serve --db team.db                          serve on 127.0.0.1:8765 until SIGINT/SIGTERM\n  \
    memdir serve --db team.db --bind 0.0.0.0:8765      serve on every interface (an explicit choice)\n  \
    memdir serve --db team.db --revoke-token mdt_1a2b3c4d5e6f7a8b\n  \
    memdir serve --db postgres://memdir:PASSWORD@db.internal:5432/memdir\n  \
    memdir serve --db 'postgresql:///memdir?host=/run/postgresql'   (a unix socket)\n\n\
    Several servers can share one PostgreSQL database; each write locks its\n\
    repository, so they behave as one server. The password is never printed.\n\
    Clients set MEMDIR_TEAM_URL to the server and MEMDIR_TEAM_TOKEN to a token.\n\n\
    A read-only web view for the team's members is at http://ADDRESS/ui/: sign in with\n\
    a token to start a session (12 hours; the browser holds only a random session id in\n\
    an HttpOnly, SameSite=Strict cookie, never the token; add --secure-cookie behind\n\
    TLS), open a repository (owner/name) to see its memories by type, search them, and\n\
    read one. Signing out, or revoking the token, ends the session. Forms posted from\n\
    another site, or without their form token, are refused. Memory text is shown as\n\
    text: no script in it runs and nothing it names is loaded.")]
pub(crate) struct ServeArgs {
    /// The database: a SQLite file (created when missing; anything else
    /// there, such as a FIFO, a device or a folder, is refused with exit
    /// status 3), or a PostgreSQL URL starting with postgres:// or
    /// postgresql:// (the database must exist; its tables are created).
    #[arg(long, value_name = "PATH|URL")]
    db: PathBuf,
    /// The address to listen on; loopback unless you choose otherwise.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    bind: SocketAddr,
    /// Create a bearer token for organisation ORG, print it once and exit.
    #[arg(long, value_name = "ORG", conflicts_with = "revoke_token")]
    create_token: Option<String>,
    /// Revoke the token with this prefix (`mdt_…`, as printed at creation)
    /// and exit.
    #[arg(long, value_name = "PREFIX")]
    revoke_token: Option<String>,
    /// The most entries one repository may hold.
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    max_entries: usize,
    /// Mark the web view's cookies Secure: for a server that members reach
    /// over HTTPS (a TLS proxy in front of it, passing the Host header on),
    /// so that no browser sends a session over plain HTTP; forms are then
    /// accepted only from https pages of the server's own host.
    #[arg(long)]
    secure_cookie: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenJson<'a> {
    organization_id: &'a str,
    token: &'a str,
    prefix: &'a str,
}

/// The PostgreSQL URL in `--db`, if it is one.
fn postgres_url(db: &Path) -> Option<&str> {
    db.to_str()
        .filter(|s| s.starts_with("postgres://") || s.starts_with("postgresql://"))
}

/// The store `--db` names, and how to show it (never with a password).
fn open(db: &Path) -> anyhow::Result<(Arc<dyn Store>, String)> {
    if let Some(url) = postgres_url(db) {
        // A URL that does not parse is not shown at all: it may hold a
        // password. The store's own error says that it does not parse.
        let Some(shown) = PgStore::redact(url) else {
            return Err(PgStore::connect(url).err().map_or_else(
                || anyhow::anyhow!("invalid PostgreSQL URL"),
                anyhow::Error::from,
            ));
        };
        let store = PgStore::connect(url).with_context(|| format!("cannot connect to {shown}"))?;
        return Ok((Arc::new(store), shown));
    }
    let store = match SqliteStore::open(db) {
        Ok(store) => store,
        // A FIFO, a device, a folder: refused before SQLite opened it, so
        // that nothing (a journal beside /dev/zero, say) was created.
        Err(e @ StoreError::NotAFile { .. }) => return Err(Rejected(format!("--db {e}")).into()),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!("cannot open {}", db.display())));
        }
    };
    Ok((Arc::new(store), db.display().to_string()))
}

pub(crate) fn run(args: &ServeArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let (store, db) = open(&args.db)?;
    if let Some(org) = &args.create_token {
        let token = store.create_token(org)?;
        if global.json {
            print_json(&TokenJson {
                organization_id: &token.organization_id,
                token: &token.token,
                prefix: &token.prefix,
            })?;
        } else {
            print(&token.token)?;
        }
        eprintln!(
            "memdir: token for {} created; it is shown only now (revoke it with --revoke-token {})",
            token.organization_id, token.prefix
        );
        return Ok(Outcome::Success);
    }
    if let Some(prefix) = &args.revoke_token {
        if !store.revoke_token(prefix)? {
            bail!("no token with prefix {prefix}");
        }
        print(&format!("revoked {prefix}"))?;
        return Ok(Outcome::Success);
    }
    let mut config = Config::default();
    config.max_entries = args.max_entries;
    config.secure_cookies = args.secure_cookie;
    let server = Server::bind(args.bind, store, config)?;
    let addr = server.local_addr();
    if !addr.ip().is_loopback() {
        eprintln!(
            "memdir: warning: listening on {addr}, reachable from other machines; put TLS in front of it"
        );
    }
    server.run_until_signal(|addr| {
        eprintln!("memdir: serving team memory on http://{addr} from {db} (stop with Ctrl-C)");
    })?;
    eprintln!("memdir: stopped");
    Ok(Outcome::Success)
}
