//! The web view in a real browser: headless Chromium driven through
//! `chromedriver` (`WebDriver`). Sign in, open a repository, search, open a
//! memory whose text holds `<script>` and `<img src=http://…>`, and see
//! both shown as text; sign out and be asked for a token again; post the
//! sign-in form from a page of another origin and be refused. Without Chromium and `chromedriver` the test says so
//! and passes, unless `MEMDIR_REQUIRE_BROWSER=1` (set by CI) makes that a
//! failure. A failing run saves a screenshot and names it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

use crate::support::{Harness, quiet, start};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A `chromedriver` process, stopped when dropped.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_driver() -> (Driver, u16) {
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (driver, port)
}

fn seed(h: &Harness) -> String {
    let token = h.token("acme");
    let entries = json!({
        "deploy.md": "---\nname: deploy\ndescription: how the service deploys\ntype: project\n---\nRun `make deploy` from main.\n",
        "who.md": "---\nname: who\ndescription: the team's roles\ntype: user\n---\nAna owns billing.\n",
        "evil.md": "---\nname: evil\ndescription: a memory with markup in it\ntype: project\n---\n<script>document.title='pwned'</script>\n\n<img src=http://tracker.invalid/p.png>\n",
    });
    assert_eq!(h.put(&token, "acme/app", None, &entries).status, 200);
    token
}

#[test]
#[allow(clippy::print_stderr)] // says plainly that the test was skipped, or where the screenshot is
fn a_member_signs_in_searches_and_reads_a_memory_as_text() {
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        assert!(
            std::env::var("MEMDIR_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_BROWSER=1 but {CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
        );
        eprintln!(
            "skipped: Chromium or ChromeDriver is not installed (apt-get install chromium chromium-driver)"
        );
        return;
    }
    let h = start(quiet());
    let token = seed(&h);
    let (_driver, port) = start_driver();
    let profile = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = connect(port, profile.path()).await;
        let result = steps(&client, &h, &token).await;
        if let Err(e) = &result {
            let shot = screenshot(&client).await;
            eprintln!("the browser test failed: {e}; screenshot: {shot:?}");
        }
        let _ = client.close().await;
        result.unwrap();
    });
}

async fn connect(port: u16, profile: &Path) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": CHROMIUM,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                format!("--user-data-dir={}", profile.display()),
            ],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a WebDriver session")
}

/// Saves a screenshot of the page as it is now; its path.
async fn screenshot(client: &Client) -> Option<PathBuf> {
    let png = client.screenshot().await.ok()?;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-view-failure.png");
    std::fs::write(&path, png).ok()?;
    Some(path)
}

/// What a member does, each step checked; the first that fails, named.
async fn steps(c: &Client, h: &Harness, token: &str) -> Result<(), String> {
    // Without a session: the sign-in form, not the memories.
    c.goto(&h.url("/ui/repo?repo=acme/app"))
        .await
        .map_err(fail("open"))?;
    let text = c.source().await.map_err(fail("source"))?;
    check(
        text.contains("401: sign in with a team token"),
        "no 401 and sign-in form without a token",
    )?;
    check(
        !text.contains("make deploy"),
        "a memory shown without a token",
    )?;

    fill(c, "token", token).await?;
    submit(c, "sign-in", Locator::Id("repo")).await?;
    fill(c, "repo", "acme/app").await?;
    submit(c, "open", Locator::Css("ul.memories")).await?;
    let list = c.source().await.map_err(fail("source"))?;
    check(
        list.contains("how the service deploys"),
        "the list lacks a description",
    )?;
    check(
        list.contains("<h2>user</h2>") && list.contains("<h2>project</h2>"),
        "no types",
    )?;

    fill(c, "q", "deploy").await?;
    submit(c, "search", Locator::Css("ol.memories")).await?;
    let results = c
        .find_all(Locator::Css("ol.memories li"))
        .await
        .map_err(fail("results"))?;
    let first = match results.first() {
        Some(r) => r.text().await.map_err(fail("result text"))?,
        None => return Err("no search result".to_owned()),
    };
    check(
        first.contains("deploy.md"),
        "deploy.md is not the first result",
    )?;
    memory_as_text(c, h).await?;
    sign_out(c, h).await?;
    cross_site_sign_in(c, h, token).await
}

