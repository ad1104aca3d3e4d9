//! Signing in and out of the web view, and what every other page asks of
//! a request: its live session. The rules (sessions kept server-side,
//! form tokens, the origin check) are in the module documentation of
//! [`super`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use jiff::Timestamp;

use super::{UI_PREFIX, escape, login_form, page, redirect};
use crate::config::Config;
use crate::http::{Request, Response};
use crate::session;
use crate::store::{Session, Store};

/// The session cookie's name.
const SESSION_COOKIE: &str = "memdir_session";

/// The sign-in form's cookie: its value must come back in the form.
const LOGIN_COOKIE: &str = "memdir_login";

/// The hidden field of every form that posts: its form token.
pub(super) const CSRF_FIELD: &str = "csrf";

/// Runs `render` for the request's live session, or answers 401 with the
/// sign-in form.
pub(super) fn signed_in(
    store: &dyn Store,
    config: &Config,
    req: &Request,
    render: impl FnOnce(&Session) -> Response,
) -> Response {
    match current_session(store, req) {
        Ok(Some((_, session))) => render(&session),
        Ok(None) => login_page(
            req,
            config,
            401,
            Some("401: sign in with a team token to see this page."),
        ),
        Err(response) => response,
    }
}

/// The request's session cookie and its live session, if it has one; or
/// the page that says the database failed.
fn current_session<'r>(
    store: &dyn Store,
    req: &'r Request,
) -> Result<Option<(&'r str, Session)>, Response> {
    let Some(id) = cookie(req, SESSION_COOKIE) else {
        return Ok(None);
    };
    match store.session(id, Timestamp::now()) {
        Ok(found) => Ok(found.map(|s| (id, s))),
        Err(e) => {
            log::error!("the web view could not check a session: {e}");
            Err(page(
                500,
                "Error",
                "<p class=\"error\">The server could not check your session.</p>",
                None,
            ))
        }
    }
}

