//! [`Url`]: an absolute `http`/`https` URL parsed by the `http` crate (the
//! parser ureq itself sends with), the loopback rule, and the cleaned form
//! that errors and logs show.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use ureq::http::Uri;

use crate::error::{Error, UrlProblem};

/// What a masked query value or a removed password is replaced with.
pub(crate) const MASK: &str = "[redacted]";

/// How much of an unparsable URL an error quotes.
const MAX_QUOTED_CHARS: usize = 200;

/// Query keys whose values are masked in [`Url::redacted`], compared
/// without regard to ASCII case. Keys ending in `_key`, `-key`, `_token`,
/// `-token`, `_secret` or `-secret` are masked too.
const SECRET_QUERY_KEYS: &[&str] = &[
    "key",
    "apikey",
    "token",
    "auth",
    "authorization",
    "password",
    "passwd",
    "secret",
    "signature",
    "sig",
    "code",
];

/// Suffixes that make a query key secret (`api_key`, `access-token`,
/// `client_secret`).
const SECRET_QUERY_SUFFIXES: &[&str] = &["_key", "-key", "_token", "-token", "_secret", "-secret"];

/// An absolute `http://` or `https://` URL with a host: what this crate
/// sends requests to.
///
/// Parsing is done by [`ureq::http::Uri`], the same parser ureq connects
/// with, so the host this type reasons about (for [`Url::is_loopback`]) is
/// the host a request goes to; there is no second, hand-written parser to
/// disagree with it. On top of that parser, a `Url` refuses non-ASCII text,
/// a fragment (never sent, and the `http` crate would drop it silently), a
/// port outside `0..=65535`, and schemes other than `http` and `https`.
///
/// `Display` and `Debug` show [`Url::redacted`], never a password or a
/// secret query value.
#[derive(Clone, PartialEq, Eq)]
pub struct Url {
    uri: Uri,
}

impl Url {
    /// Parses `text` as an absolute `http(s)` URL.
    pub fn parse(text: &str) -> Result<Url, Error> {
        let invalid = |problem, source: Option<ureq::http::uri::InvalidUri>| Error::InvalidUrl {
            url: redact_unparsed(text),
            problem,
            source: source.map(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>),
        };
        if !text.is_ascii() {
            return Err(invalid(UrlProblem::NotAscii, None));
        }
        if text.contains('#') {
            return Err(invalid(UrlProblem::Fragment, None));
        }
        let uri: Uri = text
            .parse()
            .map_err(|e| invalid(UrlProblem::Syntax, Some(e)))?;
        match uri.scheme_str() {
            Some(scheme) if scheme.eq_ignore_ascii_case("http") => {}
            Some(scheme) if scheme.eq_ignore_ascii_case("https") => {}
            _ => return Err(invalid(UrlProblem::Scheme, None)),
        }
        let Some(authority) = uri.authority() else {
            return Err(invalid(UrlProblem::NoHost, None));
        };
        if authority.host().is_empty() {
            return Err(invalid(UrlProblem::NoHost, None));
        }
        // `http` accepts a port it cannot read as u16 and answers `None`
        // for it, as for no port at all; refuse it instead. The port is what
        // follows the parser's own host in the authority.
        let host_port = authority
            .as_str()
            .rsplit_once('@')
            .map_or(authority.as_str(), |(_, host_port)| host_port);
        let port = host_port
            .strip_prefix(authority.host())
            .and_then(|rest| rest.strip_prefix(':'))
            .unwrap_or_default();
        if !port.is_empty() && port.parse::<u16>().is_err() {
            return Err(invalid(UrlProblem::Port, None));
        }
        Ok(Url { uri })
    }

    /// The parsed URI, as ureq sends it.
    #[must_use]
    pub fn as_uri(&self) -> &Uri {
        &self.uri
    }

    /// The host, in the case it was written; IPv6 literals keep their
    /// brackets (`[::1]`). A user name or password is never part of it.
    #[must_use]
    pub fn host(&self) -> &str {
        self.uri.host().unwrap_or_default()
    }

