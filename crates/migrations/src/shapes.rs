//! The types of every value the migrations read, checked on each file
//! before any migration runs. A file that holds one of an unexpected type
//! (a `projects` entry that is `null`, a list where an object belongs) is
//! damaged: it is left whole, not half-migrated around the damage, and
//! reported; the files that are sound are migrated all the same.

use memdir_settings::SettingsDocument;
use serde_json::Value;

use crate::mcp_approvals::Approvals;
use crate::table::kind;

/// Which of the agent's files a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// `~/.claude.json`.
    Global,
    /// `<base>/settings.json`.
    User,
    /// `<project>/.claude/settings.local.json`.
    Local,
}

/// `Err` naming the first value of an unexpected type, as `projects["/p"]
/// is null, not an object`.
pub(crate) fn check(which: FileKind, doc: &SettingsDocument) -> Result<(), String> {
    match which {
        FileKind::Global => {
            for key in [
                "autoUpdates",
                "bypassPermissionsModeAccepted",
                "replBridgeEnabled",
            ] {
                boolean(doc, key)?;
            }
            projects(doc)
        }
        FileKind::User => {
            match doc.get("model") {
                None | Some(Value::String(_)) => {}
                Some(other) => return Err(format!("model is {}, not a string", kind(&other))),
            }
            match doc.get("env") {
                None | Some(Value::Object(_)) => Ok(()),
                Some(other) => Err(format!("env is {}, not an object", kind(&other))),
            }
        }
        FileKind::Local => Approvals::of(doc, "settings.local.json").map(drop),
    }
}

fn boolean(doc: &SettingsDocument, key: &str) -> Result<(), String> {
    match doc.get(key) {
        None | Some(Value::Bool(_)) => Ok(()),
        Some(other) => Err(format!("{key} is {}, not a boolean", kind(&other))),
    }
}

/// `projects`, when present, is an object of objects, each with MCP
/// approvals of the right types: every project's entry, not only the
/// entry of the project at hand, as another project's run reads its own.
fn projects(doc: &SettingsDocument) -> Result<(), String> {
    let Some(projects) = doc.object("projects") else {
        return Ok(());
    };
    let Ok(projects) = projects else {
        let value = doc.get("projects").unwrap_or_default();
        return Err(format!("projects is {}, not an object", kind(&value)));
    };
    for key in projects.keys() {
        let place = format!("projects[{key:?}]");
        let Some(Ok(entry)) = projects.object(key) else {
            let value = projects.get(key).unwrap_or_default();
            return Err(format!("{place} is {}, not an object", kind(&value)));
        };
        Approvals::of(&entry, &place)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_text(which: FileKind, text: &str) -> Result<(), String> {
        check(which, &SettingsDocument::parse(text.as_bytes()).unwrap())
    }

    #[test]
    fn each_file_is_checked_for_the_values_the_migrations_read() {
        use FileKind::{Global, Local, User};
        for (which, text, expected) in [
            (Global, "{}", Ok(())),
            (
                Global,
                r#"{"theme": 1, "projects": {"/p": {"x": null}}}"#,
                Ok(()),
            ),
            (
                Global,
                r#"{"projects": {"/p": null, "/q": {"enableAllProjectMcpServers": true}}}"#,
                Err("projects[\"/p\"] is null, not an object"),
            ),
            (
                Global,
                r#"{"projects": ["/p"]}"#,
                Err("projects is a list, not an object"),
            ),
            (
                Global,
                r#"{"projects": {"/q": {"enabledMcpjsonServers": "github"}}}"#,
                Err("enabledMcpjsonServers in projects[\"/q\"] is a string, not a list of names"),
            ),
            (
                Global,
                r#"{"autoUpdates": "no"}"#,
                Err("autoUpdates is a string, not a boolean"),
            ),
            (
                User,
                r#"{"model": ["opus"]}"#,
                Err("model is a list, not a string"),
            ),
            (
                User,
                r#"{"env": ["A=1"], "model": "opus"}"#,
                Err("env is a list, not an object"),
            ),
            (
                Local,
                r#"{"enableAllProjectMcpServers": 1}"#,
                Err("enableAllProjectMcpServers in settings.local.json is a number, not a boolean"),
            ),
            (Local, r#"{"permissions": {}}"#, Ok(())),
        ] {
            assert_eq!(
                check_text(which, text),
                expected.map_err(str::to_owned),
                "{which:?} {text}"
            );
        }
    }
}
