//! A server on a temporary database, and clients on temporary folders.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use memdir_protocol::View;
use memdir_teamserver::{Config, Server, SqliteStore, Store};
use memdir_teamsync::Client;

pub(crate) const ORG: &str = "acme";
pub(crate) const REPO: &str = "acme/widgets";

pub(crate) struct Harness {
    pub(crate) server: Server,
    pub(crate) store: Arc<SqliteStore>,
    pub(crate) token: String,
    _dir: tempfile::TempDir,
}

pub(crate) fn start() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("team.db")).unwrap());
    let token = store.create_token(ORG).unwrap().token;
    let mut config = Config::default();
    config.log_requests = false;
    let server = Server::bind("127.0.0.1:0", store.clone(), config).unwrap();
    Harness {
        server,
        store,
        token,
        _dir: dir,
    }
}

impl Harness {
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.server.local_addr())
    }

    /// A client of this server with a valid token, on `team`.
    pub(crate) fn client(&self, team: &Path) -> Client {
        client_for(&self.url(), team).with_token(Some(self.token.clone()))
    }

    /// What the server stores: key → text.
    pub(crate) fn stored(&self) -> BTreeMap<String, String> {
        self.store
            .get(ORG, REPO, View::Full)
            .unwrap()
            .map(|s| s.entries.unwrap())
            .unwrap_or_default()
    }

    pub(crate) fn version(&self) -> u64 {
        self.store
            .get(ORG, REPO, View::Hashes)
            .unwrap()
            .map_or(0, |s| s.version)
    }
}

/// A client with fast backoff, so that retry tests stay quick.
pub(crate) fn client_for(url: &str, team: &Path) -> Client {
    Client::new(url, team)
        .with_repo(Some(REPO.to_owned()))
        .with_timeout(Duration::from_secs(20))
        .with_backoff(Duration::from_millis(10), Duration::from_millis(50))
}

pub(crate) fn write(team: &Path, key: &str, text: &str) {
    let path = team.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A large team folder: 1,000 memories `k/0000.md`…`k/0999.md` of about
/// 120 bytes each.
pub(crate) fn write_thousand(team: &Path) {
    for i in 0..1_000 {
        write(
            team,
            &format!("k/{i:04}.md"),
            &format!("memory number {i}: {}\n", "lorem ipsum ".repeat(8)),
        );
    }
}

pub(crate) fn read(team: &Path, key: &str) -> String {
    std::fs::read_to_string(team.join(key)).unwrap()
}

impl Harness {
    pub(crate) fn checksum(&self) -> String {
        self.store
            .get(ORG, REPO, View::Hashes)
            .unwrap()
            .unwrap()
            .checksum
    }
}
