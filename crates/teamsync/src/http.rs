//! The wire: GET and PUT of R8.1 through the shared HTTP client, with the
//! retries of R8.5.

use memdir_http::{
    Backoff, ClientConfig, HttpClient, LongRetryAfter, Request, RetryPolicy, RetryWhen, Url,
};
use memdir_protocol::{
    PREFER_HEADER, PREFERENCE_APPLIED_HEADER, RETURN_MINIMAL, RepoData, TeamMemoryQuery, View,
    etag, prefers_minimal,
};

use crate::client::{Client, MAX_RETRIES};
use crate::error::SyncError;

/// An HTTP answer that was not retried away.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: String,
    /// The server applied `Prefer: return=minimal` (R9.3): the body holds
    /// only the checksums of the keys the PUT wrote.
    pub(crate) minimal: bool,
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
    http: HttpClient,
    retry: RetryPolicy,
    base_url: &'a str,
    repo: String,
    token: &'a str,
}

impl<'a> Transport<'a> {
    pub(crate) fn new(client: &'a Client, token: &'a str, repo: &str) -> Self {
        Self {
            http: HttpClient::new(ClientConfig::new(client.timeout)),
            // R8.5: network errors, 5xx and 429, with backoff, honouring
            // Retry-After up to the longest backoff.
            retry: RetryPolicy::new(MAX_RETRIES)
                .statuses(&[
                    (429..=429, RetryWhen::Always),
                    (500..=599, RetryWhen::Always),
                ])
                .retry_transport_errors(true)
                .backoff(Backoff::Exponential {
                    first: client.backoff_base,
                    max: client.backoff_max,
                })
                .max_retry_after(client.backoff_max, LongRetryAfter::WaitLongest),
            base_url: &client.base_url,
            repo: repo.to_owned(),
            token,
        }
    }

    /// `GET` the full data.
    pub(crate) fn get_full(&self) -> Result<Reply, SyncError> {
        let request = Request::get(self.url(View::Full)?)
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Accept", "application/json");
        self.with_retries(&request)
    }

    /// `GET` only the hashes; with the checksum of a view the client holds
    /// complete, `If-None-Match`, which a server may answer with 304 (R9.3).
    pub(crate) fn get_hashes(&self, held: Option<&str>) -> Result<Reply, SyncError> {
        let mut request = Request::get(self.url(View::Hashes)?)
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Accept", "application/json");
        if let Some(checksum) = held {
            request = request.header("If-None-Match", etag(checksum));
        }
        self.with_retries(&request)
    }

    /// `PUT` a body, with `If-Match` when the client has seen a checksum.
    pub(crate) fn put(&self, body: &str, if_match: Option<&str>) -> Result<Reply, SyncError> {
        let mut request = Request::put(self.url(View::Full)?, body)
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Content-Type", "application/json")
            .header(PREFER_HEADER, RETURN_MINIMAL);
        if let Some(m) = if_match {
            request = request.header("If-Match", m);
        }
        self.with_retries(&request)
    }

    /// The team-memory URL of this repository on the server.
    fn url(&self, view: View) -> Result<Url, SyncError> {
        let query = TeamMemoryQuery {
            repo: self.repo.clone(),
            view,
        };
        Url::parse(&query.url(self.base_url)).map_err(SyncError::from_transport)
    }

    fn with_retries(&self, request: &Request) -> Result<Reply, SyncError> {
        let response = self
            .http
            .send_with_retries(request, &self.retry)
            .map_err(SyncError::from_transport)?;
        let minimal = response
            .header(PREFERENCE_APPLIED_HEADER)
            .is_some_and(prefers_minimal);
        let reply = Reply {
            status: response.status,
            body: response.text().into_owned(),
            minimal,
        };
        if reply.status == 429 || reply.status >= 500 {
            Err(reply.error())
        } else {
            Ok(reply)
        }
    }
}
