//! Invariants of key validation and slugs, as proptest properties. The
//! number of cases comes from `PROPTEST_CASES` (default 256).

use std::path::Path;

use memdir_paths::{project_slug, sanitize_path, validate_team_mem_key};
use proptest::prelude::*;

/// Keys built from the pieces attacks are made of, and plain text.
fn keyish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just("%2e".to_owned()),
        Just("%2F".to_owned()),
        Just("%25".to_owned()),
        Just("%c0%ae".to_owned()),
        Just("\u{ff0e}".to_owned()),
        Just("\u{ff0f}".to_owned()),
        Just("\u{2024}".to_owned()),
        Just(":".to_owned()),
        Just("C:".to_owned()),
        Just("\0".to_owned()),
        "[a-z0-9 _-]{1,8}",
        "\\PC{1,4}",
    ];
    proptest::collection::vec(piece, 1..10).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn a_key_that_validates_stays_inside_the_team_folder(key in keyish()) {
        let team = tempfile::tempdir().unwrap();
        if let Ok(path) = validate_team_mem_key(&key, team.path()) {
            prop_assert!(path.starts_with(team.path()));
            prop_assert!(path != team.path());
            let real = memdir_paths::realpath_deepest_existing(&path).unwrap();
            let real_team = std::fs::canonicalize(team.path()).unwrap();
            prop_assert!(real.starts_with(&real_team), "{} not in {}", real.display(), real_team.display());
            prop_assert!(!path.components().any(|c| matches!(c, std::path::Component::ParentDir)));
        }
    }

    #[test]
    fn any_string_key_never_panics_and_never_escapes(key in any::<String>()) {
        let team = Path::new("/nonexistent-team-root/team");
        if let Ok(path) = validate_team_mem_key(&key, team) {
            prop_assert!(path.starts_with(team));
        }
    }

    #[test]
    fn sanitized_names_are_idempotent_and_plain(path in any::<String>()) {
        let once = sanitize_path(&path);
        prop_assert!(once.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
        prop_assert_eq!(sanitize_path(&once), once.clone());
        prop_assert_eq!(once.len(), path.encode_utf16().count());
    }

    #[test]
    fn slugs_are_plain_bounded_and_fixed_below_the_cut(path in any::<String>()) {
        let slug = project_slug(&path);
        prop_assert!(slug.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
        prop_assert!(slug.len() <= 200 + 1 + 7);
        if slug.len() <= 200 {
            prop_assert_eq!(project_slug(&slug), slug);
        }
    }
}
