//! A read-only web view of a team's memories, for its members. A member
//! signs in once with a bearer token of the API; the server then starts a
//! session of its own and the browser holds only the session's id.
//!
//! Sessions: a random id (`mds_` and 256 bits) in a cookie (`HttpOnly`,
//! `SameSite=Strict`, path `/ui`, `Max-Age` its lifetime; `Secure` with
//! [`Config::secure_cookies`]); stored in the database as the id's
//! SHA-256 with the token it was started with, so that sessions outlive a
//! restart and hold across servers sharing a PostgreSQL database. A
//! session lasts [`Config::session_lifetime`] (12 hours) from sign-in;
//! signing out ends it on the server, and revoking its token ends it too
//! (every request joins the session to its token). The token never
//! reaches the cookie, and the session id is no bearer token: the API
//! reads only `Authorization`, and the web view only its cookie.
//!
//! Forms: every POST (sign-in, sign-out) is refused with 403 when the
//! browser says it comes from another site — an `Origin` that is not this
//! server's own (`http://` or `https://` and the request's `Host`; only
//! `https://` with [`Config::secure_cookies`]), or a `Sec-Fetch-Site`
//! other than `same-origin` or `none` — and when it lacks its form token:
//! the sign-out form carries the session's own token in a hidden field;
//! the sign-in form, before any session exists, carries a random token
//! that must equal the one in its cookie `memdir_login` (a double submit),
//! so that no other site can sign a member in to an organisation of its
//! choosing.
//!
//! - `GET /ui/login`, `POST /ui/login` (form fields `token`, `csrf`),
//!   `POST /ui/logout` (form field `csrf`);
//! - `GET /ui/` — a form asking for a repository;
//! - `GET /ui/repo?repo=owner/name[&q=words]` — its memories by type, with
//!   description, the repository version whose write last changed it and
//!   when, and revision (the start of the entry's checksum); `q` ranks
//!   them with recall's local ranker;
//! - `GET /ui/memory?repo=owner/name&key=file.md` — one memory rendered
//!   from markdown;
//! - `GET /ui/style.css`.
//!
//! Memory text is untrusted: every piece of it is HTML-escaped, raw HTML in
//! markdown is shown as text, an image is shown as its text and address
//! (never loaded), and a link keeps its address only for `http`, `https`
//! and `mailto`. Every page carries a Content-Security-Policy that allows
//! no script, no image, no frame and no remote style, so that a mistake in
//! the escaping still runs nothing and loads nothing. Without a valid
//! session every page but the login form answers 401.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use camino::Utf8PathBuf;
use memdir_memtypes::{MemoryType, parse_memory};
use memdir_protocol::{View, validate_repo};
use memdir_relevance::LocalRanker;
use memdir_scan::MemoryHeader;
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::config::Config;
use crate::http::{Request, Response};
use crate::store::{RepoState, Session, Store};

mod auth;

use auth::{CSRF_FIELD, login, login_page, logout, signed_in};

/// The path every page of the web view lies under.
pub const UI_PREFIX: &str = "/ui";

