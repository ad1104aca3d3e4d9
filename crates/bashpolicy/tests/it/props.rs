//! `check` never panics, whatever the input.

use memdir_bashpolicy::check;
use proptest::prelude::*;

fn shellish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "ls", "rm", "git", "log", " ", "-", "--", "'", "\"", "\\", "$", "(", ")", "{", "}", "[",
        "]", "`", "|", "&", ";", "<", ">", "<<", "2>", "&&", "||", "\n", "=", "*", "~", "#", "!",
        "$(", "${", "<(", "EOF", "a", "é", "\t",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

/// A here-document delimiter the grammar cannot close made its reader
/// allocate without end (found twice by the property below, which the
/// machine's memory limit then killed); it is denied before parsing now.
#[test]
fn an_unclosable_here_document_is_denied_without_parsing() {
    for command in [
        "<<$( <${",
        "${$(>|$(>&&]~)~()<<]a$( <``rm<$ \\a--log${",
        "cat <<'EOF'",
        // Bash quotes afresh inside a substitution, even in double quotes.
        "~|\"$]]\t'$(git\t}$(ls[<<\t ",
        "grep \"$(cat <<x)\"",
        "echo $'\\'' <<x",
        "\\<<<EOF~${$(\t|;git${",
    ] {
        let decision = check(command);
        assert!(decision.plan().is_none(), "{command:?}");
        assert!(
            decision.reason().contains("here-documents"),
            "{command:?}: {}",
            decision.reason()
        );
    }
    // Quoted, `<<` is text.
    assert!(check("grep '<<' notes.txt").plan().is_some());
    assert!(check("grep \"a << b\" notes.txt").plan().is_some());
}

proptest! {
    #[test]
    fn check_never_panics_on_any_string(s in any::<String>()) {
        let decision = check(&s);
        prop_assert!(!decision.reason().is_empty());
    }

    #[test]
    fn check_never_panics_on_shell_like_strings(s in shellish()) {
        let decision = check(&s);
        prop_assert!(!decision.reason().is_empty());
    }

    #[test]
    fn an_allowed_plan_runs_only_allowed_programs(s in shellish()) {
        if let Some(plan) = check(&s).plan() {
            for stage in plan.steps.iter().flat_map(|s| &s.pipeline) {
                prop_assert!(
                    memdir_bashpolicy::ALLOWED_PROGRAMS.contains(&stage.argv[0].as_str()),
                    "{s:?} => {plan:?}"
                );
            }
        }
    }
}
