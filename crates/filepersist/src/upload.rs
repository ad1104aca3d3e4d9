//! Uploading files to the Files API (SPEC R15.5): a bounded number in
//! flight, each read safely, secret-scanned whatever it holds, and
//! retried as R8.5 retries.
//!
//! The scan reads every byte that would be uploaded, however it is
//! written ([`memdir_secrets::Scanner::scan_content`]): UTF-8, UTF-16 and
//! single-byte text decoded, and the printable runs of binary files (8-bit
//! and UTF-16), so a token in a Latin-1 `.env`, a file a Windows editor
//! saved, a tar, a database or an executable is found. No file name
//! exempts a file (gitleaks' allowlists by path are for a repository's
//! history, not for what leaves the machine). A file is also refused when
//! the scan is unsure of it: when it is an archive whose compressed
//! contents no reading sees (zip, gzip, bzip2, xz, zstd, lz4, 7-zip,
//! rar). Documents packaged as a zip (Office Open XML, ODF,
//! EPUB), images and PDFs go once what they show uncompressed scans
//! clean: they are what a turn is asked to produce, and their compressed
//! parts hold what was written into them, not other files.

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use memdir_http::{
    Backoff, ClientConfig, HttpClient, LongRetryAfter, Multipart, Response, RetryPolicy, RetryWhen,
    Url,
};
use memdir_secrets::{Compressed, Reading};
use serde::{Deserialize, Serialize};

use crate::env::Credential;
use crate::error::PersistError;
use crate::mime::content_type;
use crate::open::read_contained;

/// How many uploads are in flight at once unless configured otherwise.
pub const DEFAULT_UPLOAD_CONCURRENCY: usize = 5;
/// Retries of one upload after a network error, a 5xx or a 429 (R8.5).
pub const MAX_RETRIES: u32 = 3;
/// The budget of one upload attempt, from connecting to the last byte of
/// the answer. Generous: a large file on a slow link takes a while.
pub const UPLOAD_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest file uploaded: 100 MiB. The Files API takes up to 500 MB,
/// but each upload is held in memory whole (twice while its body is
/// built) and several are in flight, so this keeps a batch's peak near
/// 1 GiB. A larger file is reported, not uploaded.
pub const MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// The `anthropic-version` sent.
pub const API_VERSION: &str = "2023-06-01";
/// The `anthropic-beta` sent.
pub const FILES_API_BETA: &str = "files-api-2025-04-14";
/// The longest `Retry-After` waited for; a longer one is waited as this.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The most characters of a server's message kept in an error.
const MAX_MESSAGE_CHARS: usize = 200;

/// How uploads are made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UploadOptions {
    /// Uploads in flight at once (at least 1).
    pub concurrency: usize,
    /// The budget of one attempt.
    pub timeout: Duration,
    /// The largest file uploaded, in bytes.
    pub max_file_bytes: u64,
    /// Whether files are scanned for secrets first, and not uploaded when
    /// one is found or when the file is an archive the scan cannot see
    /// into. Turning it off uploads files even when they contain API keys
    /// or tokens.
    pub scan_secrets: bool,
    /// Retries after a network error, a 5xx or a 429.
    pub max_retries: u32,
    /// The first pause before a retry without `Retry-After`; doubled
    /// before each next one, up to 30 s.
    pub first_backoff: Duration,
}

impl Default for UploadOptions {
    fn default() -> Self {
        UploadOptions {
            concurrency: DEFAULT_UPLOAD_CONCURRENCY,
            timeout: UPLOAD_TIMEOUT,
            max_file_bytes: MAX_FILE_BYTES,
            scan_secrets: true,
            max_retries: MAX_RETRIES,
            first_backoff: Duration::from_millis(500),
        }
    }
}

/// What the Files API answered for a stored file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadedFile {
    /// The file's id (`file_…`).
    pub id: String,
    /// The name it was stored under.
    pub filename: String,
    /// Its media type, as the API sees it.
    pub mime_type: String,
    /// Its size.
    pub size_bytes: u64,
    /// When it was stored (RFC 3339).
    pub created_at: String,
}

