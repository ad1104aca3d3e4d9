//! Hostile team-memory keys, in quantity, across every category of R4.10,
//! through the whole check of a key joined with a team folder, and the
//! benign keys that must still pass and stay inside. The corpus is the one
//! the text rules are tested on, in `memdir-protocol`'s tests.

use std::path::Path;

use memdir_paths::{TraversalReason, validate_team_mem_key};

#[path = "../../../protocol/tests/it/corpus.rs"]
mod corpus;

use corpus::{BENIGN, HOSTILE};

#[test]
fn every_hostile_key_is_rejected_for_its_reason() {
    let team = tempfile::tempdir().unwrap();
    let mut wrong = Vec::new();
    for &(key, reason) in HOSTILE {
        match validate_team_mem_key(key, team.path()) {
            Ok(path) => wrong.push(format!("{key:?} was accepted as {}", path.display())),
            Err(e) if e.reason != TraversalReason::Key(reason) => {
                wrong.push(format!("{key:?}: {:?}, expected {reason:?}", e.reason));
            }
            Err(e) => {
                assert_eq!(e.input, key);
                assert!(!e.to_string().contains('\n'), "one-line message: {e}");
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Checking creates nothing on disk.
    assert_eq!(std::fs::read_dir(team.path()).unwrap().count(), 0);
}

#[test]
fn benign_keys_pass_and_stay_inside() {
    let team = tempfile::tempdir().unwrap();
    for key in BENIGN {
        let path = validate_team_mem_key(key, team.path())
            .unwrap_or_else(|e| panic!("{key:?} was rejected: {e}"));
        assert!(
            path.starts_with(team.path()),
            "{key:?} -> {}",
            path.display()
        );
    }
}

#[test]
fn keys_are_written_in_nfc() {
    let team = tempfile::tempdir().unwrap();
    let nfd = validate_team_mem_key("cafe\u{301}.md", team.path()).unwrap();
    let nfc = validate_team_mem_key("caf\u{e9}.md", team.path()).unwrap();
    assert_eq!(nfd, nfc);
    assert_eq!(nfc, team.path().join("caf\u{e9}.md"));
}

#[test]
fn a_relative_team_folder_works_too() {
    let path = validate_team_mem_key("a.md", Path::new("some/team")).unwrap();
    assert!(path.ends_with("some/team/a.md"));
}
