//! The canonical project root (SPEC R4.4): every worktree of one
//! repository maps to one project, found by reading git's files (`.git`
//! files, `gitdir`, `commondir`, `core.worktree`) without running git.
//! Every path here is canonical in the plain spelling
//! ([`crate::strip_verbatim_prefix`]), so that a Windows project is named as
//! the reference agent names it.

use std::fs;
use std::path::{Path, PathBuf};

use camino::Utf8PathBuf;

use crate::canonical::canonicalize;
use crate::{PathOrigin, PathsError, utf8};

/// What kind of folder the project is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// Not inside a git repository: the working directory is the project.
    NotGit,
    /// The main working tree of a repository (`.git` is a folder).
    Repository,
    /// A linked worktree (`git worktree add`): the project is the main
    /// repository's.
    LinkedWorktree,
    /// A submodule, or a repository made with `--separate-git-dir`: its own
    /// project.
    Submodule,
    /// A bare repository (or the inside of a `.git` folder).
    Bare,
}

/// The roots of a project: where its files are, and what identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRoots {
    /// The top of the working tree the working directory is in. Project
    /// settings (`.claude/settings*.json`) are read from here.
    pub work_tree: Utf8PathBuf,
    /// The canonical root that names the memory folder: the main
    /// repository's working tree for a linked worktree, the bare repository
    /// for worktrees of a bare one, the working directory outside git.
    pub canonical: Utf8PathBuf,
    /// What kind of folder it is.
    pub kind: RootKind,
}

/// Finds the project roots for a working directory. Symbolic links in
/// `cwd` are resolved first, as the operating system reports the working
/// directory physically. A root that is not valid UTF-8 is
/// [`PathsError::NotUtf8`].
pub fn find_project_roots(cwd: &Path) -> Result<ProjectRoots, PathsError> {
    let start = canonicalize(cwd).map_err(|source| PathsError::ProjectDir {
        path: cwd.to_owned(),
        source,
    })?;
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        if let Ok(meta) = fs::metadata(&dot_git) {
            if meta.is_dir() {
                return roots(dir, dir, RootKind::Repository);
            }
            if meta.is_file() {
                return from_git_file(dir, &dot_git);
            }
        }
        if is_git_dir(dir) {
            return roots(dir, &main_root_from_common(dir), RootKind::Bare);
        }
    }
    roots(&start, &start, RootKind::NotGit)
}

fn roots(work_tree: &Path, canonical: &Path, kind: RootKind) -> Result<ProjectRoots, PathsError> {
    Ok(ProjectRoots {
        work_tree: utf8(work_tree.to_owned(), PathOrigin::ProjectFolder)?,
        canonical: utf8(canonical.to_owned(), PathOrigin::ProjectRoot)?,
        kind,
    })
}

/// Whether `dir` is itself a git directory (bare repository or `.git`).
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// The git dir a `.git` file points to (`gitdir: <path>`), and the common
/// git dir its `commondir` file names, if it has one.
fn follow_git_file(work_tree: &Path, dot_git: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    let text = fs::read_to_string(dot_git).ok()?;
    let target = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("gitdir:"))?;
    let git_dir = canonicalize(&work_tree.join(target.trim())).ok()?;
    let common = fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .and_then(|c| canonicalize(&git_dir.join(c.trim())).ok());
    Some((git_dir, common))
}

/// The git dir that holds the configuration of the repository whose
/// working tree is `work_tree` (as [`find_project_roots`] reports it):
/// `.git` itself, or for a linked worktree the common git dir its `.git`
/// file leads to, or for a submodule its own git dir. `None` outside git.
#[must_use]
pub fn git_common_dir(work_tree: &Path) -> Option<PathBuf> {
    let dot_git = work_tree.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    if dot_git.is_file() {
        let (git_dir, common) = follow_git_file(work_tree, &dot_git)?;
        return Some(common.unwrap_or(git_dir));
    }
    is_git_dir(work_tree).then(|| work_tree.to_owned())
}