    /// The query string after `?`, if any.
    #[must_use]
    pub fn query(&self) -> Option<&str> {
        self.uri.query()
    }

    /// Whether the URL names this machine: the host is `localhost` (any
    /// case), an IPv4 address in `127.0.0.0/8`, or the bracketed IPv6
    /// address `[::1]`.
    ///
    /// Nothing else is: not `localhost.example.com`, not
    /// `127.0.0.1.nip.io`, not a sub-domain of `localhost` (whose
    /// resolution depends on the resolver), not the `127.0.0.1` before the
    /// `@` of `http://127.0.0.1@evil.com/` (that is a user name; the host
    /// is `evil.com`), not the shorthand `127.1`. A host wrongly judged
    /// remote only means a request may go through a configured proxy; a
    /// host wrongly judged local would skip it, so the rule is strict.
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        is_loopback_host(self.host())
    }

    /// The URL for an error message or a log line: without user name and
    /// password, and with the value of every secret-looking query key
    /// masked as `[redacted]`.
    ///
    /// Secret keys are, without regard to ASCII case, `key`, `apikey`,
    /// `token`, `auth`, `authorization`, `password`, `passwd`, `secret`,
    /// `signature`, `sig`, `code`, and any key ending in `_key`, `-key`,
    /// `_token`, `-token`, `_secret` or `-secret` (`api_key`,
    /// `access_token`, `client_secret`). Other query values are kept: they
    /// are what tells one request from another in a log.
    #[must_use]
    pub fn redacted(&self) -> String {
        let mut out = String::new();
        if let Some(scheme) = self.uri.scheme_str() {
            out.push_str(scheme);
            out.push_str("://");
        }
        out.push_str(self.host());
        if let Some(port) = self.uri.port_u16() {
            out.push(':');
            out.push_str(&port.to_string());
        }
        out.push_str(self.uri.path());
        if let Some(query) = self.uri.query() {
            out.push('?');
            out.push_str(&redact_query(query));
        }
        out
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Url").field(&self.redacted()).finish()
    }
}

impl std::str::FromStr for Url {
    type Err = Error;

    fn from_str(text: &str) -> Result<Url, Error> {
        Url::parse(text)
    }
}

/// The loopback rule on a host as [`Uri::host`] gives it.
fn is_loopback_host(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback());
    }
    // `Ipv4Addr` accepts only the four-part dotted form, so `127.0.0.1.nip.io`,
    // `127.1` and `0x7f.0.0.1` are not addresses here.
    host.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// A query string with the values of secret keys masked.
fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if is_secret_key(key) => format!("{key}={MASK}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_QUERY_KEYS.contains(&key.as_str())
        || SECRET_QUERY_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// A cleaned form of any text given as a URL, for an error about it:
/// [`Url::redacted`] when it parses; otherwise the text cut at the first
/// `?` or `#` (a query cannot be cleaned reliably in text that does not
/// parse, so all of it goes), with everything between `://` and the last
/// `@` before the path removed, and shortened to 200 characters.
#[must_use]
pub fn redact_text(text: &str) -> String {
    match Url::parse(text) {
        Ok(url) => url.redacted(),
        Err(_) => redact_unparsed(text),
    }
}

/// The fallback of [`redact_text`] for text that is not a [`Url`].
fn redact_unparsed(text: &str) -> String {
    let text = text.split(['?', '#']).next().unwrap_or_default();
    let cleaned = match text.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => format!("{scheme}://{MASK}@{}", &rest[at + 1..]),
                None => text.to_owned(),
            }
        }
        // No scheme: whatever precedes an `@` may be credentials.
        None => match text.rfind('@') {
            Some(at) => format!("{MASK}@{}", &text[at + 1..]),
            None => text.to_owned(),
        },
    };
    let mut quoted: String = cleaned
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_QUOTED_CHARS)
        .collect();
    if cleaned.chars().count() > MAX_QUOTED_CHARS {
        quoted.push('…');
    }
    quoted
}

#[cfg(test)]
mod tests;