/// Why one file was not uploaded. `Display` is one line and never holds
/// the credential or a secret found in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileError {
    /// A secret was found in it (the first finding; never the secret).
    Secret {
        /// The rule that found it.
        rule_id: String,
        /// Its 1-based line (in a binary file, one more than the line-feed
        /// bytes before it).
        line: usize,
        /// How the file was read when it was found (as it is, decoded from
        /// UTF-16, in the printable runs of binary data, …).
        reading: Reading,
    },
    /// It is an archive or a compressed stream: the secret scan cannot see
    /// what its compressed part holds.
    Unscannable {
        /// Its format.
        compressed: Compressed,
    },
    /// It is larger than [`UploadOptions::max_file_bytes`].
    TooLarge {
        /// Its size (or what was read of it).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// It became something other than a regular file.
    NotAFile {
        /// What it is.
        kind: &'static str,
    },
    /// It, or a folder on its way, became a symbolic link.
    Symlink,
    /// It is gone.
    Vanished,
    /// It could not be read.
    Read {
        /// What the system reported.
        error: String,
    },
    /// The API refused it, or still failed after the retries.
    Status {
        /// The HTTP status.
        status: u16,
        /// The error type of the answer's body, when it has one.
        error_type: Option<String>,
        /// The message of the answer's body, shortened.
        message: String,
    },
    /// No answer arrived: timeout or network error, after the retries.
    Transport {
        /// What went wrong.
        error: String,
    },
    /// A 2xx answer that is not a file object.
    BadResponse {
        /// What was wrong with it.
        error: String,
    },
    /// The request could not be built.
    Request {
        /// What was wrong.
        error: String,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Secret {
                rule_id,
                line,
                reading: Reading::Raw,
            } => write!(
                f,
                "not uploaded: it contains a secret ({rule_id} on line {line}); the secret is not shown"
            ),
            FileError::Secret {
                rule_id,
                line,
                reading,
            } => write!(
                f,
                "not uploaded: it contains a secret ({rule_id} on line {line}, reading it {reading}); the secret is not shown"
            ),
            FileError::Unscannable { compressed } => write!(
                f,
                "not uploaded: it is {compressed}, whose compressed contents cannot be scanned for secrets; turn the secret scan off to upload it"
            ),
            FileError::TooLarge { size, limit } => write!(
                f,
                "not uploaded: it has {size} bytes, over the limit of {limit} bytes"
            ),
            FileError::NotAFile { kind } => {
                write!(f, "not uploaded: it is {kind}, not a regular file")
            }
            FileError::Symlink => {
                f.write_str("not uploaded: it or a folder on its way is a symbolic link")
            }
            FileError::Vanished => {
                f.write_str("not uploaded: it was removed before it could be read")
            }
            FileError::Read { error } => write!(f, "cannot read it: {error}"),
            FileError::Status {
                status,
                error_type,
                message,
            } => match error_type {
                Some(kind) => write!(f, "the Files API answered {status} {kind}: {message}"),
                None => write!(f, "the Files API answered {status}: {message}"),
            },
            FileError::Transport { error } => write!(f, "upload failed: {error}"),
            FileError::BadResponse { error } => {
                write!(f, "the Files API's answer is not a file: {error}")
            }
            FileError::Request { error } => write!(f, "cannot build the upload: {error}"),
        }
    }
}

/// One file's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutcome {
    /// The path relative to the outputs folder.
    pub path: String,
    /// The stored file, or why not.
    pub result: Result<UploadedFile, FileError>,
}

/// Uploads files of one outputs folder.
#[derive(Debug)]
pub struct Uploader {
    client: HttpClient,
    retry: RetryPolicy,
    url: Url,
    credential: Credential,
    options: UploadOptions,
}

