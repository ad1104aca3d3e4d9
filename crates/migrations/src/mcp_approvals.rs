//! `project-mcp-approvals-to-local-settings`: a project's MCP server
//! approvals move from its entry in the global `projects` map to its own
//! `settings.local.json`.

use std::path::Path;

use memdir_settings::SettingsDocument;
use serde_json::{Value, json};

use crate::table::{Context, Decision, kind, object};

const ENABLE_ALL: &str = "enableAllProjectMcpServers";
const ENABLED: &str = "enabledMcpjsonServers";
const DISABLED: &str = "disabledMcpjsonServers";

/// The three approval keys of one file, each checked for its type.
pub(crate) struct Approvals {
    all: Option<bool>,
    enabled: Option<Vec<String>>,
    disabled: Option<Vec<String>>,
}

impl Approvals {
    /// The approvals of `doc`, or `Err` naming the first of an unexpected
    /// type, `place` saying where it is.
    pub(crate) fn of(doc: &SettingsDocument, place: &str) -> Result<Approvals, String> {
        let all = match doc.get(ENABLE_ALL) {
            None => None,
            Some(Value::Bool(b)) => Some(b),
            Some(other) => {
                return Err(format!(
                    "{ENABLE_ALL} in {place} is {}, not a boolean",
                    kind(&other)
                ));
            }
        };
        Ok(Approvals {
            all,
            enabled: names(doc, ENABLED, place)?,
            disabled: names(doc, DISABLED, place)?,
        })
    }

    fn is_empty(&self) -> bool {
        self.all.is_none() && self.enabled.is_none() && self.disabled.is_none()
    }
}

/// A list of server names, `None` when absent; anything else blocks.
fn names(doc: &SettingsDocument, key: &str, place: &str) -> Result<Option<Vec<String>>, String> {
    let Some(value) = doc.get(key) else {
        return Ok(None);
    };
    let not_names = || format!("{key} in {place} is {}, not a list of names", kind(&value));
    let Value::Array(items) = &value else {
        return Err(not_names());
    };
    items
        .iter()
        .map(|item| item.as_str().map(str::to_owned).ok_or_else(not_names))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `first`, then the names of `then` it lacks, in order, without repeats.
fn union(first: Option<&Vec<String>>, then: Option<&Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in first.into_iter().chain(then).flatten() {
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    out
}

/// The key of `dir` in the `projects` map: the path as written, else a
/// key naming the same folder.
fn project_key(projects: &SettingsDocument, dir: &Path) -> Option<String> {
    let exact = dir.to_string_lossy();
    if let Some(key) = projects.keys().find(|k| *k == exact) {
        return Some(key.to_owned());
    }
    let real = std::fs::canonicalize(dir).ok()?;
    projects
        .keys()
        .find(|k| std::fs::canonicalize(k).is_ok_and(|p| p == real))
        .map(str::to_owned)
}

pub(crate) fn project_mcp_approvals_to_local_settings(
    cx: &mut Context<'_>,
) -> Result<Decision, String> {
    let Some(dir) = cx.project_dir else {
        return Ok(Decision::NotNeeded("no project was given".into()));
    };
    let mut projects = object(&cx.global, "projects")?;
    let Some(key) = project_key(&projects, dir) else {
        return Ok(Decision::NotNeeded(
            "the project has no entry in projects".into(),
        ));
    };
    let place = format!("projects[{key:?}] of .claude.json");
    let Some(Ok(mut project)) = projects.object(&key) else {
        return Err(format!("{place} is not an object"));
    };
    let old = Approvals::of(&project, &place)?;
    if old.is_empty() {
        return Ok(Decision::NotNeeded(format!("{place} has no MCP approvals")));
    }
    let local_edit = cx.local.as_mut().expect("a project has local settings");
    let local = local_edit.get()?;
    let here = Approvals::of(local, "settings.local.json")?;
    // A server disabled in either place stays disabled, and so is never
    // also enabled; the local file's own choice of "all" wins.
    let disabled = union(here.disabled.as_ref(), old.disabled.as_ref());
    let enabled: Vec<String> = union(here.enabled.as_ref(), old.enabled.as_ref())
        .into_iter()
        .filter(|name| !disabled.contains(name))
        .collect();
    let all = here.all.or(old.all);
    let local = local_edit.edit()?;
    if let Some(all) = all {
        local.set(ENABLE_ALL, &json!(all));
    }
    if here.enabled.is_some() || old.enabled.is_some() {
        local.set(ENABLED, &json!(enabled));
    }
    if here.disabled.is_some() || old.disabled.is_some() {
        local.set(DISABLED, &json!(disabled));
    }
    let moved: Vec<&str> = [
        old.all.map(|_| ENABLE_ALL),
        old.enabled.as_ref().map(|_| ENABLED),
        old.disabled.as_ref().map(|_| DISABLED),
    ]
    .into_iter()
    .flatten()
    .collect();
    for key in &moved {
        project.remove(key);
    }
    projects.set_object(&key, &project);
    cx.global.edit()?.set_object("projects", &projects);
    Ok(Decision::Applied(format!(
        "{} from {place} -> settings.local.json",
        moved.join(", ")
    )))
}
