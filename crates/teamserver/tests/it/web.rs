//! The web view over real HTTP: sign-in and its cookie, 401 without it,
//! memories by type, search, and memory text that stays text.

use serde_json::json;

use crate::support::{Harness, quiet, start};

const CSP: &str = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A page: status, headers, body.
struct Page {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Page {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .into()
}

fn page(resp: ureq::http::Response<ureq::Body>) -> Page {
    let status = resp.status().as_u16();
    let headers = resp
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let body = resp.into_body().read_to_string().unwrap();
    Page {
        status,
        headers,
        body,
    }
}

fn get(h: &Harness, cookie: Option<&str>, path: &str) -> Page {
    let mut req = agent().get(h.url(path));
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    page(req.call().unwrap())
}

/// The value of the hidden `csrf` field of the first form on a page.
fn csrf_field(body: &str) -> Option<String> {
    let at = body.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    Some(body[at..].split('"').next()?.to_owned())
}

/// The `name=value` of a `Set-Cookie` header of a page naming `name`.
fn set_cookie(p: &Page, name: &str) -> Option<String> {
    p.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.split(';').next().unwrap_or("").to_owned())
        .find(|pair| pair.starts_with(&format!("{name}=")))
}

/// The whole `Set-Cookie` header of a page naming `name`.
fn set_cookie_header<'a>(p: &'a Page, name: &str) -> Option<&'a str> {
    p.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.as_str())
        .find(|v| v.starts_with(&format!("{name}=")))
}

/// What the sign-in form hands a browser: its cookie (`name=value`) and
/// the hidden field that must match it.
struct LoginForm {
    cookie: String,
    csrf: String,
}

fn login_form(h: &Harness) -> LoginForm {
    let p = get(h, None, "/ui/login");
    assert_eq!(p.status, 200, "{}", p.body);
    LoginForm {
        cookie: set_cookie(&p, "memdir_login").expect("a sign-in cookie"),
        csrf: csrf_field(&p.body).expect("a csrf field in the form"),
    }
}

/// A form POST with optional `Cookie` and `Origin` headers.
fn post_form(
    h: &Harness,
    path: &str,
    fields: &[(&str, &str)],
    cookie: Option<&str>,
    origin: Option<&str>,
) -> Page {
    let form = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let mut req = agent()
        .post(h.url(path))
        .header("Content-Type", "application/x-www-form-urlencoded");
    if let Some(c) = cookie {
        req = req.header("Cookie", c);
    }
    if let Some(o) = origin {
        req = req.header("Origin", o);
    }
    page(req.send(form).unwrap())
}

/// The sign-in form, fetched and posted with `token` as a browser on the
/// server's own page would.
fn post_login(h: &Harness, token: &str) -> Page {
    post_login_from(h, token, &h.url(""))
}

/// [`post_login`] from a page of `origin`.
fn post_login_from(h: &Harness, token: &str, origin: &str) -> Page {
    let form = login_form(h);
    post_form(
        h,
        "/ui/login",
        &[("csrf", &form.csrf), ("token", token)],
        Some(&form.cookie),
        Some(origin),
    )
}

/// A signed-in browser: its session cookie (`name=value`) and the
/// session's form token, read from the sign-out form.
struct Session {
    cookie: String,
    csrf: String,
}

/// Signs in with `token`.
fn sign_in(h: &Harness, token: &str) -> Session {
    let p = post_login(h, token);
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(p.header("location"), Some("/ui/"));
    let header = set_cookie_header(&p, "memdir_session").unwrap().to_owned();
    assert!(header.contains("HttpOnly"), "{header}");
    assert!(header.contains("SameSite=Strict"), "{header}");
    assert!(header.contains("Path=/ui"), "{header}");
    assert!(header.contains("Max-Age=43200"), "{header}");
    let cookie = header.split(';').next().unwrap().to_owned();
    let home = get(h, Some(&cookie), "/ui/");
    assert_eq!(home.status, 200, "{}", home.body);
    let csrf = csrf_field(&home.body).expect("a csrf field in the sign-out form");
    Session { cookie, csrf }
}

fn memory(name: &str, kind: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n")
}

fn seed(h: &Harness, token: &str) {
    let entries = json!({
        "deploy.md": memory("deploy", "project", "how the service deploys", "Run `make deploy` from main."),
        "style.md": memory("style", "feedback", "review style the team wants", "Short commits; say why."),
        "who.md": memory("who", "user", "the team's roles", "Ana owns billing."),
        "links.md": memory("links", "reference", "dashboards", "See [Grafana](https://grafana.example/d/1)."),
        "evil.md": memory(
            "evil\"><script>alert(1)</script>",
            "project",
            "<b>bold</b> description",
            "<script>alert('x')</script>\n\n<img src=http://tracker.example/p.png>\n\n![t](http://tracker.example/i.png) [run](javascript:alert(1))",
        ),
        "notes.md": "no frontmatter at all, retry budget notes\n",
    });
    assert_eq!(h.put(token, "acme/app", None, &entries).status, 200);
}