/// The git dir of the working tree `work_tree` itself (where its index
/// is): `.git` when it is a folder, else where the `.git` file points (a
/// linked worktree's own `.git/worktrees/<name>`, a submodule's
/// `.git/modules/<name>`). `None` when there is no `.git`, or its file
/// cannot be followed.
pub(crate) fn own_git_dir(work_tree: &Path) -> Option<PathBuf> {
    let dot_git = work_tree.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    follow_git_file(work_tree, &dot_git).map(|(git_dir, _)| git_dir)
}

/// Follows a `.git` file. A file that cannot be read or understood leaves
/// its folder as the root: the user is evidently in a working tree, and
/// nothing better is known.
fn from_git_file(work_tree: &Path, dot_git: &Path) -> Result<ProjectRoots, PathsError> {
    match follow_git_file(work_tree, dot_git) {
        Some((_, Some(common))) => roots(
            work_tree,
            &main_root_from_common(&common),
            RootKind::LinkedWorktree,
        ),
        // No commondir: the git dir belongs to this working tree alone (a
        // submodule's `.git/modules/<name>`, or `--separate-git-dir`).
        Some((git_dir, None)) if git_dir.join("commondir").exists() => {
            roots(work_tree, work_tree, RootKind::Repository)
        }
        Some((_, None)) => roots(work_tree, work_tree, RootKind::Submodule),
        None => roots(work_tree, work_tree, RootKind::Repository),
    }
}

/// The main working tree of a common git dir: the parent of `.git`; else
/// the folder `core.worktree` names (a submodule's git dir); else the git
/// dir itself (a bare repository).
fn main_root_from_common(common: &Path) -> PathBuf {
    if common.file_name().is_some_and(|n| n == ".git")
        && let Some(parent) = common.parent()
    {
        return parent.to_owned();
    }
    if let Some(worktree) = core_worktree(common)
        && let Ok(path) = canonicalize(&common.join(worktree))
    {
        return path;
    }
    common.to_owned()
}

/// The `worktree` key of the `[core]` section of `<git dir>/config`.
fn core_worktree(git_dir: &Path) -> Option<String> {
    git_config_value(
        &fs::read_to_string(git_dir.join("config")).ok()?,
        "core",
        None,
        "worktree",
    )
}