/// What a page may load and run: nothing but its own style sheet.
const CSP: &str = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The most search results shown.
const MAX_RESULTS: usize = 20;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5}\
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}\
.meta{color:#555;font-size:.9rem}.error{color:#a00}\
ul.memories li{margin:.4rem 0}pre{background:#f4f4f4;padding:.5rem;overflow:auto}\
form.inline{display:inline}";

/// Answers a request under [`UI_PREFIX`].
pub(crate) fn handle(store: &dyn Store, config: &Config, req: &Request) -> Response {
    let (path, query) = req.target.split_once('?').unwrap_or((&req.target, ""));
    let params: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    match (req.method.as_str(), path) {
        ("GET", "/ui/style.css") => Response {
            status: 200,
            headers: vec![
                ("Content-Type", "text/css; charset=utf-8".to_owned()),
                ("X-Content-Type-Options", "nosniff".to_owned()),
            ],
            body: STYLE.as_bytes().to_vec(),
        },
        ("GET", "/ui/login") => login_page(req, config, 200, None),
        ("POST", "/ui/login") => login(store, config, req),
        ("POST", "/ui/logout") => logout(store, config, req),
        ("GET", "/ui" | "/ui/") => signed_in(store, config, req, |s| {
            page(200, "Team memory", &repo_form(""), Some(s))
        }),
        ("GET", "/ui/repo") => signed_in(store, config, req, |s| repo_page(store, s, &params)),
        ("GET", "/ui/memory") => signed_in(store, config, req, |s| memory_page(store, s, &params)),
        (_, "/ui/login") => not_allowed("GET, POST"),
        (_, "/ui/logout") => not_allowed("POST"),
        (_, "/ui" | "/ui/" | "/ui/repo" | "/ui/memory" | "/ui/style.css") => not_allowed("GET"),
        _ => page(404, "Not found", "<p>No such page.</p>", None),
    }
}

fn repo_page(store: &dyn Store, s: &Session, params: &BTreeMap<String, String>) -> Response {
    let repo = params.get("repo").map_or("", |r| r.trim());
    if validate_repo(repo).is_err() {
        let body = format!(
            "<p class=\"error\">{} is not a repository name (owner/name).</p>{}",
            escape(&quote(repo)),
            repo_form(repo)
        );
        return page(400, "Team memory", &body, Some(s));
    }
    let state = match load(store, s, repo) {
        Ok(state) => state,
        Err(response) => return response,
    };
    let memories = memories(&state);
    let query = params.get("q").map_or("", |q| q.trim());
    let mut body = format!(
        "<p class=\"meta\">{} · version {} · last change {}</p>{}",
        escape(repo),
        state.version,
        state
            .last_modified
            .map_or_else(|| "never".to_owned(), |t| escape(&t.to_string())),
        search_form(repo, query)
    );
    if query.is_empty() {
        list_by_type(&mut body, repo, &memories);
    } else {
        search_results(&mut body, repo, &memories, query);
    }
    page(200, &format!("Team memory: {repo}"), &body, Some(s))
}

fn memory_page(store: &dyn Store, s: &Session, params: &BTreeMap<String, String>) -> Response {
    let repo = params.get("repo").map_or("", String::as_str);
    let key = params.get("key").map_or("", String::as_str);
    if validate_repo(repo).is_err() {
        return page(
            400,
            "Team memory",
            "<p class=\"error\">Not a repository name.</p>",
            Some(s),
        );
    }
    let state = match load(store, s, repo) {
        Ok(state) => state,
        Err(response) => return response,
    };
    let Some(text) = state.entries.as_ref().and_then(|e| e.get(key)) else {
        return page(
            404,
            "Not found",
            "<p>No such memory in this repository.</p>",
            Some(s),
        );
    };
    let parsed = parse_memory(text.as_bytes());
    let title = parsed.header.name.clone().unwrap_or_else(|| key.to_owned());
    let mut body = format!(
        "<p class=\"meta\"><a href=\"/ui/repo?{}\">{}</a> · {} · {}</p>",
        query_string(&[("repo", repo)]),
        escape(repo),
        escape(key),
        type_name(parsed.header.memory_type)
    );
    if let Some(description) = &parsed.header.description {
        let _ = write!(body, "<p><em>{}</em></p>", escape(description));
    }
    body.push_str("<article>");
    body.push_str(&render_markdown(&parsed.body));
    body.push_str("</article>");
    page(200, &title, &body, Some(s))
}

/// The repository's state with entries, or the page that says why not.
fn load(store: &dyn Store, s: &Session, repo: &str) -> Result<RepoState, Response> {
    match store.get(&s.organization_id, repo, View::Full) {
        Ok(Some(state)) => Ok(state),
        Ok(None) => Err(page(
            404,
            "Not found",
            "<p>This organisation has no memories in that repository.</p>",
            Some(s),
        )),
        Err(e) => {
            log::error!("the web view could not read a repository: {e}");
            Err(page(
                500,
                "Error",
                "<p class=\"error\">The database could not be read.</p>",
                Some(s),
            ))
        }
    }
}

/// One memory of the repository, as the pages show it.
struct Shown {
    key: String,
    header: MemoryHeader,
    /// "version 3 · last change 2026-…", as recorded by the server.
    change: String,
    revision: String,
}

fn memories(state: &RepoState) -> Vec<Shown> {
    let Some(entries) = &state.entries else {
        return Vec::new();
    };
    entries
        .iter()
        .map(|(key, text)| {
            let parsed = parse_memory(text.as_bytes());
            let change = match state.entry_changes.get(key) {
                Some(c) if c.version > 0 => format!(
                    "version {} · last change {}",
                    c.version,
                    c.modified
                        .map_or_else(|| "unknown".to_owned(), |t| t.to_string())
                ),
                // Written before the server recorded changes per entry.
                _ => format!(
                    "last change {}",
                    parsed
                        .modified
                        .map_or_else(|| "not recorded".to_owned(), |t| t.to_string())
                ),
            };
            let header = MemoryHeader {
                filename: key.clone(),
                file_path: Utf8PathBuf::from(key.as_str()),
                mtime_ms: parsed
                    .modified
                    .map_or_else(|| state.last_modified_ms(), jiff::Timestamp::as_millisecond),
                name: parsed.header.name,
                description: parsed.header.description,
                memory_type: parsed.header.memory_type,
                body_head: parsed.body.chars().take(2_000).collect(),
                supersedes: parsed.supersedes,
                superseded_by: parsed.superseded_by,
            };
            let revision = state
                .entry_checksums
                .get(key)
                .map(|sum| sum.trim_start_matches("sha256:").chars().take(8).collect())
                .unwrap_or_default();
            Shown {
                key: key.clone(),
                header,
                change,
                revision,
            }
        })
        .collect()
}

fn list_by_type(body: &mut String, repo: &str, memories: &[Shown]) {
    if memories.is_empty() {
        body.push_str("<p>No memories yet.</p>");
        return;
    }
    let groups = [
        Some(MemoryType::User),
        Some(MemoryType::Feedback),
        Some(MemoryType::Project),
        Some(MemoryType::Reference),
        None,
    ];
    for group in groups {
        let members: Vec<&Shown> = memories
            .iter()
            .filter(|m| m.header.memory_type == group)
            .collect();
        if members.is_empty() {
            continue;
        }
        let _ = write!(body, "<h2>{}</h2><ul class=\"memories\">", type_name(group));
        for m in members {
            item(body, repo, m);
        }
        body.push_str("</ul>");
    }
}

fn search_results(body: &mut String, repo: &str, memories: &[Shown], query: &str) {
    let headers: Vec<MemoryHeader> = memories.iter().map(|m| m.header.clone()).collect();
    let ranked = LocalRanker::new(&headers).rank(query, MAX_RESULTS);
    let _ = write!(body, "<h2>Results for {}</h2>", escape(&quote(query)));
    if ranked.is_empty() {
        body.push_str("<p>No memory matches.</p>");
        return;
    }
    body.push_str("<ol class=\"memories\">");
    for r in ranked {
        if let Some(m) = memories.get(r.index) {
            item(body, repo, m);
        }
    }
    body.push_str("</ol>");
}

fn item(body: &mut String, repo: &str, m: &Shown) {
    let title = m.header.name.as_deref().unwrap_or(&m.key);
    let _ = write!(
        body,
        "<li><a href=\"/ui/memory?{}\">{}</a>",
        query_string(&[("repo", repo), ("key", &m.key)]),
        escape(title)
    );
    if let Some(d) = &m.header.description {
        let _ = write!(body, " — {}", escape(d));
    }
    let _ = write!(
        body,
        "<br><span class=\"meta\">{} · {} · revision {}</span></li>",
        escape(&m.key),
        escape(&m.change),
        escape(&m.revision)
    );
}

fn type_name(t: Option<MemoryType>) -> &'static str {
    match t {
        Some(MemoryType::User) => "user",
        Some(MemoryType::Feedback) => "feedback",
        Some(MemoryType::Project) => "project",
        Some(MemoryType::Reference) => "reference",
        _ => "untyped",
    }
}

/// Markdown as HTML with nothing of the author's able to run or load:
/// raw HTML becomes text, an image its text and address, a link to a
/// scheme other than `http`, `https` or `mailto` plain text.
fn render_markdown(text: &str) -> String {
    let mut in_link: Vec<bool> = Vec::new();
    let events = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH)
        .filter_map(|event| match event {
            Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
            Event::Start(Tag::Image { dest_url, .. }) => {
                Some(Event::Text(format!("[image: {dest_url}] ").into()))
            }
            Event::End(TagEnd::Image) => None,
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let safe = link_type != LinkType::Email
                    && ["http://", "https://", "mailto:"]
                        .iter()
                        .any(|s| dest_url.to_ascii_lowercase().starts_with(s));
                in_link.push(safe);
                safe.then_some(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }))
            }
            Event::End(TagEnd::Link) => {
                if in_link.pop().unwrap_or(false) {
                    Some(Event::End(TagEnd::Link))
                } else {
                    None
                }
            }
            other => Some(other),
        });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