#[test]
fn sign_in_sets_a_strict_cookie_and_a_bad_token_is_refused() {
    let h = start(quiet());
    let token = h.token("acme");
    let session = sign_in(&h, &token);
    let home = get(&h, Some(&session.cookie), "/ui/");
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(home.body.contains("name=\"repo\""));

    for bad in ["", "not-a-token", "a;b", &format!("{token}x")] {
        let p = post_login(&h, bad);
        assert_eq!(p.status, 401, "{bad:?}");
        assert!(set_cookie(&p, "memdir_session").is_none(), "{bad:?}");
    }
    // Signing out clears the cookie.
    let out = post_form(
        &h,
        "/ui/logout",
        &[("csrf", &session.csrf)],
        Some(&session.cookie),
        None,
    );
    assert_eq!(out.status, 303, "{}", out.body);
    assert!(
        set_cookie_header(&out, "memdir_session")
            .unwrap()
            .contains("Max-Age=0")
    );
}

#[test]
fn every_page_needs_a_session_and_carries_the_policy() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    for path in [
        "/ui/",
        "/ui/repo?repo=acme/app",
        "/ui/memory?repo=acme/app&key=deploy.md",
    ] {
        for cookie in [
            None,
            Some("memdir_session=wrong"),
            Some(&*format!("other={token}")),
        ] {
            let p = get(&h, cookie, path);
            assert_eq!(p.status, 401, "{path} {cookie:?}");
            assert!(p.body.contains("action=\"/ui/login\""), "{path}");
            assert!(!p.body.contains("Run `make deploy`"), "{path}");
            assert_eq!(p.header("content-security-policy"), Some(CSP), "{path}");
        }
    }
    // A bearer header is not a session: the web view reads only its cookie.
    let p = page(
        agent()
            .get(h.url("/ui/repo?repo=acme/app"))
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .unwrap(),
    );
    assert_eq!(p.status, 401);
    // Another organisation's member sees no such repository.
    let other = sign_in(&h, &h.token("globex"));
    assert_eq!(
        get(&h, Some(&other.cookie), "/ui/repo?repo=acme/app").status,
        404
    );
}

#[test]
fn memories_are_listed_by_type_and_searched() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    let cookie = sign_in(&h, &token).cookie;
    let list = get(&h, Some(&cookie), "/ui/repo?repo=acme/app");
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(list.header("content-security-policy"), Some(CSP));
    assert!(list.body.contains("version 1"), "{}", list.body);
    let order: Vec<usize> = [
        "<h2>user</h2>",
        "<h2>feedback</h2>",
        "<h2>project</h2>",
        "<h2>reference</h2>",
        "<h2>untyped</h2>",
    ]
    .iter()
    .map(|h2| {
        list.body
            .find(h2)
            .unwrap_or_else(|| panic!("{h2}: {}", list.body))
    })
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(list.body.contains("how the service deploys"));
    assert!(list.body.contains("revision "));

    let found = get(
        &h,
        Some(&cookie),
        "/ui/repo?repo=acme/app&q=deploy%20service",
    );
    assert_eq!(found.status, 200);
    let first = found.body.find("<ol").map(|i| &found.body[i..]).unwrap();
    assert!(
        first.find("deploy.md").unwrap() < first.find("</li>").unwrap(),
        "{first}"
    );

    let bad = get(&h, Some(&cookie), "/ui/repo?repo=..%2Fetc");
    assert_eq!(bad.status, 400);
}

#[test]
fn memory_text_is_shown_as_text_and_loads_nothing() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    let cookie = sign_in(&h, &token).cookie;
    for path in [
        "/ui/repo?repo=acme/app",
        "/ui/memory?repo=acme/app&key=evil.md",
        "/ui/repo?repo=acme/app&q=evil%20bold",
    ] {
        let p = get(&h, Some(&cookie), path);
        assert_eq!(p.status, 200, "{path}");
        assert!(!p.body.contains("<script"), "{path}: {}", p.body);
        assert!(!p.body.contains("<img"), "{path}");
        assert!(!p.body.contains("<b>"), "{path}");
        assert!(!p.body.contains("javascript:"), "{path}");
    }
    let evil = get(&h, Some(&cookie), "/ui/memory?repo=acme/app&key=evil.md");
    assert!(
        evil.body
            .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
            || evil
                .body
                .contains("&lt;script&gt;alert('x')&lt;/script&gt;"),
        "{}",
        evil.body
    );
    assert!(evil.body.contains("[image: http://tracker.example/i.png]"));
    let links = get(&h, Some(&cookie), "/ui/memory?repo=acme/app&key=links.md");
    assert!(
        links
            .body
            .contains("<a href=\"https://grafana.example/d/1\">Grafana</a>"),
        "{}",
        links.body
    );
    assert_eq!(
        get(&h, Some(&cookie), "/ui/memory?repo=acme/app&key=none.md").status,
        404
    );
}

