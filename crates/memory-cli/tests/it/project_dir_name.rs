//! `CLAUDE_CODE_PROJECT_DIR_NAME` (SPEC R4.3 step 3) as a user meets it:
//! `memdir paths` names the rule, `memdir add` writes into the named
//! folder, and a hostile name is refused with one warning line.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{memdir_in, stderr, stdout};

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    config: PathBuf,
    project: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let (home, config, project) = (root.join("home"), root.join("cfg"), root.join("work/app"));
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&project).unwrap();
    World {
        _tmp: tmp,
        home,
        config,
        project,
    }
}

impl World {
    fn run(&self, name: Option<&str>, args: &[&str]) -> std::process::Output {
        let mut vars = vec![
            ("HOME", self.home.to_str().unwrap()),
            ("CLAUDE_CONFIG_DIR", self.config.to_str().unwrap()),
        ];
        if let Some(name) = name {
            vars.push(("CLAUDE_CODE_PROJECT_DIR_NAME", name));
        }
        memdir_in(&self.project, &vars, args)
    }

    fn slug_memory(&self) -> String {
        let slug = self
            .project
            .to_string_lossy()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
        format!("{}/projects/{slug}/memory/", self.config.display())
    }
}

#[test]
fn paths_names_the_folder_and_the_rule() {
    let w = world();
    let out = w.run(Some("shared-app"), &["paths", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        j["autoMemPath"],
        format!("{}/projects/shared-app/memory/", w.config.display())
    );
    assert_eq!(j["autoMemPathSource"], "env:CLAUDE_CODE_PROJECT_DIR_NAME");
    assert_eq!(
        j["teamMemPath"],
        format!("{}/projects/shared-app/memory/team/", w.config.display())
    );
    assert_eq!(j["warnings"], serde_json::json!([]));

    let text = stdout(&w.run(Some("shared-app"), &["paths"]));
    assert!(
        text.contains("/projects/shared-app/memory/  (env:CLAUDE_CODE_PROJECT_DIR_NAME)"),
        "{text}"
    );

    // Without it, the sanitised project root names the folder.
    let j: serde_json::Value =
        serde_json::from_slice(&w.run(None, &["paths", "--json"]).stdout).unwrap();
    assert_eq!(j["autoMemPath"], w.slug_memory());
    assert_eq!(j["autoMemPathSource"], "default");
}

#[test]
fn add_writes_into_the_named_folder() {
    let w = world();
    let out = w.run(
        Some("shared-app"),
        &[
            "add",
            "--type",
            "project",
            "--name",
            "deploys",
            "--description",
            "Deploys go through the staging pipeline",
            "--body",
            "Staging first.",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let folder = w.config.join("projects/shared-app/memory");
    assert!(folder.join("deploys.md").is_file());
    assert!(
        fs::read_to_string(folder.join("MEMORY.md"))
            .unwrap()
            .contains("(deploys.md)")
    );
    assert!(!Path::new(&w.slug_memory()).exists());
}

#[test]
fn hostile_names_are_ignored_with_one_warning_line() {
    let w = world();
    for (name, why) in [
        ("../escape", "path separator"),
        ("..", "is . or .."),
        ("a\\b", "path separator"),
        ("", "is empty"),
        ("bell\u{7}name", "control character"),
    ] {
        let out = w.run(Some(name), &["paths", "--json"]);
        assert!(out.status.success(), "{name:?}: {}", stderr(&out));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["autoMemPath"], w.slug_memory(), "{name:?}");
        assert_eq!(j["autoMemPathSource"], "default", "{name:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{name:?}: {err}");
        assert!(
            err.starts_with("memdir: warning: CLAUDE_CODE_PROJECT_DIR_NAME: project folder name "),
            "{name:?}: {err}"
        );
        assert!(err.contains(why), "{name:?}: {err}");
        assert!(!err.contains('\u{7}'), "{name:?}: {err:?}");
    }
    // Nothing was created anywhere by looking.
    assert!(!w.config.exists());
}

#[test]
fn without_the_config_dir_the_name_is_ignored_and_said_so() {
    let w = world();
    let out = memdir_in(
        &w.project,
        &[
            ("HOME", w.home.to_str().unwrap()),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "shared-app"),
        ],
        ["paths", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["autoMemPathSource"], "default");
    assert!(
        j["autoMemPath"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/.claude/projects/-", w.home.display()))
    );
    assert!(
        stderr(&out).contains("CLAUDE_CODE_PROJECT_DIR_NAME is ignored without CLAUDE_CONFIG_DIR"),
        "{}",
        stderr(&out)
    );
}
