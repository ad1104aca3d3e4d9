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

/// The sign-in form posted with `token`.
fn post_login(h: &Harness, token: &str) -> Page {
    let form = form_urlencoded::Serializer::new(String::new())
        .append_pair("token", token)
        .finish();
    page(
        agent()
            .post(h.url("/ui/login"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(form)
            .unwrap(),
    )
}

/// Signs in with `token`; the cookie to send back.
fn sign_in(h: &Harness, token: &str) -> String {
    let p = post_login(h, token);
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(p.header("location"), Some("/ui/"));
    let cookie = p.header("set-cookie").unwrap().to_owned();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/ui"), "{cookie}");
    cookie.split(';').next().unwrap().to_owned()
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
    let cookie = sign_in(&h, &token);
    let home = get(&h, Some(&cookie), "/ui/");
    assert_eq!(home.status, 200, "{}", home.body);
    assert!(home.body.contains("name=\"repo\""));

    for bad in ["", "not-a-token", "a;b", &format!("{token}x")] {
        let p = post_login(&h, bad);
        assert_eq!(p.status, 401, "{bad:?}");
        assert!(p.header("set-cookie").is_none(), "{bad:?}");
    }
    // Signing out clears the cookie.
    let out = page(agent().post(h.url("/ui/logout")).send("").unwrap());
    assert_eq!(out.status, 303);
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
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
    assert_eq!(get(&h, Some(&other), "/ui/repo?repo=acme/app").status, 404);
}

#[test]
fn memories_are_listed_by_type_and_searched() {
    let h = start(quiet());
    let token = h.token("acme");
    seed(&h, &token);
    let cookie = sign_in(&h, &token);
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
    let cookie = sign_in(&h, &token);
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
    let cookie = sign_in(&h, &token);
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
    let p = post_login(&h, &token);
    assert_eq!(p.status, 303);
    assert!(
        p.header("set-cookie").unwrap().ends_with("; Secure"),
        "{:?}",
        p.header("set-cookie")
    );
    let plain = start(quiet());
    let token = plain.token("acme");
    assert!(
        !post_login(&plain, &token)
            .header("set-cookie")
            .unwrap()
            .contains("Secure")
    );
}
