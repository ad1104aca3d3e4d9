//! Resolution (R4.1–R4.8) through `PathResolver`, with real settings files
//! in temporary folders and an environment snapshot.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memdir_paths::{
    AutoMemPathSource, EnabledBy, Environment, PathResolver, PathsError, Resolution, TeamEnabledBy,
    project_slug,
};
use memdir_settings::SettingsSource;
use memdir_testkit::{Folders, write_file as write};

/// A home folder and a project folder, each in its own temporary folder.
struct World(Folders);

impl std::ops::Deref for World {
    type Target = Folders;
    fn deref(&self) -> &Folders {
        &self.0
    }
}

impl World {
    fn new() -> Self {
        World(Folders::new())
    }

    fn env(&self) -> Environment {
        Environment::new().with_home(&self.home)
    }

    fn user_settings(&self, json: &str) -> &Self {
        write(&self.home.join(".claude/settings.json"), json);
        self
    }

    fn project_settings(&self, json: &str) -> &Self {
        write(&self.project.join(".claude/settings.json"), json);
        self
    }

    fn local_settings(&self, json: &str) -> &Self {
        write(&self.project.join(".claude/settings.local.json"), json);
        self
    }

    fn resolve(&self, env: Environment) -> Arc<Resolution> {
        PathResolver::new(env)
            .with_managed_settings(None)
            .resolve(&self.project)
            .unwrap()
    }

    fn default_memory(&self) -> PathBuf {
        let slug = project_slug(&self.project.to_string_lossy());
        PathBuf::from(format!(
            "{}/.claude/projects/{slug}/memory/",
            self.home.display()
        ))
    }
}

#[test]
fn defaults() {
    let w = World::new();
    let r = w.resolve(w.env());
    assert!(r.enablement.enabled);
    assert_eq!(r.enablement.by, EnabledBy::Default);
    assert_eq!(r.auto_mem_path, w.default_memory());
    assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
    assert!(r.auto_mem_path.as_str().ends_with('/'));
    assert_eq!(
        (r.team_enabled, r.team_enabled_by),
        (false, TeamEnabledBy::Default)
    );
    assert_eq!(r.team_mem_path(), w.default_memory().join("team/"));
    assert!(r.team_mem_path().as_str().ends_with("/team/"));
    assert_eq!(
        r.team_entrypoint(),
        w.default_memory().join("team/MEMORY.md")
    );
    assert_eq!(r.entrypoint(), w.default_memory().join("MEMORY.md"));
    assert_eq!(
        r.daily_log_path(jiff::civil::date(2026, 11, 29)),
        w.default_memory().join("logs/2026/11/2026-11-29.md")
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn enablement_rules_in_priority_order() {
    let w = World::new();
    w.user_settings(r#"{"autoMemoryEnabled": false}"#);
    let check = |env: Environment, enabled: bool, by: EnabledBy| {
        let r = w.resolve(env.clone());
        assert_eq!(
            (r.enablement.enabled, &r.enablement.by),
            (enabled, &by),
            "{env:?}"
        );
    };
    let env = || w.env();
    // Rule 4 applies when nothing above does.
    check(env(), false, EnabledBy::Settings(SettingsSource::User));
    // Rule 1 both ways, overriding everything below.
    check(
        env().with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
        false,
        EnabledBy::DisableEnv,
    );
    check(
        env().with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "TRUE"),
        false,
        EnabledBy::DisableEnv,
    );
    check(
        env()
            .with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")
            .with_var("CLAUDE_CODE_SIMPLE", "1"),
        true,
        EnabledBy::DisableEnv,
    );
    check(
        env().with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "false"),
        true,
        EnabledBy::DisableEnv,
    );
    // Anything else falls through.
    check(
        env()
            .with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "maybe")
            .with_var("CLAUDE_CODE_SIMPLE", "1"),
        false,
        EnabledBy::SimpleMode,
    );
    // Rule 3, and persistent storage lifting it.
    check(
        env().with_var("CLAUDE_CODE_REMOTE", "true"),
        false,
        EnabledBy::RemoteWithoutStorage,
    );
    check(
        env()
            .with_var("CLAUDE_CODE_REMOTE", "true")
            .with_var("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/data"),
        false,
        EnabledBy::Settings(SettingsSource::User),
    );
    // A higher settings source wins over a lower one.
    w.local_settings(r#"{"autoMemoryEnabled": true}"#);
    check(env(), true, EnabledBy::Settings(SettingsSource::Local));
}

#[test]
fn rule_five_is_the_default_and_bad_values_are_warned() {
    let w = World::new();
    w.user_settings(r#"{"autoMemoryEnabled": "no"}"#);
    let r = w.resolve(w.env());
    assert_eq!(
        (r.enablement.enabled, &r.enablement.by),
        (true, &EnabledBy::Default)
    );
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0].contains("autoMemoryEnabled is \"no\""),
        "{:?}",
        r.warnings
    );
}

