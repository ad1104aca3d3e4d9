//! The tools: their input schemas, and each call as one blocking use case
//! of `memdir-ops` that reads the folder afresh.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use memdir_ops::{
    MemoryChange, MemoryType, NewMemory, OpsError, Project, RecallRequest, Scope, SelectorChoice,
    memory_file_name,
};
use memdir_scan::{CancelToken, ScanError, ScanOptions, format_manifest, scan_memory_dir};
use serde::Deserialize;
use serde_json::{Value, json};

/// Why a tool call failed; its text is the tool error the client sees.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    /// No tool has this name.
    #[error("no tool is named {0:?}")]
    UnknownTool(String),
    /// The arguments do not match the tool's input schema.
    #[error("invalid arguments: {0}")]
    Arguments(#[source] serde_json::Error),
    /// The use case refused or failed.
    #[error(transparent)]
    Ops(#[from] OpsError),
    /// The memory folder could not be scanned.
    #[error(transparent)]
    Scan(#[from] ScanError),
    /// The memory type is not one of the four.
    #[error("type {0:?}: the type is one of user, feedback, project, reference")]
    UnknownType(String),
    /// The memory does not exist (or is not a plain file).
    #[error("no memory {file} in {folder}")]
    NoMemory {
        /// The file name asked for.
        file: String,
        /// The folder looked in.
        folder: String,
    },
}

impl ToolError {
    /// The error and its causes on one line.
    pub(crate) fn one_line(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            // A message that already shows its cause is not repeated.
            let cause_text = cause.to_string();
            if !text.contains(&cause_text) {
                let _ = write!(text, ": {cause_text}");
            }
            source = cause.source();
        }
        text.replace(['\n', '\r'], " ")
    }
}

/// Which folder a tool works on.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ScopeArg {
    #[default]
    Private,
    Team,
}