/// Signing out ends the session: the pages ask for a token again.
async fn sign_out(c: &Client, h: &Harness) -> Result<(), String> {
    submit(c, "sign-out", Locator::Id("sign-in")).await?;
    c.goto(&h.url("/ui/repo?repo=acme/app"))
        .await
        .map_err(fail("open after sign-out"))?;
    let text = c.source().await.map_err(fail("source"))?;
    check(
        text.contains("401: sign in") && !text.contains("make deploy"),
        "the memories are shown after signing out",
    )
}

/// A page of another origin posting the sign-in form, with a valid token
/// (an attacker's own): refused, and no session is started.
async fn cross_site_sign_in(c: &Client, h: &Harness, token: &str) -> Result<(), String> {
    let attacker = format!(
        "data:text/html,<form method=post action={}>\
         <input name=token value={token}><input name=csrf value={}>\
         <button id=go>go</button></form>",
        h.url("/ui/login"),
        "0".repeat(64)
    );
    c.goto(&attacker)
        .await
        .map_err(fail("the other site's page"))?;
    submit(c, "go", Locator::Id("sign-in")).await?;
    let text = c.source().await.map_err(fail("source"))?;
    check(text.contains("403:"), "a cross-site sign-in is not refused")?;
    c.goto(&h.url("/ui/repo?repo=acme/app"))
        .await
        .map_err(fail("open after the cross-site sign-in"))?;
    let text = c.source().await.map_err(fail("source"))?;
    check(
        text.contains("401: sign in") && !text.contains("make deploy"),
        "a cross-site sign-in started a session",
    )
}

/// The memory holding markup: its script and image are text, nothing ran
/// and the page holds neither element.
async fn memory_as_text(c: &Client, h: &Harness) -> Result<(), String> {
    c.goto(&h.url("/ui/memory?repo=acme/app&key=evil.md"))
        .await
        .map_err(fail("open memory"))?;
    c.wait()
        .for_element(Locator::Css("article"))
        .await
        .map_err(fail("the memory page"))?;
    let article = c
        .find(Locator::Css("article"))
        .await
        .map_err(fail("article"))?
        .text()
        .await
        .map_err(fail("article text"))?;
    check(
        article.contains("<script>document.title='pwned'</script>"),
        "the script is not shown as text",
    )?;
    check(
        article.contains("<img src=http://tracker.invalid/p.png>"),
        "the image is not shown as text",
    )?;
    let title = c.title().await.map_err(fail("title"))?;
    check(title != "pwned", "the memory's script ran")?;
    let images = c
        .find_all(Locator::Css("img"))
        .await
        .map_err(fail("images"))?;
    check(images.is_empty(), "the page has an image element")?;
    let scripts = c
        .find_all(Locator::Css("script"))
        .await
        .map_err(fail("scripts"))?;
    check(scripts.is_empty(), "the page has a script element")
}

/// Types `text` into the field with id `id`.
async fn fill(c: &Client, id: &str, text: &str) -> Result<(), String> {
    c.find(Locator::Id(id))
        .await
        .map_err(|e| format!("field {id}: {e}"))?
        .send_keys(text)
        .await
        .map_err(|e| format!("typing into {id}: {e}"))
}

/// Clicks the button with id `button` and waits for `next` on the page
/// it leads to.
async fn submit(c: &Client, button: &str, next: Locator<'_>) -> Result<(), String> {
    c.find(Locator::Id(button))
        .await
        .map_err(|e| format!("button {button}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("clicking {button}: {e}"))?;
    c.wait()
        .for_element(next)
        .await
        .map_err(|e| format!("the page after {button}: {e}"))?;
    Ok(())
}

/// A `WebDriver` error as the step that met it.
fn fail(what: &'static str) -> impl Fn(fantoccini::error::CmdError) -> String {
    move |e| format!("{what}: {e}")
}

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what.to_owned()) }
}
