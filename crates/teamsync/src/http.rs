//! The wire: GET and PUT of R8.1 over ureq, with the retries of R8.5.

use std::time::Duration;

use memdir_protocol::RepoData;

use crate::client::{Client, MAX_RETRIES};
use crate::error::SyncError;

/// An HTTP answer that was not retried away.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: String,
}

impl Reply {
    /// The repository data in the body.
    pub(crate) fn data(&self) -> Result<RepoData, SyncError> {
        serde_json::from_str(&self.body).map_err(|source| SyncError::Unreadable {
            status: self.status,
            source,
        })
    }

    /// The error of this answer, for a status the caller does not handle.
    pub(crate) fn error(&self) -> SyncError {
        SyncError::from_answer(self.status, &self.body)
    }
}

/// A connection to one server, for the length of one sync.
pub(crate) struct Transport<'a> {
    client: &'a Client,
    agent: ureq::Agent,
    url: String,
    token: &'a str,
}

impl<'a> Transport<'a> {
    pub(crate) fn new(client: &'a Client, token: &'a str, repo: &str) -> Self {
        let mut config = ureq::Agent::config_builder()
            // 412 and error bodies carry what the client needs.
            .http_status_as_error(false)
            .timeout_global(Some(client.timeout));
        if is_loopback(&client.base_url) {
            // A proxy from the environment must not swallow loopback calls.
            config = config.proxy(None);
        }
        Self {
            client,
            agent: config.build().into(),
            url: format!(
                "{}/api/claude_code/team_memory?repo={repo}",
                client.base_url
            ),
            token,
        }
    }

    /// `GET` the full data, or only the hashes.
    pub(crate) fn get(&self, hashes_only: bool) -> Result<Reply, SyncError> {
        let url = if hashes_only {
            format!("{}&view=hashes", self.url)
        } else {
            self.url.clone()
        };
        self.with_retries(|| {
            self.agent
                .get(&url)
                .header("Authorization", format!("Bearer {}", self.token))
                .header("Accept", "application/json")
                .call()
        })
    }

    /// `PUT` a body, with `If-Match` when the client has seen a checksum.
    pub(crate) fn put(&self, body: &str, if_match: Option<&str>) -> Result<Reply, SyncError> {
        self.with_retries(|| {
            let mut req = self
                .agent
                .put(&self.url)
                .header("Authorization", format!("Bearer {}", self.token))
                .header("Content-Type", "application/json");
            if let Some(m) = if_match {
                req = req.header("If-Match", m);
            }
            req.send(body)
        })
    }

    fn with_retries(
        &self,
        call: impl Fn() -> Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Reply, SyncError> {
        let mut attempt = 0;
        loop {
            let (failure, retry_after) = match call() {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let body = match resp.body_mut().read_to_string() {
                        Ok(b) => b,
                        Err(e) => {
                            if attempt < MAX_RETRIES {
                                self.sleep(attempt, None);
                                attempt += 1;
                                continue;
                            }
                            return Err(SyncError::from_transport(e));
                        }
                    };
                    let reply = Reply { status, body };
                    if status == 429 || status >= 500 {
                        (reply.error(), retry_after)
                    } else {
                        return Ok(reply);
                    }
                }
                Err(e) => (SyncError::from_transport(e), None),
            };
            if attempt >= MAX_RETRIES {
                return Err(failure);
            }
            self.sleep(attempt, retry_after);
            attempt += 1;
        }
    }

    /// Waits before retry number `attempt + 1`: the server's `Retry-After`
    /// if it gave one, otherwise exponential backoff; capped either way.
    fn sleep(&self, attempt: u32, retry_after: Option<Duration>) {
        let backoff = self
            .client
            .backoff_base
            .saturating_mul(1 << attempt.min(16));
        std::thread::sleep(retry_after.unwrap_or(backoff).min(self.client.backoff_max));
    }
}

/// Whether a base URL points at this machine.
fn is_loopback(base_url: &str) -> bool {
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    #[test]
    fn loopback_hosts() {
        for url in [
            "http://127.0.0.1:8765",
            "http://localhost",
            "http://[::1]:80/x",
            "http://127.0.0.2",
        ] {
            assert!(super::is_loopback(url), "{url}");
        }
        for url in ["https://team.example.com", "http://10.0.0.1:8765"] {
            assert!(!super::is_loopback(url), "{url}");
        }
    }
}
