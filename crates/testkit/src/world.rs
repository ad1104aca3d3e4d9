//! A temporary home folder and project folder, the world the resolution,
//! prompt and command-line tests start from.

use std::fs;
use std::path::{Path, PathBuf};

/// A home folder and a project folder under one temporary, canonical root
/// (so that a resolved path compares equal to the one the test built).
/// Everything is removed when the value is dropped.
#[derive(Debug)]
pub struct Folders {
    _tmp: tempfile::TempDir,
    /// The canonical temporary root.
    pub root: PathBuf,
    /// The home folder, created.
    pub home: PathBuf,
    /// The project folder, created.
    pub project: PathBuf,
}

impl Folders {
    /// `<root>/home/me` and `<root>/src/app`.
    #[must_use]
    pub fn new() -> Folders {
        Folders::at("home/me", "src/app")
    }

    /// The home and project folders at these paths under the root.
    #[must_use]
    pub fn at(home: &str, project: &str) -> Folders {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap();
        let (home, project) = (root.join(home), root.join(project));
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&project).unwrap();
        Folders {
            _tmp: tmp,
            root,
            home,
            project,
        }
    }
}

impl Default for Folders {
    fn default() -> Folders {
        Folders::new()
    }
}

/// The workspace's `fixtures/` folder joined with `rel` (`/`-separated):
/// the golden inputs several crates' tests read. Only tests may read it;
/// no library does.
#[must_use]
pub fn fixture(rel: &str) -> PathBuf {
    let mut path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    path.extend(rel.split('/'));
    path
}

/// Copies the folder tree `from` into `to` (created), plain files and
/// folders only: a fixture copied before a test changes it.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Writes `text` to `path`, creating the folders on the way.
pub fn write_file(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_are_found_from_any_crate() {
        assert!(fixture("frontmatter-shapes/memory").is_dir());
    }

    #[test]
    fn the_folders_exist_under_one_canonical_root_and_go_away() {
        let kept;
        {
            let f = Folders::at("h", "work/my.app");
            assert!(f.home.is_dir() && f.project.is_dir());
            assert_eq!(fs::canonicalize(&f.root).unwrap(), f.root);
            assert_eq!(f.project, f.root.join("work/my.app"));
            write_file(&f.project.join(".claude/settings.json"), "{}");
            assert_eq!(
                fs::read_to_string(f.project.join(".claude/settings.json")).unwrap(),
                "{}"
            );
            kept = f.root.clone();
        }
        assert!(!kept.exists());
    }
}