impl Uploader {
    /// An uploader to `{base_url}/v1/files`.
    pub fn new(
        base_url: &str,
        credential: Credential,
        options: UploadOptions,
    ) -> Result<Self, PersistError> {
        let url = Url::parse(&format!("{}/v1/files", base_url.trim_end_matches('/')))
            .map_err(PersistError::BaseUrl)?;
        // R8.5: network errors, 5xx and 429 retried with backoff. A 429
        // without Retry-After is how a spend limit looks at the Anthropic
        // API; waiting cannot help it, so only a 429 that says when is
        // retried.
        let retry = RetryPolicy::new(options.max_retries)
            .statuses(&[
                (429..=429, RetryWhen::WithRetryAfter),
                (500..=599, RetryWhen::Always),
            ])
            .retry_transport_errors(true)
            .backoff(Backoff::Exponential {
                first: options.first_backoff,
                max: MAX_RETRY_AFTER,
            })
            .max_retry_after(MAX_RETRY_AFTER, LongRetryAfter::WaitLongest);
        Ok(Uploader {
            client: HttpClient::new(ClientConfig::new(options.timeout)),
            retry,
            url,
            credential,
            options,
        })
    }

    /// Uploads each of `files` (paths relative to `root`), at most
    /// [`UploadOptions::concurrency`] at once; `done` hears of each
    /// outcome as it comes. The outcomes are in the order of `files`.
    ///
    /// # Panics
    ///
    /// Only when `done` panics: the panic is passed on.
    pub fn upload_all(
        &self,
        root: &Path,
        files: &[String],
        done: &(dyn Fn(&FileOutcome) + Sync),
    ) -> Vec<FileOutcome> {
        let workers = self.options.concurrency.clamp(1, files.len().max(1));
        let next = AtomicUsize::new(0);
        let mut outcomes: Vec<(usize, FileOutcome)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(rel) = files.get(i) else { break };
                            let outcome = self.upload_one(root, rel);
                            done(&outcome);
                            mine.push((i, outcome));
                        }
                        mine
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("an upload worker does not panic"))
                .collect()
        });
        outcomes.sort_by_key(|(i, _)| *i);
        outcomes.into_iter().map(|(_, o)| o).collect()
    }

    /// Reads, checks and uploads one file.
    pub fn upload_one(&self, root: &Path, rel: &str) -> FileOutcome {
        let result = self.try_upload(root, rel);
        if let Err(e) = &result {
            log::debug!("{rel}: {e}");
        }
        FileOutcome {
            path: rel.to_owned(),
            result,
        }
    }

    fn try_upload(&self, root: &Path, rel: &str) -> Result<UploadedFile, FileError> {
        let bytes = read_contained(root, rel, self.options.max_file_bytes)?;
        if self.options.scan_secrets {
            secret_check(&bytes)?;
        }
        let (header, value) = self.credential.header();
        let request = Multipart::new()
            .file("file", rel, content_type(rel), bytes)
            .into_request(self.url.clone())
            .map_err(|e| FileError::Request {
                error: self.clean(&e.to_string()),
            })?
            .header(header, value)
            .header("anthropic-version", API_VERSION)
            .header("anthropic-beta", FILES_API_BETA)
            .header("accept", "application/json");
        let response = self
            .client
            .send_with_retries(&request, &self.retry)
            .map_err(|e| FileError::Transport {
                error: self.clean(&error_chain(&e)),
            })?;
        if !response.is_success() {
            return Err(self.status_error(&response));
        }
        serde_json::from_slice::<UploadedFile>(&response.body).map_err(|e| FileError::BadResponse {
            error: self.clean(&e.to_string()),
        })
    }

    fn status_error(&self, response: &Response) -> FileError {
        #[derive(Deserialize)]
        struct Body {
            error: Detail,
        }
        #[derive(Deserialize)]
        struct Detail {
            #[serde(rename = "type")]
            kind: Option<String>,
            message: Option<String>,
        }
        let parsed = serde_json::from_slice::<Body>(&response.body).ok();
        let (kind, message) = match parsed {
            Some(Body { error }) => (error.kind, error.message.unwrap_or_default()),
            None => (None, response.text().into_owned()),
        };
        FileError::Status {
            status: response.status,
            error_type: kind.map(|k| self.clean(&k)),
            message: self.clean(&message),
        }
    }

    /// A text made fit for a one-line error: whitespace folded, the
    /// credential masked, at most a few hundred characters.
    fn clean(&self, text: &str) -> String {
        let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let secret = self.credential.secret();
        if !secret.is_empty() {
            line = line.replace(secret, "[redacted]");
        }
        match line.char_indices().nth(MAX_MESSAGE_CHARS) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line,
        }
    }
}