#[test]
fn each_memory_shows_the_version_that_last_changed_it() {
    let h = start(quiet());
    let token = h.token("acme");
    let first = json!({
        "a.md": memory("a", "project", "first one", "one"),
        "b.md": memory("b", "project", "second one", "two"),
    });
    assert_eq!(h.put(&token, "acme/app", None, &first).status, 200);
    let second = json!({ "b.md": memory("b", "project", "second one", "TWO") });
    assert_eq!(h.put(&token, "acme/app", Some("*"), &second).status, 200);
    let cookie = sign_in(&h, &token).cookie;
    let list = get(&h, Some(&cookie), "/ui/repo?repo=acme/app");
    let line = |key: &str| {
        let at = list
            .body
            .find(&format!("{key} · "))
            .unwrap_or_else(|| panic!("{}", list.body));
        list.body[at..].split("</li>").next().unwrap().to_owned()
    };
    assert!(
        line("a.md").contains("version 1 · last change 20"),
        "{}",
        line("a.md")
    );
    assert!(
        line("b.md").contains("version 2 · last change 20"),
        "{}",
        line("b.md")
    );
    assert!(
        list.body.contains("version 2 · last change"),
        "{}",
        list.body
    );
}

#[test]
fn behind_tls_the_cookie_is_secure() {
    let mut config = quiet();
    config.secure_cookies = true;
    let h = start(config);
    let token = h.token("acme");
    // Behind TLS the browser's page is https, on the same host.
    let https = h.url("").replacen("http://", "https://", 1);
    assert_eq!(post_login_from(&h, &token, &h.url("")).status, 403);
    let p = post_login_from(&h, &token, &https);
    assert_eq!(p.status, 303, "{}", p.body);
    let header = set_cookie_header(&p, "memdir_session").unwrap();
    assert!(header.ends_with("; Secure"), "{header}");
    let plain = start(quiet());
    let token = plain.token("acme");
    let p = post_login(&plain, &token);
    assert!(
        !set_cookie_header(&p, "memdir_session")
            .unwrap()
            .contains("Secure")
    );
}

#[test]
fn the_session_cookie_is_not_the_token_and_the_api_refuses_it() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    let session = sign_in(&h, &token);
    let value = session.cookie.strip_prefix("memdir_session=").unwrap();
    assert_ne!(value, token);
    assert!(!session.cookie.contains(&token), "{}", session.cookie);
    assert!(!value.contains("mdt_"), "{value}");
    // The cookie is no bearer token: a copy of it reads and writes nothing
    // through the API.
    assert_eq!(h.repo(value, "acme/app").status, 401);
    let entries = json!({"planted.md": "planted"});
    assert_eq!(h.put(value, "acme/app", Some("*"), &entries).status, 401);
    // Nor is the cookie itself taken by the API.
    let r = agent()
        .get(h.url("/api/claude_code/team_memory?repo=acme/app"))
        .header("Cookie", &session.cookie)
        .call()
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = agent()
        .put(h.url("/api/claude_code/team_memory?repo=acme/app"))
        .header("Cookie", &session.cookie)
        .header("If-Match", "*")
        .send(json!({"entries": entries}).to_string())
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    assert!(
        h.repo(&token, "acme/app").body["content"]["entries"]
            .get("planted.md")
            .is_none()
    );
}

#[test]
fn signing_out_ends_the_session_on_the_server() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    let session = sign_in(&h, &token);
    let other = sign_in(&h, &token);
    let out = post_form(
        &h,
        "/ui/logout",
        &[("csrf", &session.csrf)],
        Some(&session.cookie),
        Some(&h.url("")),
    );
    assert_eq!(out.status, 303, "{}", out.body);
    assert_eq!(out.header("location"), Some("/ui/login"));
    // A copy of the cookie kept from before is refused.
    for path in ["/ui/", "/ui/repo?repo=acme/app"] {
        let p = get(&h, Some(&session.cookie), path);
        assert_eq!(p.status, 401, "{path}");
        assert!(!p.body.contains("how the service deploys"), "{path}");
    }
    // Another session of the same token goes on.
    assert_eq!(get(&h, Some(&other.cookie), "/ui/").status, 200);
}