/// The first value of the cookie `name` in the request's `Cookie` headers.
fn cookie<'r>(req: &'r Request, name: &str) -> Option<&'r str> {
    req.headers
        .iter()
        .filter(|(n, _)| n == "cookie")
        .flat_map(|(_, value)| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The fields of a form body.
fn form(req: &Request) -> BTreeMap<String, String> {
    // The first of a repeated field counts, as with the cookie.
    let mut fields = BTreeMap::new();
    for (k, v) in form_urlencoded::parse(&req.body) {
        fields
            .entry(k.into_owned())
            .or_insert_with(|| v.into_owned());
    }
    fields
}

/// Whether a POST may come from one of this server's own pages: the
/// browser does not say it is cross-site, and its `Origin`, if it sends
/// one, is this server (the request's `Host`, over `http` or `https`; only
/// `https` behind TLS). A client that sends neither header still needs
/// the form token.
fn from_own_page(req: &Request, config: &Config) -> bool {
    if let Some(site) = req.header("sec-fetch-site")
        && !site.eq_ignore_ascii_case("same-origin")
        && !site.eq_ignore_ascii_case("none")
    {
        return false;
    }
    let Some(origin) = req.header("origin") else {
        return true;
    };
    let Some(host) = req.header("host") else {
        return false;
    };
    // A browser writes an origin's scheme and host in lower case.
    let schemes: &[(&str, &str)] = if config.secure_cookies {
        &[("https://", ":443")]
    } else {
        &[("http://", ":80"), ("https://", ":443")]
    };
    schemes.iter().any(|(scheme, default_port)| {
        origin
            .strip_prefix(scheme)
            .is_some_and(|authority| same_authority(authority, host, default_port))
    })
}

/// Whether an origin's `host[:port]` is the request's `Host`, a default
/// port written or not.
fn same_authority(origin: &str, host: &str, default_port: &str) -> bool {
    let bare = |authority: &str| {
        let lower = authority.to_ascii_lowercase();
        match lower.strip_suffix(default_port) {
            Some(rest) => rest.to_owned(),
            None => lower,
        }
    };
    !origin.is_empty() && bare(origin) == bare(host)
}

/// The 403 of a form that another site posted, or that lacks its token;
/// `session` when the member is signed in.
fn refused(req: &Request, config: &Config, session: Option<&Session>) -> Response {
    const WHY: &str = "403: this form did not come from this server's own page, or it has expired. Nothing was done.";
    match session {
        Some(s) => page(
            403,
            "Refused",
            &format!("<p class=\"error\">{}</p>", escape(WHY)),
            Some(s),
        ),
        None => login_page(req, config, 403, Some(WHY)),
    }
}

/// The sign-in form, with its form token in a hidden field and in the
/// `memdir_login` cookie (the browser's token is kept when it has one, so
/// that two open sign-in forms both work).
pub(super) fn login_page(
    req: &Request,
    config: &Config,
    status: u16,
    message: Option<&str>,
) -> Response {
    let token = match cookie(req, LOGIN_COOKIE).filter(|v| session::is_secret(v)) {
        Some(token) => token.to_owned(),
        None => match session::random_hex() {
            Ok(token) => token,
            Err(e) => {
                log::error!("the web view has no randomness for a form token: {e}");
                return page(
                    500,
                    "Error",
                    "<p class=\"error\">The server could not make a sign-in form.</p>",
                    None,
                );
            }
        },
    };
    let mut response = page(status, "Sign in", &login_form(message, &token), None);
    response.headers.push(set_cookie(
        LOGIN_COOKIE,
        &token,
        None,
        config.secure_cookies,
    ));
    response
}

pub(super) fn login(store: &dyn Store, config: &Config, req: &Request) -> Response {
    let fields = form(req);
    let proven = match (cookie(req, LOGIN_COOKIE), fields.get(CSRF_FIELD)) {
        (Some(kept), Some(sent)) => session::is_secret(kept) && session::same_secret(kept, sent),
        _ => false,
    };
    if !from_own_page(req, config) || !proven {
        return refused(req, config, None);
    }
    let token = fields.get("token").map_or("", |t| t.trim());
    let expires = Timestamp::now()
        .checked_add(config.session_lifetime)
        .unwrap_or(Timestamp::MAX);
    let started = if token.is_empty() {
        Ok(None)
    } else {
        store.create_session(token, expires)
    };
    let new = match started {
        Ok(Some(new)) => new,
        Ok(None) => return login_page(req, config, 401, Some("That token is not valid.")),
        Err(e) => {
            log::error!("the web view could not start a session: {e}");
            return page(
                500,
                "Error",
                "<p class=\"error\">The server could not start a session.</p>",
                None,
            );
        }
    };
    let mut response = redirect("/ui/");
    let secure = config.secure_cookies;
    response.headers.push(set_cookie(
        SESSION_COOKIE,
        &new.id,
        Some(config.session_lifetime.as_secs()),
        secure,
    ));
    response
        .headers
        .push(set_cookie(LOGIN_COOKIE, "", Some(0), secure));
    response
}

pub(super) fn logout(store: &dyn Store, config: &Config, req: &Request) -> Response {
    let (id, session) = match current_session(store, req) {
        Ok(Some(found)) => found,
        // Nothing to end; the form token cannot be checked, and needs not be.
        Ok(None) if from_own_page(req, config) => return signed_out(config),
        Ok(None) => return refused(req, config, None),
        Err(response) => return response,
    };
    let proven = form(req)
        .get(CSRF_FIELD)
        .is_some_and(|sent| session::same_secret(&session.csrf_token, sent));
    if !from_own_page(req, config) || !proven {
        return refused(req, config, Some(&session));
    }
    if let Err(e) = store.end_session(id) {
        log::error!("the web view could not end a session: {e}");
        return page(
            500,
            "Error",
            "<p class=\"error\">The server could not end your session.</p>",
            Some(&session),
        );
    }
    signed_out(config)
}

/// The answer to a sign-out: to the sign-in form, the cookie cleared.
fn signed_out(config: &Config) -> Response {
    let mut response = redirect("/ui/login");
    response.headers.push(set_cookie(
        SESSION_COOKIE,
        "",
        Some(0),
        config.secure_cookies,
    ));
    response
}

/// A `Set-Cookie` header for a cookie of the web view.
fn set_cookie(
    name: &str,
    value: &str,
    max_age: Option<u64>,
    secure: bool,
) -> (&'static str, String) {
    let mut header = format!("{name}={value}; Path={UI_PREFIX}; HttpOnly; SameSite=Strict");
    if let Some(age) = max_age {
        let _ = write!(header, "; Max-Age={age}");
    }
    if secure {
        header.push_str("; Secure");
    }
    ("Set-Cookie", header)
}
