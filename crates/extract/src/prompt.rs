//! The extraction step's instructions (SPEC R12.6), one text per mode; the
//! memory instructions themselves are `memdir-prompt`'s system prompt.

/// The instruction text after the transcript, for the private folder only.
const SINGLE: &str = include_str!("text/extract_single.md");
/// The instruction text after the transcript, private and team folders.
const COMBINED: &str = include_str!("text/extract_combined.md");

/// What the instructions are filled in with.
#[derive(Debug, Clone)]
pub struct Instructions<'a> {
    /// How many new messages the transcript excerpt holds.
    pub new_messages: usize,
    /// The private memory folder, ending in `/`.
    pub auto_dir: &'a str,
    /// The team folder, ending in `/`, when team memory is on.
    pub team_dir: Option<&'a str>,
    /// The manifest of the private memories (`memdir_scan::format_manifest`).
    pub manifest: &'a str,
    /// The manifest of the team memories.
    pub team_manifest: &'a str,
    /// The turn budget.
    pub max_turns: u32,
}

fn or_none(manifest: &str) -> &str {
    if manifest.trim().is_empty() {
        "(none yet)"
    } else {
        manifest
    }
}

/// The instructions, filled in.
#[must_use]
pub fn instructions(i: &Instructions<'_>) -> String {
    let template = if i.team_dir.is_some() {
        COMBINED
    } else {
        SINGLE
    };
    let (new_messages, max_turns) = (i.new_messages.to_string(), i.max_turns.to_string());
    memdir_prompt::fill_template(
        template,
        &[
            ("new_messages", &new_messages),
            ("auto_dir", i.auto_dir),
            ("team_dir", i.team_dir.unwrap_or_default()),
            ("manifest", or_none(i.manifest)),
            ("team_manifest", or_none(i.team_manifest)),
            ("max_turns", &max_turns),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Instructions<'static> {
        Instructions {
            new_messages: 12,
            auto_dir: "/m/",
            team_dir: None,
            manifest: "",
            team_manifest: "",
            max_turns: 5,
        }
    }

    #[test]
    fn single_mode_names_the_folder_budget_and_manifest() {
        let text = instructions(&Instructions {
            manifest: "- [user] role.md (2026-11-30): data scientist",
            ..base()
        });
        assert!(text.contains("most recent 12 messages"));
        assert!(text.contains("You have 5 turns"));
        assert!(text.contains("inside `/m/`"));
        assert!(text.contains("- [user] role.md (2026-11-30): data scientist"));
        assert!(!text.contains("team"), "{text}");
        assert!(!text.contains('{'), "an unfilled placeholder: {text}");
    }

    #[test]
    fn combined_mode_adds_the_team_folder_and_its_rule_on_secrets() {
        let text = instructions(&Instructions {
            team_dir: Some("/m/team/"),
            ..base()
        });
        assert!(text.contains("team folder `/m/team/`"));
        assert!(text.contains("Never put a credential"));
        assert_eq!(text.matches("(none yet)").count(), 2);
    }

    #[test]
    fn a_value_spelling_a_placeholder_is_not_expanded() {
        let text = instructions(&Instructions {
            manifest: "- {team_dir} {max_turns}",
            ..base()
        });
        assert!(text.contains("- {team_dir} {max_turns}"));
    }
}
