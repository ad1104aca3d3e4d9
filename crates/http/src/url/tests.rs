//! The URL rules: what parses, the loopback rule on hostile hosts, and
//! the cleaned form for errors.

use super::*;

fn url(text: &str) -> Url {
    Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn problem(text: &str) -> UrlProblem {
    match Url::parse(text) {
        Err(Error::InvalidUrl { problem, .. }) => problem,
        other => panic!("{text}: expected InvalidUrl, got {other:?}"),
    }
}

#[test]
fn http_urls_with_a_host_parse() {
    for text in [
        "https://api.anthropic.com",
        "http://127.0.0.1:1234/v1/",
        "HTTP://LOCALHOST:1",
        "http://[::1]:9000/x?y=1",
        "http://h/v1?key=1",
    ] {
        url(text);
    }
}

#[test]
fn everything_else_is_refused_with_its_problem() {
    assert_eq!(problem("ftp://x"), UrlProblem::Scheme);
    assert_eq!(problem("file:///etc/passwd"), UrlProblem::Syntax);
    assert_eq!(problem("localhost:8080"), UrlProblem::Scheme);
    assert_eq!(problem("api.openai.com/v1"), UrlProblem::Syntax);
    assert_eq!(problem("http://"), UrlProblem::Syntax);
    assert_eq!(problem("http://ho st"), UrlProblem::Syntax);
    assert_eq!(problem("http://h/\r\nx-evil: 1"), UrlProblem::Syntax);
    assert_eq!(problem("http://[::1"), UrlProblem::Syntax);
    assert_eq!(problem("http://h\\@evil.com/"), UrlProblem::Syntax);
    assert_eq!(problem("http://h:99999/"), UrlProblem::Port);
    assert_eq!(problem("http://h/a#frag"), UrlProblem::Fragment);
    assert_eq!(problem("http://h/\u{e9}"), UrlProblem::NotAscii);
    assert_eq!(problem("http://h\u{a0}/"), UrlProblem::NotAscii);
    assert_eq!(problem(""), UrlProblem::Syntax);
}

#[test]
fn loopback_hosts_are_recognised() {
    for text in [
        "http://127.0.0.1:8080/v1",
        "http://127.1.2.3",
        "http://127.255.255.255",
        "http://localhost/v1",
        "http://LOCALHOST:1",
        "http://LocalHost",
        "http://[::1]:9000",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://user@localhost:80/x",
        "http://evil.com@127.0.0.1/",
    ] {
        assert!(url(text).is_loopback(), "{text}");
    }
}

#[test]
fn hostile_hosts_are_not_loopback() {
    for text in [
        "https://api.openai.com/v1",
        "http://10.0.0.1:8080",
        "http://0.0.0.0",
        "http://localhost.example.com",
        "http://localhost.evil.com",
        "http://evil.localhost",
        "http://127.0.0.1.nip.io",
        "http://127.0.0.1.evil.com:80",
        "http://127.0.0.1@evil.com/",
        "http://127.0.0.1:80@evil.com/",
        "http://localhost@evil.com/",
        "http://[::1]@evil.com/",
        "http://a@127.0.0.1@evil.com/",
        "http://[2001:db8::1]:80",
        "http://[::ffff:127.0.0.1]/",
        "http://127.1",
        "http://2130706433",
        "http://0x7f.0.0.1",
        "http://localhost./",
    ] {
        let url = url(text);
        assert!(!url.is_loopback(), "{text} (host {})", url.host());
    }
}

#[test]
fn the_host_is_the_one_after_the_userinfo() {
    assert_eq!(url("http://127.0.0.1@evil.com/").host(), "evil.com");
    assert_eq!(url("http://[::1]:80/").host(), "[::1]");
}

#[test]
fn credentials_are_removed_from_urls() {
    let check = |text: &str, expected: &str| assert_eq!(url(text).redacted(), expected, "{text}");
    check(
        "http://me:secret@localhost:80/v1/messages",
        "http://localhost:80/v1/messages",
    );
    check("https://h/v1/x@y", "https://h/v1/x@y");
    check("https://h", "https://h/");
    check(
        "https://h/p?key=s3cr3t&view=hashes",
        "https://h/p?key=[redacted]&view=hashes",
    );
    check(
        "https://h/p?API_KEY=a&access_token=b&client-secret=c&Token=d&repo=acme/w",
        "https://h/p?API_KEY=[redacted]&access_token=[redacted]&client-secret=[redacted]&Token=[redacted]&repo=acme/w",
    );
    check(
        "https://h/p?keyboard=1&monkey=2",
        "https://h/p?keyboard=1&monkey=2",
    );
    check("https://h/p?flag&sig=x", "https://h/p?flag&sig=[redacted]");
}

#[test]
fn display_and_debug_show_the_cleaned_url() {
    let url = url("http://me:pw@h/?token=t0k");
    for shown in [url.to_string(), format!("{url:?}")] {
        assert!(!shown.contains("pw"), "{shown}");
        assert!(!shown.contains("t0k"), "{shown}");
    }
}

#[test]
fn unparsable_text_is_cleaned_too() {
    let check = |text: &str, expected: &str| assert_eq!(redact_text(text), expected, "{text}");
    check("http://me:pw@ho st/x", "http://[redacted]@ho st/x");
    check("http://ho st/x?key=1", "http://ho st/x");
    check("me:pw@host", "[redacted]@host");
    check("http://h/\r\n", "http://h/  ");
    assert_eq!(redact_text(&"x".repeat(500)).chars().count(), 201);
    check("http://me:pw@h/v1?key=1", "http://h/v1?key=[redacted]");
}

#[test]
fn invalid_url_errors_never_quote_credentials() {
    for text in [
        "ftp://me:hunter2@h/",
        "http://me:hunter2@ho st/",
        "http://h/?key=hunter2#x",
        "hunter2@h",
    ] {
        let err = Url::parse(text).unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}