#[test]
fn committed_project_settings_never_choose_the_memory_folder() {
    let w = World::new();
    let ssh = w.home.join(".ssh");
    w.project_settings(&format!(
        r#"{{"autoMemoryDirectory": "{}"}}"#,
        ssh.display()
    ));
    let r = w.resolve(w.env());
    assert_eq!(r.auto_mem_path, w.default_memory());
    assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
    assert!(
        r.warnings
            .iter()
            .any(|m| m.contains("ignored in the committed project settings")),
        "{:?}",
        r.warnings
    );
    // `~/` from the project file is just as ignored.
    w.project_settings(r#"{"autoMemoryDirectory": "~/.ssh"}"#);
    assert_eq!(w.resolve(w.env()).auto_mem_path, w.default_memory());
}

#[test]
fn trusted_sources_choose_in_precedence_order() {
    let w = World::new();
    w.user_settings(r#"{"autoMemoryDirectory": "~/mem-user"}"#);
    let r = w.resolve(w.env());
    assert_eq!(r.auto_mem_path, w.home.join("mem-user/"));
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::User)
    );

    w.local_settings(r#"{"autoMemoryDirectory": "/srv/mem-local"}"#);
    let r = w.resolve(w.env());
    assert_eq!(r.auto_mem_path, PathBuf::from("/srv/mem-local/"));
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::Local)
    );

    let flag = w.home.join("flag.json");
    write(&flag, r#"{"autoMemoryDirectory": "/srv/mem-flag"}"#);
    let r = PathResolver::new(w.env())
        .with_managed_settings(None)
        .with_settings_file(Some(flag.clone()))
        .resolve(&w.project)
        .unwrap();
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::Flag)
    );

    let managed = w.home.join("managed.json");
    write(&managed, r#"{"autoMemoryDirectory": "/srv/mem-managed"}"#);
    let r = PathResolver::new(w.env())
        .with_managed_settings(Some(managed))
        .with_settings_file(Some(flag))
        .resolve(&w.project)
        .unwrap();
    assert_eq!(r.auto_mem_path, PathBuf::from("/srv/mem-managed/"));
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::Managed)
    );

    // The environment override beats every settings file.
    let r = w.resolve(
        w.env()
            .with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/srv/mem-env"),
    );
    assert_eq!(r.auto_mem_path, PathBuf::from("/srv/mem-env/"));
    assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Env);
}

