//! `load_memory_prompt` on real folders: the mode chosen for each
//! resolution (R7.1), the index files it reads, and the errors it reports.

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use memdir_paths::{Environment, PathResolver, Resolution, today_local};
use memdir_prompt::{MemoryPrompt, PromptError, PromptMode, PromptOptions, load_memory_prompt};
use memdir_testkit::{Folders, write_file};

/// A home, a project and a memory folder, each in one temporary folder.
struct World {
    /// Keeps the folders until the world is dropped.
    _folders: Folders,
    home: PathBuf,
    project: PathBuf,
    memory: PathBuf,
}

impl World {
    fn new() -> Self {
        let folders = Folders::new();
        World {
            home: folders.home.clone(),
            project: folders.project.clone(),
            memory: folders.root.join("memory"),
            _folders: folders,
        }
    }

    /// Resolves the project with `vars` set, the memory folder given
    /// explicitly and no managed settings.
    fn resolve(&self, vars: &[(&str, &str)]) -> Arc<Resolution> {
        let env = vars.iter().fold(
            Environment::new().with_home(&self.home),
            |env, (key, value)| env.with_var(*key, *value),
        );
        PathResolver::new(env)
            .with_managed_settings(None)
            .with_memory_dir(Some(self.memory.clone()))
            .resolve(&self.project)
            .unwrap()
    }

    fn write(&self, relative: &str, content: &str) {
        write_file(&self.memory.join(relative), content);
    }
}

const TEAM_ON: (&str, &str) = ("MEMDIR_TEAM", "1");
const MEMORY_OFF: (&str, &str) = ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1");
const PRIVATE_LINE: &str = "- [Use pnpm](use-pnpm.md) — the package manager is pnpm";
const TEAM_LINE: &str = "- [Release freeze](freeze.md) — no merges from 2026-12-10";

fn options(assistant_mode: bool) -> PromptOptions {
    PromptOptions {
        assistant_mode,
        include_search_section: false,
    }
}

/// Loads a prompt and checks its mode; returns its text.
fn check(world: &World, vars: &[(&str, &str)], assistant: bool, mode: PromptMode) -> String {
    let resolution = world.resolve(vars);
    let prompt = load_memory_prompt(&resolution, &options(assistant)).unwrap();
    assert_eq!(prompt.mode(), Some(mode), "{prompt:?}");
    assert_eq!(prompt.mode_str(), mode.as_str());
    prompt.text().unwrap().to_owned()
}

#[test]
fn auto_memory_alone_gives_the_single_folder_prompt() {
    let world = World::new();
    world.write("MEMORY.md", &format!("{PRIVATE_LINE}\n"));
    world.write("team/MEMORY.md", &format!("{TEAM_LINE}\n"));
    let text = check(&world, &[], false, PromptMode::Single);
    let memory = world.memory.display();
    assert!(text.contains(&format!("`{memory}/`")), "{text}");
    assert!(text.ends_with(&format!("{PRIVATE_LINE}\n")));
    assert!(
        !text.contains(TEAM_LINE),
        "team off: its index is not shown"
    );
}

#[test]
fn team_memory_gives_the_combined_prompt_with_both_indexes() {
    let world = World::new();
    world.write("MEMORY.md", &format!("{PRIVATE_LINE}\n"));
    world.write("team/MEMORY.md", &format!("{TEAM_LINE}\n"));
    let text = check(&world, &[TEAM_ON], false, PromptMode::Combined);
    let team = world.memory.join("team").display().to_string();
    assert!(text.contains(&format!("**team** `{team}/`")), "{text}");
    let private = text.find(PRIVATE_LINE).unwrap();
    let shared = text.find(TEAM_LINE).unwrap();
    assert!(private < shared);
}

#[test]
fn assistant_mode_gives_the_daily_log_prompt_even_with_team_on() {
    let world = World::new();
    world.write("MEMORY.md", &format!("{PRIVATE_LINE}\n"));
    world.write("team/MEMORY.md", &format!("{TEAM_LINE}\n"));
    for vars in [&[][..], &[TEAM_ON][..]] {
        let before = world.resolve(vars).daily_log_path(today_local());
        let text = check(&world, vars, true, PromptMode::DailyLog);
        let after = world.resolve(vars).daily_log_path(today_local());
        // The date may turn over between the two readings.
        let logged = [before, after]
            .iter()
            .any(|log| text.contains(&format!("`{log}`")));
        assert!(logged, "{text}");
        assert!(text.contains("/logs/"));
        assert!(text.contains(PRIVATE_LINE));
        assert!(!text.contains(TEAM_LINE));
    }
}

#[test]
fn memory_off_gives_no_prompt_and_names_the_rule() {
    let world = World::new();
    world.write("MEMORY.md", &format!("{PRIVATE_LINE}\n"));
    for assistant in [false, true] {
        for vars in [&[MEMORY_OFF][..], &[MEMORY_OFF, TEAM_ON][..]] {
            let resolution = world.resolve(vars);
            let prompt = load_memory_prompt(&resolution, &options(assistant)).unwrap();
            assert_eq!(
                prompt,
                MemoryPrompt::Off {
                    reason: "auto memory is off (env:CLAUDE_CODE_DISABLE_AUTO_MEMORY)".into()
                }
            );
            assert_eq!((prompt.mode_str(), prompt.text()), ("off", None));
        }
    }
}

#[test]
fn missing_indexes_and_folders_are_empty() {
    let world = World::new();
    assert!(!world.memory.exists());
    let text = check(&world, &[], false, PromptMode::Single);
    assert!(text.ends_with("_Empty: no memories saved yet._\n"));
    let text = check(&world, &[TEAM_ON], false, PromptMode::Combined);
    assert_eq!(text.matches("_Empty: no memories saved yet._").count(), 2);
}

#[test]
fn an_unreadable_index_is_an_error_naming_the_file() {
    for (folder, vars) in [("MEMORY.md", &[][..]), ("team/MEMORY.md", &[TEAM_ON][..])] {
        let world = World::new();
        fs::create_dir_all(world.memory.join(folder)).unwrap();
        let resolution = world.resolve(vars);
        let err = load_memory_prompt(&resolution, &options(false)).unwrap_err();
        let path = world.memory.join(folder);
        assert!(
            matches!(&err, PromptError::ReadIndex { path: p, .. } if *p == path),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("cannot read memory index {}", path.display())
        );
        assert!(std::error::Error::source(&err).is_some());
    }
}