/// An error and its causes, joined.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether `bytes` may be uploaded: no secret in any reading of them (the
/// first by position is reported), and not an archive the scan cannot see
/// into. The file's name is not passed to the scanner, so that no name
/// exempts a file.
fn secret_check(bytes: &[u8]) -> Result<(), FileError> {
    let scan = memdir_secrets::Scanner::builtin().scan_content(bytes, None);
    if let Some(first) = scan.findings.first() {
        return Err(FileError::Secret {
            rule_id: first.rule_id.clone(),
            line: first.line,
            reading: first.reading,
        });
    }
    match scan.compressed {
        Some(compressed) if compressed.is_archive() => Err(FileError::Unscannable { compressed }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

    #[test]
    fn the_check_reads_every_encoding_and_refuses_archives() {
        let secret = |line: usize, reading: Reading| {
            Err(FileError::Secret {
                rule_id: "github-pat".into(),
                line,
                reading,
            })
        };
        let mut latin1 = b"# caf\xe9\n".to_vec();
        latin1.extend_from_slice(format!("token={TOKEN}").as_bytes());
        assert_eq!(secret_check(&latin1), secret(2, Reading::Raw));
        let utf16: Vec<u8> = format!("\u{feff}x\ntoken={TOKEN}")
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(secret_check(&utf16), secret(2, Reading::Utf16Le));
        // A NUL byte first: binary data, scanned all the same.
        assert_eq!(
            secret_check(format!("\0{TOKEN}").as_bytes()),
            secret(1, Reading::Raw)
        );
        assert_eq!(
            secret_check(b"PK\x03\x04 cut short"),
            Err(FileError::Unscannable {
                compressed: Compressed::Zip
            })
        );
        assert_eq!(secret_check(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Ok(()));
        assert_eq!(secret_check("报告\n".as_bytes()), Ok(()));
    }

    #[test]
    fn errors_name_the_rule_and_reading_never_the_secret() {
        let raw = FileError::Secret {
            rule_id: "github-pat".into(),
            line: 2,
            reading: Reading::Raw,
        };
        assert_eq!(
            raw.to_string(),
            "not uploaded: it contains a secret (github-pat on line 2); the secret is not shown"
        );
        let utf16 = FileError::Secret {
            rule_id: "aws-access-token".into(),
            line: 1,
            reading: Reading::Utf16Le,
        };
        assert_eq!(
            utf16.to_string(),
            "not uploaded: it contains a secret (aws-access-token on line 1, reading it as UTF-16LE text); the secret is not shown"
        );
        let zip = FileError::Unscannable {
            compressed: Compressed::Zip,
        };
        assert_eq!(
            zip.to_string(),
            "not uploaded: it is a zip archive, whose compressed contents cannot be scanned for secrets; turn the secret scan off to upload it"
        );
    }

    #[test]
    fn errors_are_one_line_without_the_credential() {
        let uploader = Uploader::new(
            "http://127.0.0.1:9",
            Credential::ApiKey("sk-ant-secret".into()),
            UploadOptions::default(),
        )
        .unwrap();
        let cleaned = uploader.clean("bad key sk-ant-secret\nsecond line");
        assert_eq!(cleaned, "bad key [redacted] second line");
        let long = "x".repeat(1_000);
        assert_eq!(uploader.clean(&long).chars().count(), MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn a_bad_base_url_is_refused() {
        let err = Uploader::new(
            "ftp://example.com",
            Credential::ApiKey("k".into()),
            UploadOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, PersistError::BaseUrl(_)), "{err}");
    }
}