/// The value of `key` in section `[section]` (or `[section "subsection"]`)
/// of git configuration text: the first one, unquoted. Section and key
/// names compare without regard to case, subsections exactly, as git does.
#[must_use]
pub fn git_config_value(
    config: &str,
    section: &str,
    subsection: Option<&str>,
    key: &str,
) -> Option<String> {
    let mut inside = false;
    for raw in config.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or_default().trim();
            let (name, sub) = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => (name, Some(sub.trim().trim_matches('"'))),
                None => (header, None),
            };
            inside = name.eq_ignore_ascii_case(section) && sub == subsection;
            continue;
        }
        if inside
            && let Some((k, v)) = line.split_once('=')
            && k.trim().eq_ignore_ascii_case(key)
        {
            return Some(v.trim().trim_matches('"').to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A minimal git dir: what `is_git_dir` looks for.
    fn git_dir(path: &Path) {
        write(&path.join("HEAD"), "ref: refs/heads/main\n");
        fs::create_dir_all(path.join("objects")).unwrap();
        fs::create_dir_all(path.join("refs")).unwrap();
    }

    fn check(cwd: &Path, work_tree: &Path, canonical: &Path, kind: RootKind) {
        let r = find_project_roots(cwd).unwrap();
        let real = |p: &Path| canonicalize(p).unwrap();
        assert_eq!(
            r,
            roots(&real(work_tree), &real(canonical), kind).unwrap(),
            "from {}",
            cwd.display()
        );
    }

    #[test]
    fn outside_git_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("a/b");
        fs::create_dir_all(&cwd).unwrap();
        check(&cwd, &cwd, &cwd, RootKind::NotGit);
    }

    #[test]
    fn a_repository_from_a_subfolder() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        git_dir(&repo.join(".git"));
        fs::create_dir_all(repo.join("src/deep")).unwrap();
        check(&repo.join("src/deep"), &repo, &repo, RootKind::Repository);
        // Inside the .git folder itself the project is still the repository.
        check(
            &repo.join(".git/refs"),
            &repo.join(".git"),
            &repo,
            RootKind::Bare,
        );
    }

    #[test]
    fn linked_worktrees_share_the_main_root() {
        let tmp = tempfile::tempdir().unwrap();
        let main = tmp.path().join("main");
        git_dir(&main.join(".git"));
        let wt_git = main.join(".git/worktrees/feature");
        write(&wt_git.join("commondir"), "../..\n");
        let wt = tmp.path().join("feature-wt");
        write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
        fs::create_dir_all(wt.join("sub")).unwrap();
        check(&wt.join("sub"), &wt, &main, RootKind::LinkedWorktree);
    }

    #[test]
    fn submodules_are_their_own_project_and_their_worktrees_follow() {
        let tmp = tempfile::tempdir().unwrap();
        let sup = tmp.path().join("super");
        git_dir(&sup.join(".git"));
        let modules = sup.join(".git/modules/lib");
        git_dir(&modules);
        write(
            &modules.join("config"),
            "[core]\n\tbare = false\n\tworktree = ../../../lib\n",
        );
        let lib = sup.join("lib");
        write(&lib.join(".git"), "gitdir: ../.git/modules/lib\n");
        check(&lib, &lib, &lib, RootKind::Submodule);
        // A linked worktree of the submodule maps to the submodule's tree.
        let wt_git = modules.join("worktrees/x");
        write(&wt_git.join("commondir"), "../..\n");
        let wt = tmp.path().join("lib-wt");
        write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
        check(&wt, &wt, &lib, RootKind::LinkedWorktree);
    }

    #[test]
    fn worktrees_of_a_bare_repository_share_it() {
        let tmp = tempfile::tempdir().unwrap();
        let bare = tmp.path().join("proj.git");
        git_dir(&bare);
        let wt_git = bare.join("worktrees/main");
        write(&wt_git.join("commondir"), "../..\n");
        let wt = tmp.path().join("main");
        write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
        check(&wt, &wt, &bare, RootKind::LinkedWorktree);
        check(&bare.join("refs"), &bare, &bare, RootKind::Bare);
    }

    #[test]
    fn broken_git_files_fall_back_to_their_folder() {
        let tmp = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("garbage", "\u{0}\u{1}binary"),
            ("dangling", "gitdir: /no/such/dir\n"),
        ] {
            let wt = tmp.path().join(name);
            write(&wt.join(".git"), text);
            check(&wt, &wt, &wt, RootKind::Repository);
        }
    }

    #[test]
    fn git_config_values_by_section_and_subsection() {
        let config = "[core]\n\tWorkTree = ../lib\n[remote \"origin\"]\n\turl = git@github.com:a/b.git\n[remote \"fork\"]\n\turl = x\n";
        assert_eq!(
            git_config_value(config, "core", None, "worktree").as_deref(),
            Some("../lib")
        );
        assert_eq!(
            git_config_value(config, "remote", Some("origin"), "url").as_deref(),
            Some("git@github.com:a/b.git")
        );
        assert_eq!(
            git_config_value(config, "remote", Some("upstream"), "url"),
            None
        );
    }

    #[test]
    fn the_common_git_dir_of_each_layout() {
        let tmp = tempfile::tempdir().unwrap();
        let main = canonicalize(tmp.path()).unwrap().join("main");
        git_dir(&main.join(".git"));
        assert_eq!(git_common_dir(&main), Some(main.join(".git")));
        let wt_git = main.join(".git/worktrees/w");
        write(&wt_git.join("commondir"), "../..\n");
        let wt = main.parent().unwrap().join("w");
        write(&wt.join(".git"), &format!("gitdir: {}\n", wt_git.display()));
        assert_eq!(git_common_dir(&wt), Some(main.join(".git")));
        assert_eq!(git_common_dir(main.parent().unwrap()), None);
    }

    #[test]
    fn a_missing_working_directory_is_an_error() {
        let err = find_project_roots(Path::new("/no/such/folder/anywhere")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot open project folder /no/such/folder/anywhere"),
            "{err}"
        );
    }
}