fn login_form(message: Option<&str>, csrf: &str) -> String {
    let mut out = String::new();
    if let Some(m) = message {
        let _ = write!(out, "<p class=\"error\">{}</p>", escape(m));
    }
    let _ = write!(
        out,
        "<form method=\"post\" action=\"/ui/login\">\
         <input type=\"hidden\" name=\"{CSRF_FIELD}\" value=\"{}\">\
         <label>Team token <input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"off\" required></label> \
         <button type=\"submit\" id=\"sign-in\">Sign in</button></form>",
        escape(csrf)
    );
    out
}

fn repo_form(repo: &str) -> String {
    format!(
        "<form method=\"get\" action=\"/ui/repo\"><label>Repository (owner/name) \
         <input name=\"repo\" id=\"repo\" value=\"{}\" required></label> \
         <button type=\"submit\" id=\"open\">Open</button></form>",
        escape(repo)
    )
}

fn search_form(repo: &str, query: &str) -> String {
    format!(
        "<form method=\"get\" action=\"/ui/repo\"><input type=\"hidden\" name=\"repo\" value=\"{}\">\
         <input name=\"q\" id=\"q\" value=\"{}\" placeholder=\"Search these memories\"> \
         <button type=\"submit\" id=\"search\">Search</button></form>",
        escape(repo),
        escape(query)
    )
}

