//! A server on a temporary database, and a small HTTP client for it.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use memdir_teamserver::{Config, Server, SqliteStore, Store};
use serde_json::Value;

pub(crate) struct Harness {
    pub(crate) server: Server,
    pub(crate) store: Arc<dyn Store>,
    pub(crate) agent: ureq::Agent,
    /// What keeps the database alive (a temporary folder, a test
    /// database); dropped last.
    _keep: Box<dyn Any + Send + Sync>,
}

/// A reply: status, `ETag` header, JSON body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) etag: Option<String>,
    pub(crate) body: Value,
}

/// The repository checksum of these entries (key, text), as the server
/// must compute it.
pub(crate) fn checksum_of(pairs: &[(&str, &str)]) -> String {
    memdir_protocol::repo_checksum(
        &pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), memdir_protocol::entry_checksum(v)))
            .collect(),
    )
}

pub(crate) fn quiet() -> Config {
    let mut config = Config::default();
    config.log_requests = false;
    config
}

/// A server on a fresh SQLite file.
pub(crate) fn start(config: Config) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("team.db")).unwrap());
    start_on(store, Box::new(dir), config)
}

/// A server on `store`, which `keep` keeps alive.
pub(crate) fn start_on(
    store: Arc<dyn Store>,
    keep: Box<dyn Any + Send + Sync>,
    config: Config,
) -> Harness {
    let server = Server::bind("127.0.0.1:0", Arc::clone(&store), config).unwrap();
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .proxy(None)
        .build()
        .into();
    Harness {
        server,
        store,
        agent,
        _keep: keep,
    }
}

impl Harness {
    pub(crate) fn token(&self, org: &str) -> String {
        self.store.create_token(org).unwrap().token
    }

    pub(crate) fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{path_and_query}", self.server.local_addr())
    }

    pub(crate) fn get(&self, token: Option<&str>, path_and_query: &str) -> Reply {
        let mut req = self.agent.get(self.url(path_and_query));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        reply(req.call().unwrap())
    }

    pub(crate) fn repo(&self, token: &str, repo: &str) -> Reply {
        self.get(
            Some(token),
            &format!("/api/claude_code/team_memory?repo={repo}"),
        )
    }

    pub(crate) fn hashes(&self, token: &str, repo: &str) -> Reply {
        self.get(
            Some(token),
            &format!("/api/claude_code/team_memory?repo={repo}&view=hashes"),
        )
    }

    pub(crate) fn put_raw(
        &self,
        token: Option<&str>,
        repo: &str,
        if_match: Option<&str>,
        body: &str,
    ) -> Reply {
        let mut req = self
            .agent
            .put(self.url(&format!("/api/claude_code/team_memory?repo={repo}")))
            .header("Content-Type", "application/json");
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        if let Some(m) = if_match {
            req = req.header("If-Match", m);
        }
        reply(req.send(body).unwrap())
    }

    pub(crate) fn put(
        &self,
        token: &str,
        repo: &str,
        if_match: Option<&str>,
        entries: &Value,
    ) -> Reply {
        let body = serde_json::json!({ "entries": entries }).to_string();
        self.put_raw(Some(token), repo, if_match, &body)
    }
}

fn reply(mut resp: ureq::http::Response<ureq::Body>) -> Reply {
    let status = resp.status().as_u16();
    let etag = resp
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_owned());
    let text = resp.body_mut().read_to_string().unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply { status, etag, body }
}
