//! A temporary home, base and project laid out as the agent lays them
//! out, filled from a fixture case.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use memdir_migrations::{Locations, Report, RunOptions};
use memdir_testkit::Folders;

/// The time every golden run records.
pub(crate) const NOW: &str = "2026-12-01T12:00:00Z";

/// A fixture's files, where the agent keeps them.
pub(crate) struct World {
    pub(crate) folders: Folders,
    pub(crate) at: Locations,
}

/// A case's file names and where each goes.
const FILES: [&str; 5] = [
    "claude.json",
    "settings.json",
    "settings.local.json",
    "credentials.json",
    "state.json",
];

impl World {
    pub(crate) fn new() -> World {
        let folders = Folders::new();
        let base = folders.home.join(".claude");
        fs::create_dir_all(&base).unwrap();
        let at = Locations::standard(&base, Some(&folders.home), false, Some(&folders.project));
        World { folders, at }
    }

    /// A world holding the files of `fixtures/migrations/<case>/`, with
    /// `@PROJECT@` standing for the project folder.
    pub(crate) fn from_case(case: &Path) -> World {
        let world = World::new();
        for name in FILES {
            if let Ok(text) = fs::read_to_string(case.join(name)) {
                world.put(name, &text);
            }
        }
        world
    }

    /// Writes one of the case files, `@PROJECT@` replaced.
    pub(crate) fn put(&self, name: &str, text: &str) {
        let project = self.folders.project.display().to_string();
        let text = text.replace("@PROJECT@", &project);
        memdir_testkit::write_file(&self.path(name), &text);
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        match name {
            "claude.json" => self.at.global_config.clone(),
            "settings.json" => self.at.user_settings.clone(),
            "settings.local.json" => self.at.project.as_ref().unwrap().local_settings.clone(),
            "credentials.json" => self.at.credentials.clone(),
            "state.json" => self.at.state_file(),
            other => panic!("no case file {other}"),
        }
    }

    /// The agent's files as they are now (absent ones left out).
    pub(crate) fn agent_files(&self) -> BTreeMap<&'static str, String> {
        ["claude.json", "settings.json", "settings.local.json"]
            .into_iter()
            .filter_map(|name| Some((name, fs::read_to_string(self.path(name)).ok()?)))
            .collect()
    }

    /// Every file under the temporary root with its bytes.
    pub(crate) fn all_bytes(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        walk(&self.folders.root)
    }

    pub(crate) fn run(&self, dry_run: bool) -> Report {
        let options = RunOptions {
            dry_run,
            now: Some(NOW.parse::<Timestamp>().unwrap()),
        };
        memdir_migrations::run(&self.at, &options).unwrap()
    }

    /// `text` with the temporary root shown as `<tmp>`.
    pub(crate) fn clean(&self, text: &str) -> String {
        text.replace(&self.folders.root.display().to_string(), "<tmp>")
    }
}

fn walk(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.extend(walk(&path));
        } else {
            out.insert(path.clone(), fs::read(&path).unwrap());
        }
    }
    out
}
