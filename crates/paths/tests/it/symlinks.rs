//! The physical check against real symbolic links built in temporary
//! folders: escapes, dangling links, loops, and the `team/` vs `team2/`
//! prefix trap.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use memdir_paths::{
    TraversalReason, realpath_deepest_existing, validate_team_mem_key, validate_team_mem_write_path,
};

/// A memory folder with `team/` and a sibling `team2/` and `outside/`.
struct Layout {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    team: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let team = root.join("memory/team");
    for dir in [&team, &root.join("memory/team2"), &root.join("outside")] {
        fs::create_dir_all(dir).unwrap();
    }
    Layout {
        _tmp: tmp,
        root,
        team,
    }
}

fn reason(path: &Path, team: &Path) -> Result<PathBuf, TraversalReason> {
    validate_team_mem_write_path(path, team).map_err(|e| e.reason)
}

#[test]
fn the_team2_prefix_trap() {
    let l = layout();
    assert_eq!(
        reason(&l.root.join("memory/team2/x.md"), &l.team),
        Err(TraversalReason::OutsideTeamFolder)
    );
    assert_eq!(
        reason(&l.root.join("memory/team/../team2/x.md"), &l.team),
        Err(TraversalReason::OutsideTeamFolder)
    );
    // Even spelled with a trailing separator on the folder.
    let team_slash = PathBuf::from(format!("{}/", l.team.display()));
    assert_eq!(
        reason(&l.root.join("memory/team2/x.md"), &team_slash),
        Err(TraversalReason::OutsideTeamFolder)
    );
    // The team folder itself is not a file inside it.
    assert_eq!(
        reason(&l.team, &l.team),
        Err(TraversalReason::OutsideTeamFolder)
    );
    assert_eq!(
        reason(&l.team.join("ok/x.md"), &team_slash),
        Ok(l.team.join("ok/x.md"))
    );
}

#[test]
fn lexical_traversal_is_rejected_before_the_disk_is_asked() {
    let l = layout();
    let sneaky = l.team.join("a/../../../outside/x.md");
    assert_eq!(
        reason(&sneaky, &l.team),
        Err(TraversalReason::OutsideTeamFolder)
    );
    // A `..` that stays inside is fine.
    assert_eq!(
        reason(&l.team.join("a/../b.md"), &l.team),
        Ok(l.team.join("b.md"))
    );
}

#[test]
fn a_symlinked_folder_pointing_outside_escapes() {
    let l = layout();
    symlink(l.root.join("outside"), l.team.join("evil")).unwrap();
    assert_eq!(
        reason(&l.team.join("evil/x.md"), &l.team),
        Err(TraversalReason::EscapesViaSymlink)
    );
    assert_eq!(
        reason(&l.team.join("evil/new/deeper.md"), &l.team),
        Err(TraversalReason::EscapesViaSymlink)
    );
    // And a key through it is refused the same way.
    let err = validate_team_mem_key("evil/x.md", &l.team).unwrap_err();
    assert_eq!(err.reason, TraversalReason::EscapesViaSymlink);
}

#[test]
fn a_symlinked_file_pointing_outside_escapes() {
    let l = layout();
    fs::write(l.root.join("outside/secret.txt"), "x").unwrap();
    symlink(l.root.join("outside/secret.txt"), l.team.join("note.md")).unwrap();
    assert_eq!(
        reason(&l.team.join("note.md"), &l.team),
        Err(TraversalReason::EscapesViaSymlink)
    );
    // Through the team2 sibling as well.
    symlink(l.root.join("memory/team2"), l.team.join("sib")).unwrap();
    assert_eq!(
        reason(&l.team.join("sib/x.md"), &l.team),
        Err(TraversalReason::EscapesViaSymlink)
    );
}

#[test]
fn a_symlink_that_stays_inside_is_fine() {
    let l = layout();
    fs::create_dir_all(l.team.join("real")).unwrap();
    symlink(l.team.join("real"), l.team.join("alias")).unwrap();
    assert_eq!(
        reason(&l.team.join("alias/x.md"), &l.team),
        Ok(l.team.join("alias/x.md"))
    );
}

#[test]
fn a_symlinked_team_folder_is_compared_by_its_real_path() {
    let l = layout();
    let link = l.root.join("team-link");
    symlink(&l.team, &link).unwrap();
    assert_eq!(reason(&link.join("x.md"), &link), Ok(link.join("x.md")));
}

#[test]
fn dangling_symlinks_are_rejected() {
    let l = layout();
    symlink(l.root.join("outside/not-yet"), l.team.join("dangling.md")).unwrap();
    assert_eq!(
        reason(&l.team.join("dangling.md"), &l.team),
        Err(TraversalReason::DanglingSymlink)
    );
    symlink(l.root.join("nowhere"), l.team.join("dir")).unwrap();
    assert_eq!(
        reason(&l.team.join("dir/new.md"), &l.team),
        Err(TraversalReason::DanglingSymlink)
    );
    // Even a dangling link whose target would be inside: it cannot be proven.
    symlink(l.team.join("missing-target.md"), l.team.join("inside.md")).unwrap();
    assert_eq!(
        reason(&l.team.join("inside.md"), &l.team),
        Err(TraversalReason::DanglingSymlink)
    );
}

#[test]
fn symlink_loops_are_rejected() {
    let l = layout();
    symlink(l.team.join("b"), l.team.join("a")).unwrap();
    symlink(l.team.join("a"), l.team.join("b")).unwrap();
    assert_eq!(
        reason(&l.team.join("a/x.md"), &l.team),
        Err(TraversalReason::SymlinkLoop)
    );
    symlink(l.team.join("self"), l.team.join("self")).unwrap();
    assert_eq!(
        reason(&l.team.join("self"), &l.team),
        Err(TraversalReason::SymlinkLoop)
    );
}

#[test]
fn a_file_where_a_folder_belongs_fails_closed() {
    let l = layout();
    fs::write(l.team.join("file.md"), "x").unwrap();
    let got = reason(&l.team.join("file.md/x.md"), &l.team);
    assert!(
        matches!(got, Err(TraversalReason::Unverifiable(_))),
        "{got:?}"
    );
}

#[test]
fn realpath_re_appends_the_missing_tail() {
    let l = layout();
    let deep = l.team.join("a/b/c.md");
    assert_eq!(realpath_deepest_existing(&deep).unwrap(), deep);
    symlink(l.root.join("outside"), l.team.join("o")).unwrap();
    assert_eq!(
        realpath_deepest_existing(&l.team.join("o/new.md")).unwrap(),
        l.root.join("outside/new.md")
    );
}

#[test]
fn checks_create_nothing() {
    let l = layout();
    let before = fs::read_dir(&l.team).unwrap().count();
    let _ = reason(&l.team.join("x/y/z.md"), &l.team);
    let _ = validate_team_mem_key("p/q.md", &l.team);
    assert_eq!(fs::read_dir(&l.team).unwrap().count(), before);
}
