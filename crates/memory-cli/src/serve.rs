//! `memdir serve`: run the team-memory sync server, or manage its tokens.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use clap::Args;
use memdir_teamserver::{Config, Server, SqliteStore, Store};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    memdir serve --db team.db --create-token acme      print a new token for organisation acme (once)\n  \
    memdir serve --db team.db                          serve on 127.0.0.1:8765 until SIGINT/SIGTERM\n  \
    memdir serve --db team.db --bind 0.0.0.0:8765      serve on every interface (an explicit choice)\n  \
    memdir serve --db team.db --revoke-token mdt_1a2b3c4d5e6f7a8b\n\n\
    Clients set MEMDIR_TEAM_URL to the server and MEMDIR_TEAM_TOKEN to a token.")]
pub(crate) struct ServeArgs {
    /// The SQLite database file (created when missing).
    #[arg(long, value_name = "PATH")]
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
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenJson<'a> {
    organization_id: &'a str,
    token: &'a str,
    prefix: &'a str,
}

pub(crate) fn run(args: &ServeArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let store = SqliteStore::open(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
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
    let server = Server::bind(args.bind, Arc::new(store), config)?;
    let addr = server.local_addr();
    if !addr.ip().is_loopback() {
        eprintln!(
            "memdir: warning: listening on {addr}, reachable from other machines; put TLS in front of it"
        );
    }
    let db = args.db.display().to_string();
    server.run_until_signal(|addr| {
        eprintln!("memdir: serving team memory on http://{addr} from {db} (stop with Ctrl-C)");
    })?;
    eprintln!("memdir: stopped");
    Ok(Outcome::Success)
}