#[test]
fn invalid_overrides_fall_through_with_a_warning() {
    let w = World::new();
    w.user_settings(r#"{"autoMemoryDirectory": "~/ok"}"#);
    w.local_settings(r#"{"autoMemoryDirectory": "relative/path"}"#);
    let r = w.resolve(w.env().with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/"));
    assert_eq!(r.auto_mem_path, w.home.join("ok/"));
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(
        r.warnings[0].starts_with("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: memory path \"/\" rejected")
    );
    assert!(r.warnings[1].contains(
        "settings.local.json: autoMemoryDirectory: memory path \"relative/path\" rejected"
    ));
    // The home folder itself is refused too, and `~` is not expanded in the
    // environment override.
    let r = w.resolve(
        w.env()
            .with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "~/x"),
    );
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::User)
    );
    w.user_settings(r#"{"autoMemoryDirectory": "~"}"#);
    w.local_settings("{}");
    let r = w.resolve(w.env());
    assert_eq!(r.auto_mem_path, w.default_memory());
}

#[test]
fn config_dir_moves_the_base() {
    let w = World::new();
    let base = w.home.join("alt-config");
    let r = w.resolve(
        w.env()
            .with_var("CLAUDE_CONFIG_DIR", base.to_string_lossy()),
    );
    assert_eq!(r.base, base);
    assert!(r.auto_mem_path.starts_with(base.join("projects")));
    // User settings are read from the new base.
    write(
        &base.join("settings.json"),
        r#"{"autoMemoryEnabled": false}"#,
    );
    let r = w.resolve(
        w.env()
            .with_var("CLAUDE_CONFIG_DIR", base.to_string_lossy()),
    );
    assert_eq!(r.enablement.by, EnabledBy::Settings(SettingsSource::User));
}

#[test]
fn no_home_and_no_config_dir_is_an_error() {
    let w = World::new();
    let err = PathResolver::new(Environment::new())
        .with_managed_settings(None)
        .resolve(&w.project)
        .unwrap_err();
    assert!(matches!(err, PathsError::NoHome), "{err}");
}

#[test]
fn team_enablement() {
    let w = World::new();
    let r = w.resolve(w.env().with_var("MEMDIR_TEAM", "1"));
    assert_eq!(
        (r.team_enabled, r.team_enabled_by),
        (true, TeamEnabledBy::Env)
    );
    w.project_settings(r#"{"teamMemoryEnabled": true}"#);
    let r = w.resolve(w.env());
    assert_eq!(
        (r.team_enabled, r.team_enabled_by),
        (true, TeamEnabledBy::Settings(SettingsSource::Project))
    );
    let r = w.resolve(
        w.env()
            .with_var("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
            .with_var("MEMDIR_TEAM", "1"),
    );
    assert_eq!(
        (r.team_enabled, r.team_enabled_by),
        (false, TeamEnabledBy::AutoMemoryOff)
    );
}

#[test]
fn explicit_memory_dir_skips_the_chain_but_not_validation() {
    let w = World::new();
    let resolver = |dir: &str| {
        PathResolver::new(
            w.env()
                .with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/srv/env"),
        )
        .with_managed_settings(None)
        .with_memory_dir(Some(PathBuf::from(dir)))
    };
    let r = resolver("/srv/explicit").resolve(&w.project).unwrap();
    assert_eq!(
        (
            r.auto_mem_path.clone().into_std_path_buf(),
            r.auto_mem_path_source
        ),
        (PathBuf::from("/srv/explicit/"), AutoMemPathSource::Explicit)
    );
    let err = resolver("/").resolve(&w.project).unwrap_err();
    assert!(matches!(err, PathsError::InvalidMemoryDir(_)), "{err}");
    let err = resolver(&w.home.to_string_lossy())
        .resolve(&w.project)
        .unwrap_err();
    assert!(err.to_string().contains("home folder"), "{err}");
}

#[test]
fn resolution_is_memoised_per_project() {
    let w = World::new();
    let resolver = PathResolver::new(w.env()).with_managed_settings(None);
    let first = resolver.resolve(&w.project).unwrap();
    // A change on disk after the first resolution does not change the answer.
    w.local_settings(r#"{"autoMemoryEnabled": false}"#);
    // Outside git the working directory is the project; another spelling
    // of it (through a symbolic link) is the same project.
    let link = w.home.join("app-link");
    std::os::unix::fs::symlink(&w.project, &link).unwrap();
    let again = resolver.resolve(&link).unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert!(again.enablement.enabled);
    // A fresh resolver sees the change.
    let fresh = PathResolver::new(w.env())
        .with_managed_settings(None)
        .resolve(&w.project)
        .unwrap();
    assert!(!fresh.enablement.enabled);
}

#[test]
fn invalid_settings_files_are_named_in_warnings() {
    let w = World::new();
    w.local_settings("{ this is not json");
    let r = w.resolve(w.env());
    assert!(r.enablement.enabled);
    assert_eq!(r.warnings.len(), 1);
    assert!(
        r.warnings[0].contains("settings.local.json: settings are not valid JSON"),
        "{:?}",
        r.warnings
    );
}

/// With git installed, a real `git worktree add` maps to the main
/// repository's memory folder.
#[test]
#[allow(clippy::print_stderr, reason = "a skipped check says so")]
fn real_git_worktrees_share_one_memory_folder() {
    let w = World::new();
    let git = |args: &[&str], dir: &Path| {
        std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .output()
    };
    match git(&["init", "-q"], &w.project) {
        Ok(out) if out.status.success() => {}
        _ => {
            eprintln!("SKIPPED real_git_worktrees_share_one_memory_folder: git is not available");
            return;
        }
    }
    git(&["commit", "-q", "--allow-empty", "-m", "init"], &w.project).unwrap();
    let wt = w.project.parent().unwrap().join("app-feature");
    let out = git(&["worktree", "add", "-q", wt.to_str().unwrap()], &w.project).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let main = w.resolve(w.env());
    let linked = PathResolver::new(w.env())
        .with_managed_settings(None)
        .resolve(&wt)
        .unwrap();
    assert_eq!(linked.project.canonical, w.project);
    assert_eq!(linked.project.work_tree, fs::canonicalize(&wt).unwrap());
    assert_eq!(linked.auto_mem_path, main.auto_mem_path);
}

/// R4.3 step 3: `CLAUDE_CODE_PROJECT_DIR_NAME` names the folder under
/// `<base>/projects/` when `CLAUDE_CONFIG_DIR` is set too.
mod project_dir_name {
    use super::*;

    const VAR: &str = "CLAUDE_CODE_PROJECT_DIR_NAME";

    fn with_base(w: &World) -> (PathBuf, Environment) {
        let base = w.home.join("cfg");
        let env = w
            .env()
            .with_var("CLAUDE_CONFIG_DIR", base.to_string_lossy());
        (base, env)
    }

    fn slug_memory(w: &World, base: &Path) -> PathBuf {
        let slug = project_slug(&w.project.to_string_lossy());
        PathBuf::from(format!("{}/projects/{slug}/memory/", base.display()))
    }

    #[test]
    fn names_the_folder_with_the_config_dir() {
        let w = World::new();
        let (base, env) = with_base(&w);
        let r = w.resolve(env.clone().with_var(VAR, "my-app"));
        assert_eq!(
            r.auto_mem_path,
            PathBuf::from(format!("{}/projects/my-app/memory/", base.display()))
        );
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::ProjectDirName);
        assert_eq!(
            r.auto_mem_path_source.to_string(),
            "env:CLAUDE_CODE_PROJECT_DIR_NAME"
        );
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // Team and entrypoint follow the folder.
        assert!(
            r.team_mem_path()
                .starts_with(base.join("projects/my-app/memory/team"))
        );
        // Without the variable the sanitised project root names it.
        let r = w.resolve(env);
        assert_eq!(r.auto_mem_path, slug_memory(&w, &base));
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
    }

    #[test]
    fn is_ignored_without_the_config_dir_and_says_so() {
        let w = World::new();
        let r = w.resolve(w.env().with_var(VAR, "my-app"));
        assert_eq!(r.auto_mem_path, w.default_memory());
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0]
                .starts_with("CLAUDE_CODE_PROJECT_DIR_NAME is ignored without CLAUDE_CONFIG_DIR"),
            "{:?}",
            r.warnings
        );
        // An empty value without the config dir is as good as unset.
        let r = w.resolve(w.env().with_var(VAR, ""));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }

    #[test]
    fn hostile_names_fall_through_with_a_warning_naming_the_variable() {
        let w = World::new();
        let (base, env) = with_base(&w);
        let long = "n".repeat(256);
        for (raw, why) in [
            ("../x", "path separator"),
            ("../../../../.ssh", "path separator"),
            ("..\\..\\x", "path separator"),
            ("a/b", "path separator"),
            ("a\\b", "path separator"),
            ("/etc", "path separator"),
            (".", "is . or .."),
            ("..", "is . or .."),
            ("", "is empty"),
            ("a\0b", "NUL byte"),
            ("line\nbreak", "control character"),
            (long.as_str(), "longer than 255 bytes"),
        ] {
            let r = w.resolve(env.clone().with_var(VAR, raw));
            assert_eq!(r.auto_mem_path, slug_memory(&w, &base), "{raw:?}");
            assert_eq!(
                r.auto_mem_path_source,
                AutoMemPathSource::Default,
                "{raw:?}"
            );
            assert!(
                r.auto_mem_path.starts_with(base.join("projects")),
                "{raw:?}"
            );
            assert_eq!(r.warnings.len(), 1, "{raw:?}: {:?}", r.warnings);
            let warning = &r.warnings[0];
            assert!(
                warning.starts_with("CLAUDE_CODE_PROJECT_DIR_NAME: project folder name "),
                "{raw:?}: {warning}"
            );
            assert!(warning.contains(why), "{raw:?}: {warning}");
            assert!(warning.ends_with("; ignored"), "{raw:?}: {warning}");
            assert!(
                !warning.contains('\0') && !warning.contains('\n'),
                "{warning:?}"
            );
            assert!(warning.len() < 300, "{warning}");
        }
    }

    #[test]
    fn the_whole_folder_passes_the_memory_path_rules() {
        let w = World::new();
        // A relative config dir makes a relative folder: refused by R4.6.
        let env = w
            .env()
            .with_var("CLAUDE_CONFIG_DIR", "relative-cfg")
            .with_var(VAR, "my-app");
        let r = w.resolve(env);
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
        assert!(
            r.warnings.iter().any(|m| m.starts_with(
                "CLAUDE_CODE_PROJECT_DIR_NAME: memory path \"relative-cfg/projects/my-app/memory\" rejected: it is not absolute"
            )),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn higher_rules_still_win() {
        let w = World::new();
        let (_, env) = with_base(&w);
        let env = env.with_var(VAR, "my-app");
        let r = w.resolve(
            env.clone()
                .with_var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/srv/mem-env"),
        );
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Env);
        write(
            &w.home.join("cfg/settings.json"),
            r#"{"autoMemoryDirectory": "/srv/mem-user"}"#,
        );
        let r = w.resolve(env);
        assert_eq!(
            r.auto_mem_path_source,
            AutoMemPathSource::Settings(SettingsSource::User)
        );
    }
}

#[test]
fn the_resolution_carries_the_settings_it_read() {
    let w = World::new();
    w.user_settings(r#"{"teamMemory": {"url": "https://user"}}"#)
        .project_settings(r#"{"teamMemory": {"url": "https://repo"}}"#)
        .local_settings("{not json");
    let managed = w.home.join("managed.json");
    write(&managed, r#"{"autoMemoryEnabled": true}"#);
    let r = PathResolver::new(w.env())
        .with_managed_settings(Some(managed.clone()))
        .resolve(&w.project)
        .unwrap();
    let sources: Vec<_> = r.settings.files().iter().map(|f| f.source).collect();
    assert_eq!(
        sources,
        [
            SettingsSource::User,
            SettingsSource::Project,
            SettingsSource::Managed
        ]
    );
    assert_eq!(r.settings.files()[2].path, managed);
    let (file, value) = r
        .settings
        .find("teamMemory", memdir_settings::SettingsFile::is_trusted)
        .unwrap();
    assert_eq!(
        (file.source, value["url"].as_str()),
        (SettingsSource::User, Some("https://user"))
    );
    let warned: Vec<_> = r.settings.warnings.iter().map(|w| w.path.clone()).collect();
    assert_eq!(warned, [w.project.join(".claude/settings.local.json")]);
    assert_eq!(r.warnings[0], r.settings.warnings[0].to_string());
}

/// Paths that are not UTF-8 are refused by name, exactly, never spelled
/// lossily (which would name another folder).
#[cfg(unix)]
mod not_utf8 {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use memdir_paths::{MemoryPathReason, PathOrigin};

    use super::*;

    fn bad(parent: &Path) -> PathBuf {
        parent.join(OsStr::from_bytes(b"proj\xff"))
    }

    fn refused(result: Result<Arc<Resolution>, PathsError>, what: PathOrigin, path: &Path) {
        match result {
            Err(PathsError::NotUtf8 {
                what: got,
                path: got_path,
            }) => {
                assert_eq!((got, got_path.as_path()), (what, path));
                let message = PathsError::NotUtf8 {
                    what,
                    path: path.to_owned(),
                }
                .to_string();
                assert!(message.contains("proj\u{fffd}"), "{message}");
                assert!(message.ends_with("is not valid UTF-8"), "{message}");
            }
            other => panic!("expected NotUtf8 {what}, got {other:?}"),
        }
    }

    #[test]
    fn a_project_folder() {
        let w = World::new();
        let project = bad(&w.project);
        fs::create_dir(&project).unwrap();
        let r = PathResolver::new(w.env())
            .with_managed_settings(None)
            .resolve(&project);
        refused(r, PathOrigin::ProjectFolder, &project);
        let err = PathResolver::new(w.env())
            .with_managed_settings(None)
            .resolve(&project)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("project folder {} is not valid UTF-8", project.display())
        );
    }

    #[test]
    fn a_folder_inside_a_utf8_repository_is_fine() {
        let w = World::new();
        fs::create_dir_all(w.project.join(".git")).unwrap();
        let inner = bad(&w.project);
        fs::create_dir(&inner).unwrap();
        let r = PathResolver::new(w.env())
            .with_managed_settings(None)
            .resolve(&inner)
            .unwrap();
        assert_eq!(r.project.work_tree, w.project);
    }

    #[test]
    fn a_main_repository_behind_a_linked_worktree() {
        let w = World::new();
        let main = bad(&w.home);
        let wt_git = main.join(".git/worktrees/wt");
        fs::create_dir_all(&wt_git).unwrap();
        fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        // `.git` files are read as text: reach the folder through a link
        // with a UTF-8 name, which resolving the link then leaves.
        let link = w.home.join("main-link");
        std::os::unix::fs::symlink(&main, &link).unwrap();
        fs::write(
            w.project.join(".git"),
            format!("gitdir: {}\n", link.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        let r = PathResolver::new(w.env())
            .with_managed_settings(None)
            .resolve(&w.project);
        refused(r, PathOrigin::ProjectRoot, &main);
    }

    #[test]
    fn the_config_dir_the_home_folder_and_the_memory_dir() {
        let w = World::new();
        let dir = bad(&w.home);
        let env = w.env().with_var_os("CLAUDE_CONFIG_DIR", dir.as_os_str());
        refused(
            PathResolver::new(env)
                .with_managed_settings(None)
                .resolve(&w.project),
            PathOrigin::ConfigDir,
            &dir,
        );

        let env = Environment::new().with_home(&dir);
        refused(
            PathResolver::new(env)
                .with_managed_settings(None)
                .resolve(&w.project),
            PathOrigin::Home,
            &dir.join(".claude"),
        );

        refused(
            PathResolver::new(w.env())
                .with_managed_settings(None)
                .with_memory_dir(Some(dir.clone()))
                .resolve(&w.project),
            PathOrigin::MemoryDir,
            &dir,
        );
    }

    #[test]
    fn overrides_are_warned_about_and_skipped() {
        let w = World::new();
        let home = bad(&w.home);
        fs::create_dir(&home).unwrap();
        let base = w.home.join("base");
        write(
            &base.join("settings.json"),
            r#"{"autoMemoryDirectory": "~/mem"}"#,
        );
        let env = Environment::new()
            .with_home(&home)
            .with_var("CLAUDE_CONFIG_DIR", base.to_str().unwrap())
            .with_var_os("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", bad(Path::new("/srv")))
            .with_var_os("CLAUDE_CODE_PROJECT_DIR_NAME", OsStr::from_bytes(b"n\xff"));
        let r = w.resolve(env);
        assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
        assert!(r.auto_mem_path.starts_with(base.join("projects")));
        assert_eq!(
            r.warnings,
            [
                "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: /srv/proj\u{fffd} is not valid UTF-8; ignored"
                    .to_owned(),
                format!(
                    "{}: autoMemoryDirectory: memory path \"~/mem\" rejected: {}; ignored",
                    base.join("settings.json").display(),
                    MemoryPathReason::HomeNotUtf8
                ),
                "CLAUDE_CODE_PROJECT_DIR_NAME: n\u{fffd} is not valid UTF-8; ignored".to_owned(),
            ]
        );
    }
}
