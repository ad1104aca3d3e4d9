//! Every fixture case: the report and the agent's files after one run, as
//! a snapshot; then a second run that changes nothing, and a start-up
//! check that reads nothing more.

use std::fmt::Write as _;
use std::fs;

use crate::support::World;

#[test]
fn each_case_once_then_never_again() {
    insta::glob!("../../../../fixtures/migrations", "*", |case| {
        // The cases are the folders of files; the glob's own folder too.
        let has_files =
            fs::read_dir(case).is_ok_and(|mut e| e.any(|e| e.is_ok_and(|e| e.path().is_file())));
        if !has_files {
            return;
        }
        let world = World::from_case(case);
        let report = world.run(false);
        let mut shot = String::new();
        for outcome in &report.outcomes {
            match (&outcome.change, &outcome.skipped_because) {
                (Some(change), _) => writeln!(shot, "applied {}: {change}", outcome.id),
                (None, Some(why)) => writeln!(shot, "-       {}: {why}", outcome.id),
                (None, None) => writeln!(shot, "?       {}", outcome.id),
            }
            .unwrap();
        }
        for problem in &report.problems {
            writeln!(shot, "problem: {problem}").unwrap();
        }
        writeln!(shot, "backup: {}", report.backup.is_some()).unwrap();
        for (name, text) in world.agent_files() {
            write!(shot, "\n== {name} ==\n{text}").unwrap();
        }
        let shot = world.clean(&shot);
        assert!(
            !shot.contains("FIXTURE-NOT-A-REAL-TOKEN"),
            "a token reached the report"
        );
        insta::assert_snapshot!(shot);

        // Once only: a second run applies nothing and writes no agent file.
        let after = world.agent_files();
        let again = world.run(false);
        assert_eq!(again.applied().count(), 0, "{case:?}: {:?}", again.outcomes);
        assert_eq!(world.agent_files(), after, "{case:?}");
        // And the start-up check sees nothing new.
        assert!(
            memdir_migrations::run_if_needed(&world.at)
                .unwrap()
                .is_none()
        );

        // A backup of the global configuration exactly when it changed.
        let changed_global = fs::read(case.join("claude.json"))
            .ok()
            .is_some_and(|before| {
                let before = String::from_utf8(before).unwrap();
                world.clean(&after.get("claude.json").cloned().unwrap_or_default())
                    != before.replace("@PROJECT@", "<tmp>/src/app")
            });
        assert_eq!(report.backup.is_some(), changed_global, "{case:?}");
    });
}
