//! Remote URL forms and git configuration layouts.

use super::*;

#[track_caller]
fn check(url: &str, expected: Option<&str>) {
    assert_eq!(parse_github_remote(url).as_deref(), expected, "{url}");
}

#[test]
fn github_forms() {
    for url in [
        "https://github.com/acme/widgets",
        "https://github.com/acme/widgets.git",
        "https://github.com/acme/widgets/",
        "https://github.com/acme/widgets.git/",
        "http://github.com/acme/widgets",
        "https://GitHub.com/acme/widgets",
        "https://www.github.com/acme/widgets",
        "https://user@github.com/acme/widgets.git",
        "https://user:token@github.com/acme/widgets.git",
        "ssh://git@github.com/acme/widgets.git",
        "ssh://git@github.com:22/acme/widgets.git",
        "ssh://github.com/acme/widgets",
        "git+ssh://git@github.com/acme/widgets.git",
        "git://github.com/acme/widgets.git",
        "git@github.com:acme/widgets.git",
        "git@github.com:acme/widgets",
        "git@github.com:/acme/widgets.git",
        "github.com:acme/widgets.git",
        "  git@github.com:acme/widgets.git \n",
    ] {
        check(url, Some("acme/widgets"));
    }
    check(
        "git@github.com:my-org/my_repo.name.git",
        Some("my-org/my_repo.name"),
    );
}

#[test]
fn other_hosts_and_shapes_are_none() {
    for url in [
        "https://gitlab.com/acme/widgets.git",
        "git@gitlab.com:acme/widgets.git",
        "https://bitbucket.org/acme/widgets",
        "https://github.com.evil.com/acme/widgets",
        "https://evilgithub.com/acme/widgets",
        "https://github.enterprise.example/acme/widgets",
        "ssh://git@example.com/github.com/acme/widgets",
        "/srv/git/widgets.git",
        "../widgets",
        "file:///srv/github.com/acme/widgets.git",
        "https://github.com/acme",
        "https://github.com/acme/widgets/tree/main",
        "https://github.com//widgets",
        "git@github.com:acme/../widgets",
        "git@github.com:acme/wid gets",
        "",
    ] {
        check(url, None);
    }
}

#[test]
fn reads_origin_from_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/up/stream\n\
         # a comment\n[remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\
         \turl = \"https://github.com/acme/widgets.git\"\n",
    )
    .unwrap();
    assert_eq!(
        repo_from_git_config(dir.path()).as_deref(),
        Some("acme/widgets")
    );
}

#[test]
fn no_origin_or_no_repo_is_none() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(repo_from_git_config(dir.path()), None);
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        "[remote \"upstream\"]\n\turl = https://github.com/up/stream\n",
    )
    .unwrap();
    assert_eq!(repo_from_git_config(dir.path()), None);
    std::fs::write(
        dir.path().join(".git/config"),
        "[remote \"origin\"]\n\turl = git@gitlab.com:acme/widgets.git\n",
    )
    .unwrap();
    assert_eq!(repo_from_git_config(dir.path()), None);
}

#[test]
fn linked_worktree_follows_commondir() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main");
    let common = main.join(".git");
    let wt_git = common.join("worktrees/feature");
    std::fs::create_dir_all(&wt_git).unwrap();
    std::fs::write(
        common.join("config"),
        "[remote \"origin\"]\n\turl = ssh://git@github.com/acme/widgets.git\n",
    )
    .unwrap();
    std::fs::write(wt_git.join("commondir"), "../..\n").unwrap();
    let wt = dir.path().join("feature");
    std::fs::create_dir(&wt).unwrap();
    std::fs::write(wt.join(".git"), format!("gitdir: {}\n", wt_git.display())).unwrap();
    assert_eq!(repo_from_git_config(&wt).as_deref(), Some("acme/widgets"));
}

#[test]
fn names_the_protocol_refuses_are_none() {
    let long = "n".repeat(101);
    for url in [
        "https://github.com/acme/.github".to_owned(),
        "git@github.com:.acme/widgets.git".to_owned(),
        format!("https://github.com/acme/{long}"),
        "https://github.com/acme/wid%2egets".to_owned(),
    ] {
        check(&url, None);
    }
    let longest = format!("https://github.com/acme/{}", "n".repeat(100));
    check(&longest, Some(&format!("acme/{}", "n".repeat(100))));
}