impl From<ScopeArg> for Scope {
    fn from(scope: ScopeArg) -> Scope {
        match scope {
            ScopeArg::Private => Scope::Private,
            ScopeArg::Team => Scope::Team,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    scope: ScopeArg,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NameArgs {
    name: String,
    #[serde(default)]
    scope: ScopeArg,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    name: String,
    #[serde(rename = "type")]
    memory_type: String,
    description: String,
    body: String,
    #[serde(default)]
    scope: ScopeArg,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    supersedes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    #[serde(default)]
    surfaced: Vec<String>,
}

/// A tool's name, description and JSON input schema.
pub(crate) struct ToolSpec {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) schema: Value,
}

fn scope_schema() -> Value {
    json!({
        "type": "string",
        "enum": ["private", "team"],
        "default": "private",
        "description": "private: the user's auto memory folder; team: the shared team folder"
    })
}

fn name_schema() -> Value {
    json!({
        "type": "string",
        "description": "The memory's kebab-case name; its file is <name>.md",
        "minLength": 1
    })
}

/// Every tool the server offers.
pub(crate) fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "list_memories",
            description: "The manifest of the memory folder: one line per memory, newest first, with its type, date and description.",
            schema: json!({
                "type": "object",
                "properties": {"scope": scope_schema()},
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "read_memory",
            description: "One memory as recall gives it: a header with its file and age, a note when it is older than a day or cites what no longer holds in the project, then its file's text, cut (with a note) when it is long.",
            schema: json!({
                "type": "object",
                "properties": {"name": name_schema(), "scope": scope_schema()},
                "required": ["name"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "write_memory",
            description: "Save a memory (or change the one of that name) and its index line. A team memory holding a secret is refused.",
            schema: json!({
                "type": "object",
                "properties": {
                    "name": name_schema(),
                    "type": {"type": "string", "enum": ["user", "feedback", "project", "reference"]},
                    "description": {"type": "string", "description": "One specific line saying what the memory holds", "minLength": 1},
                    "body": {"type": "string", "description": "The memory's text (markdown)", "minLength": 1},
                    "scope": scope_schema(),
                    "title": {"type": "string", "description": "The title of its index line; the name by default"},
                    "supersedes": {"type": "array", "items": {"type": "string"}, "description": "Memories of the same folder this one replaces (names or file names): they keep their files but leave the index, recall and the manifest"}
                },
                "required": ["name", "type", "description", "body"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "delete_memory",
            description: "Delete a memory: its file and its index line.",
            schema: json!({
                "type": "object",
                "properties": {"name": name_schema(), "scope": scope_schema()},
                "required": ["name"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "recall_memories",
            description: "The memories relevant to a request (local selector, offline), each as read_memory gives it.",
            schema: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the user asked", "minLength": 1},
                    "surfaced": {"type": "array", "items": {"type": "string"}, "description": "Memories already shown in this conversation (file names)"}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        },
    ]
}

/// Fields a client adds to every tool call for its own use, which no tool
/// reads: Gemini CLI adds `wait_for_previous` (a boolean) to each tool's
/// schema and sends it. They are dropped before the arguments are read; any
/// other unknown field is still an error, so that a misspelt `scope` or
/// `supersedes` is not silently ignored.
const CLIENT_FIELDS: [&str; 1] = ["wait_for_previous"];

fn parse<T: serde::de::DeserializeOwned>(
    arguments: Option<serde_json::Map<String, Value>>,
) -> Result<T, ToolError> {
    let mut arguments = arguments.unwrap_or_default();
    for field in CLIENT_FIELDS {
        arguments.remove(field);
    }
    serde_json::from_value(Value::Object(arguments)).map_err(ToolError::Arguments)
}

/// Runs one tool call; the text of its answer.
pub(crate) fn call(
    project: &Project,
    name: &str,
    arguments: Option<serde_json::Map<String, Value>>,
) -> Result<String, ToolError> {
    match name {
        "list_memories" => list(project, parse(arguments)?),
        "read_memory" => read(project, &parse(arguments)?),
        "write_memory" => write(project, parse(arguments)?),
        "delete_memory" => delete(project, &parse(arguments)?),
        "recall_memories" => recall(project, parse(arguments)?),
        other => Err(ToolError::UnknownTool(other.to_owned())),
    }
}

fn list(project: &Project, args: ListArgs) -> Result<String, ToolError> {
    let folder = project.folder(args.scope.into())?;
    let scan = match scan_memory_dir(
        folder.as_std_path(),
        &ScanOptions::default(),
        &CancelToken::new(),
    ) {
        Ok(scan) => scan,
        Err(e) if e.is_not_found() => return Ok(format!("no memories yet in {folder}")),
        Err(e) => return Err(e.into()),
    };
    for d in &scan.diagnostics {
        log::warn!("{d}");
    }
    let mut scan = scan;
    scan.remove_superseded();
    if scan.memories.is_empty() {
        return Ok(format!("no memories yet in {folder}"));
    }
    Ok(format_manifest(&scan.memories))
}

/// Memory file `file` of `scope`'s folder as an agent is given it (the
/// use case renders it; this only names a missing one). Only a plain file
/// is read: a symbolic link is not followed.
pub(crate) fn read_file(project: &Project, scope: Scope, file: &str) -> Result<String, ToolError> {
    match project.read_memory_for_agent(scope, file) {
        Ok(memory) => Ok(memory.text),
        Err(OpsError::NotFound { folder, file }) => Err(ToolError::NoMemory {
            file,
            folder: folder.display().to_string(),
        }),
        Err(e) => Err(e.into()),
    }
}

fn read(project: &Project, args: &NameArgs) -> Result<String, ToolError> {
    let file = memory_file_name(&args.name)?;
    read_file(project, args.scope.into(), &file)
}

fn write(project: &Project, args: WriteArgs) -> Result<String, ToolError> {
    let scope: Scope = args.scope.into();
    let memory_type =
        MemoryType::parse(&args.memory_type).ok_or(ToolError::UnknownType(args.memory_type))?;
    let file = memory_file_name(&args.name)?;
    let memory = NewMemory {
        name: args.name,
        description: args.description,
        memory_type,
        body: args.body,
        title: args.title,
    };
    match project.save_memory_superseding(scope, &memory, &args.supersedes) {
        Ok(saved) if args.supersedes.is_empty() => Ok(format!("saved {}", saved.path)),
        Ok(saved) => Ok(format!(
            "saved {}, superseding {}",
            saved.path,
            args.supersedes.join(", ")
        )),
        // The same name (not another letter case of it): a change.
        Err(OpsError::AlreadyExists { existing, .. }) if existing == file => {
            let change = MemoryChange {
                description: Some(memory.description),
                memory_type: Some(memory.memory_type),
                body: Some(memory.body),
                title: memory.title,
            };
            let saved = project.update_memory(scope, &memory.name, &change)?;
            Ok(format!("updated {}", saved.path))
        }
        Err(e) => Err(e.into()),
    }
}

fn delete(project: &Project, args: &NameArgs) -> Result<String, ToolError> {
    let deleted = project.delete_memory(args.scope.into(), &args.name)?;
    Ok(format!(
        "deleted {} ({} index line{} removed)",
        deleted.path,
        deleted.index_lines_removed,
        if deleted.index_lines_removed == 1 {
            ""
        } else {
            "s"
        }
    ))
}

/// Runs `refresh` of `what` (a cache) on a thread of its own, logging a
/// failure.
fn in_background<E: std::fmt::Display>(
    project: &Project,
    what: &'static str,
    refresh: impl FnOnce(&Project) -> Result<(), E> + Send + 'static,
) {
    let project = project.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("memdir-{}-refresh", what.replace(' ', "-")))
        .spawn(move || {
            if let Err(e) = refresh(&project) {
                log::warn!("the {what} was not refreshed: {e}");
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start the {what} refresh: {e}");
    }
}

fn recall(project: &Project, args: RecallArgs) -> Result<String, ToolError> {
    let request = RecallRequest {
        query: args.query,
        surfaced: args
            .surfaced
            .into_iter()
            .map(PathBuf::from)
            .collect::<HashSet<_>>(),
        recent_tools: Vec::new(),
        selector: SelectorChoice::Local,
        citations_budget: None,
        // The server loads the embedding model once, when one is installed.
        semantic: true,
    };
    let outcome = project.recall_for_agent(&request)?;
    // The server outlives the request: each refresh runs on a thread of
    // its own, and one already running makes another return at once.
    if outcome.citation_refresh {
        in_background(project, "citation cache", |p| {
            p.refresh_citation_cache(None).map(drop)
        });
    }
    if outcome.index_refresh {
        // In a large folder, the listing the recall left to a refresh.
        // and the memories the embedding model has not embedded yet.
        in_background(project, "recall index", |p| {
            p.refresh_recall_index(false, &mut |_| {})?;
            p.embed_recall_index(&mut |_| {}).map(drop)
        });
    }
    if outcome.memories.is_empty() {
        return Ok("no memory is relevant enough to recall".to_owned());
    }
    // Each memory comes rendered from the use case, as the prompt hook
    // injects it; a blank line between them.
    let texts: Vec<&str> = outcome.memories.iter().map(|m| m.text.as_str()).collect();
    Ok(texts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use memdir_ops::{Environment, ProjectOptions};

    fn project(dir: &std::path::Path, team: bool) -> Project {
        let mut env = Environment::new().with_home(dir.join("home"));
        if team {
            env = env.with_var("MEMDIR_TEAM", "1");
        }
        Project::open(
            env,
            &ProjectOptions {
                dir: Some(dir.to_path_buf()),
                memory_dir: Some(dir.join("memory")),
                settings_file: None,
            },
        )
        .unwrap()
    }

    fn args(value: Value) -> Option<serde_json::Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    #[test]
    fn every_schema_is_an_object_schema_naming_its_required_fields() {
        for spec in specs() {
            assert_eq!(spec.schema["type"], "object", "{}", spec.name);
            for required in spec.schema["required"].as_array().into_iter().flatten() {
                let field = required.as_str().unwrap();
                assert!(
                    spec.schema["properties"].get(field).is_some(),
                    "{}: {field}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn write_then_read_then_delete_through_the_use_cases() {
        let tmp = tempfile::tempdir().unwrap();
        let project = project(tmp.path(), false);
        let written = call(
            &project,
            "write_memory",
            args(json!({"name": "ci", "type": "project", "description": "CI on push", "body": "CI runs on push."})),
        )
        .unwrap();
        assert!(written.starts_with("saved "), "{written}");
        let index = std::fs::read_to_string(tmp.path().join("memory/MEMORY.md")).unwrap();
        assert!(index.contains("(ci.md) — CI on push"), "{index}");
        let read = call(&project, "read_memory", args(json!({"name": "ci"}))).unwrap();
        assert!(read.contains("CI runs on push."), "{read}");
        assert!(
            !read.contains("<system-reminder>"),
            "a new memory needs no note"
        );
        call(&project, "delete_memory", args(json!({"name": "ci"}))).unwrap();
        assert!(!tmp.path().join("memory/ci.md").exists());
        let err = call(&project, "read_memory", args(json!({"name": "ci"}))).unwrap_err();
        assert!(
            err.one_line().starts_with("no memory ci.md in "),
            "{}",
            err.one_line()
        );
    }

    #[test]
    fn a_symlink_is_not_read_as_a_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let project = project(tmp.path(), false);
        std::fs::create_dir_all(tmp.path().join("memory")).unwrap();
        std::fs::write(tmp.path().join("outside.md"), "secret outside").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            tmp.path().join("outside.md"),
            tmp.path().join("memory/link.md"),
        )
        .unwrap();
        let err = call(&project, "read_memory", args(json!({"name": "link"}))).unwrap_err();
        assert!(!err.one_line().contains("secret outside"));
    }

    #[test]
    fn a_team_write_with_a_secret_is_refused_in_one_line() {
        let tmp = tempfile::tempdir().unwrap();
        let project = project(tmp.path(), true);
        let err = call(
            &project,
            "write_memory",
            args(
                json!({"name": "keys", "type": "project", "description": "deploy keys",
                        "body": "AKIAZ5VBQ2LJ3XKPR7TN", "scope": "team"}),
            ),
        )
        .unwrap_err();
        let line = err.one_line();
        assert!(line.contains("secret"), "{line}");
        assert!(
            !line.contains("AKIAZ5VBQ2LJ3XKPR7TN") && !line.contains('\n'),
            "{line}"
        );
        assert!(!tmp.path().join("memory/team/keys.md").exists());
    }

    /// Gemini CLI adds a boolean `wait_for_previous` to every tool's schema
    /// and sends it with every call; the tools take the call all the same,
    /// and still refuse a field they do not know.
    #[test]
    fn a_field_a_client_adds_to_every_call_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let project = project(tmp.path(), false);
        let calls = [
            (
                "write_memory",
                json!({"name": "ci", "type": "project", "description": "CI on push", "body": "CI runs on push."}),
            ),
            ("list_memories", json!({})),
            ("read_memory", json!({"name": "ci"})),
            ("recall_memories", json!({"query": "when does CI run"})),
            ("delete_memory", json!({"name": "ci"})),
        ];
        for (tool, mut value) in calls {
            value["wait_for_previous"] = json!(true);
            let answer = call(&project, tool, args(value.clone()));
            assert!(
                answer.is_ok(),
                "{tool} {value}: {:?}",
                answer.map_err(|e| e.one_line())
            );
        }
        assert!(!tmp.path().join("memory/ci.md").exists());
        let line = call(&project, "list_memories", args(json!({"scop": "team"})))
            .unwrap_err()
            .one_line();
        assert!(line.contains("unknown field `scop`"), "{line}");
    }

    #[test]
    fn arguments_of_the_wrong_shape_are_one_line_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let project = project(tmp.path(), false);
        for (tool, value) in [
            ("read_memory", json!({"name": 1})),
            ("read_memory", json!({})),
            (
                "write_memory",
                json!({"name": "x", "type": "mood", "description": "d", "body": "b"}),
            ),
            ("recall_memories", json!({"query": "q", "extra": true})),
            ("list_memories", json!({"scope": "../.."})),
        ] {
            let line = call(&project, tool, args(value.clone()))
                .unwrap_err()
                .one_line();
            assert!(
                !line.is_empty() && !line.contains('\n'),
                "{tool} {value}: {line}"
            );
        }
    }
}