#[test]
fn revoking_the_token_ends_its_sessions() {
    let h = start(quiet());
    let new = h.store.create_token("acme").unwrap();
    let kept = h.token("acme");
    seed(&h, &new.token);
    let session = sign_in(&h, &new.token);
    let other = sign_in(&h, &kept);
    assert_eq!(
        get(&h, Some(&session.cookie), "/ui/repo?repo=acme/app").status,
        200
    );
    assert!(h.store.revoke_token(&new.prefix).unwrap());
    let p = get(&h, Some(&session.cookie), "/ui/repo?repo=acme/app");
    assert_eq!(p.status, 401);
    assert!(!p.body.contains("how the service deploys"));
    // A session of another token of the same organisation goes on.
    assert_eq!(
        get(&h, Some(&other.cookie), "/ui/repo?repo=acme/app").status,
        200
    );
}

#[test]
fn a_session_expires_after_its_lifetime() {
    let mut config = quiet();
    config.session_lifetime = std::time::Duration::ZERO;
    let h = start(config);
    let token = h.token("acme");
    let p = post_login(&h, &token);
    assert_eq!(p.status, 303, "{}", p.body);
    let cookie = set_cookie(&p, "memdir_session").unwrap();
    assert_eq!(get(&h, Some(&cookie), "/ui/").status, 401);
}

#[test]
fn a_cross_site_or_unproven_sign_in_is_403_and_starts_no_session() {
    let h = start(quiet());
    let token = h.token("acme");
    let own = h.url("");
    let refused = |fields: &[(&str, &str)], cookie: Option<&str>, origin: Option<&str>| {
        let p = post_form(&h, "/ui/login", fields, cookie, origin);
        assert_eq!(
            p.status, 403,
            "{fields:?} {cookie:?} {origin:?}: {}",
            p.body
        );
        assert!(set_cookie(&p, "memdir_session").is_none(), "{fields:?}");
    };
    let form = login_form(&h);
    let with_csrf = [("csrf", form.csrf.as_str()), ("token", token.as_str())];
    // Another site's page posting the form, even with a valid pair (an
    // attacker's own sign-in pair, say).
    for origin in [
        "http://evil.example",
        "null",
        "https://127.0.0.1.evil.example",
    ] {
        refused(&with_csrf, Some(&form.cookie), Some(origin));
    }
    // No form token, no cookie, or the two not matching.
    refused(&[("token", &token)], Some(&form.cookie), Some(&own));
    refused(&[("token", &token)], Some(&form.cookie), None);
    refused(&with_csrf, None, Some(&own));
    let other = login_form(&h);
    refused(
        &[("csrf", &other.csrf), ("token", &token)],
        Some(&form.cookie),
        None,
    );
    // A browser that says the request is cross-site.
    let p = page(
        agent()
            .post(h.url("/ui/login"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Cookie", &form.cookie)
            .header("Sec-Fetch-Site", "cross-site")
            .send(
                form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(with_csrf)
                    .finish(),
            )
            .unwrap(),
    );
    assert_eq!(p.status, 403);
    // The same pair, from the server's own page or from no page at all (a
    // client that sends no Origin), signs in.
    let p = post_form(&h, "/ui/login", &with_csrf, Some(&form.cookie), Some(&own));
    assert_eq!(p.status, 303, "{}", p.body);
    let p = post_form(&h, "/ui/login", &with_csrf, Some(&form.cookie), None);
    assert_eq!(p.status, 303, "{}", p.body);
}

#[test]
fn a_cross_site_or_unproven_sign_out_is_403_and_ends_nothing() {
    let h = start(quiet());
    let token = h.token("acme");
    let session = sign_in(&h, &token);
    let own = h.url("");
    for (fields, origin) in [
        (
            vec![("csrf", session.csrf.as_str())],
            Some("http://evil.example"),
        ),
        (vec![], Some(own.as_str())),
        (vec![], None),
        (vec![("csrf", "0".repeat(64).as_str())], Some(own.as_str())),
    ] {
        let p = post_form(&h, "/ui/logout", &fields, Some(&session.cookie), origin);
        assert_eq!(p.status, 403, "{fields:?} {origin:?}: {}", p.body);
        assert!(set_cookie(&p, "memdir_session").is_none());
        assert_eq!(
            get(&h, Some(&session.cookie), "/ui/").status,
            200,
            "{fields:?} {origin:?}"
        );
    }
}