/// A whole page with the headers every page carries; with a sign-out
/// form carrying the session's form token when `session` is given.
fn page(status: u16, title: &str, body: &str, session: Option<&Session>) -> Response {
    let nav = session.map_or_else(String::new, |s| {
        format!(
            "<form class=\"inline\" method=\"post\" action=\"/ui/logout\">\
             <input type=\"hidden\" name=\"{CSRF_FIELD}\" value=\"{}\">\
             <button type=\"submit\" id=\"sign-out\">Sign out</button></form>",
            escape(&s.csrf_token)
        )
    });
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t} · memdir</title><link rel=\"stylesheet\" href=\"/ui/style.css\"></head>\
         <body><header><a href=\"/ui/\">memdir team memory</a> {nav}</header><h1>{t}</h1>{body}</body></html>",
        t = escape(title),
    );
    let mut headers = vec![
        ("Content-Type", "text/html; charset=utf-8".to_owned()),
        ("Content-Security-Policy", CSP.to_owned()),
        ("X-Content-Type-Options", "nosniff".to_owned()),
        // No address of these pages (a repository's name is in it) goes
        // to another site; `no-referrer` would go further and make the
        // browser send `Origin: null` with this server's own forms, which
        // the forms' origin check must refuse.
        ("Referrer-Policy", "same-origin".to_owned()),
        ("Cache-Control", "no-store".to_owned()),
    ];
    if status == 401 {
        headers.push(("WWW-Authenticate", "Bearer realm=\"memdir\"".to_owned()));
    }
    Response {
        status,
        headers,
        body: html.into_bytes(),
    }
}

fn redirect(to: &str) -> Response {
    Response {
        status: 303,
        headers: vec![
            ("Location", to.to_owned()),
            ("Cache-Control", "no-store".to_owned()),
        ],
        body: Vec::new(),
    }
}

fn not_allowed(allow: &str) -> Response {
    let mut response = page(
        405,
        "Not allowed",
        "<p>That method is not allowed here.</p>",
        None,
    );
    response.headers.push(("Allow", allow.to_owned()));
    response
}

fn query_string(pairs: &[(&str, &str)]) -> String {
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    escape(&encoded)
}

fn quote(text: &str) -> String {
    format!("\u{201c}{text}\u{201d}")
}

/// `text` safe inside HTML text and double-quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_runs_and_loads_nothing() {
        let html = render_markdown(
            "# Title\n\n<script>alert(1)</script>\n\nText <img src=http://evil.example/x.png> and \
             ![pic](http://evil.example/p.png) and [bad](javascript:alert(1)) and \
             [good](https://example.com/a?b=1&c=\"2\").\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=http://evil.example/x.png&gt;"),
            "{html}"
        );
        assert!(
            html.contains("[image: http://evil.example/p.png]"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://example.com/a?b=1&amp;c=%222%22\">good</a>"),
            "{html}"
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
    }

    #[test]
    fn escape_covers_text_and_attributes() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
