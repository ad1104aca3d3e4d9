//! The tools as `memdir-agent` tools, and the extraction step's policy
//! (`createAutoMemCanUseTool` of the reference design, SPEC R12.4).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use memdir_agent::{CanUseTool, Cancel, Tool, ToolOutput, ToolSpec, Verdict};
use memdir_bashpolicy::{Decision, RunLimits};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::{
    EditInput, GlobInput, GrepInput, MemoryScope, ReadInput, SEARCH_TIME, Stop, WriteInput,
};

fn parse<T: DeserializeOwned>(tool: &str, input: &Value) -> Result<T, ToolOutput> {
    serde_json::from_value(input.clone())
        .map_err(|e| ToolOutput::error(format!("the input is not valid for {tool}: {e}")))
}

fn answer(result: Result<String, crate::ToolError>) -> ToolOutput {
    match result {
        Ok(text) => ToolOutput::ok(text),
        Err(e) => ToolOutput::error(e.to_string()),
    }
}

fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        input_schema: schema,
    }
}

/// Runs a search with the search time limit and `cancel` as its stop.
fn searching(
    cancel: &Cancel,
    search: impl FnOnce(&Stop<'_>) -> Result<String, crate::ToolError>,
) -> ToolOutput {
    let cancelled = || cancel.is_cancelled();
    let stop = Stop {
        deadline: Instant::now() + SEARCH_TIME,
        cancelled: &cancelled,
    };
    answer(search(&stop))
}

/// Read, relative to a project root.
#[derive(Debug, Clone)]
pub struct ReadTool {
    root: PathBuf,
}

/// Grep, relative to a project root.
#[derive(Debug, Clone)]
pub struct GrepTool {
    root: PathBuf,
}

/// Glob, relative to a project root.
#[derive(Debug, Clone)]
pub struct GlobTool {
    root: PathBuf,
}

/// Bash, read-only commands only, run without a shell in the project root.
#[derive(Debug, Clone)]
pub struct BashTool {
    root: PathBuf,
    limits: RunLimits,
}

/// Write, inside the memory folder only.
#[derive(Debug, Clone)]
pub struct WriteTool {
    scope: Arc<MemoryScope>,
}

/// Edit, inside the memory folder only.
#[derive(Debug, Clone)]
pub struct EditTool {
    scope: Arc<MemoryScope>,
}

impl Tool for ReadTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Read",
            "Reads a text file and returns its lines numbered, at most 2000 from `offset`.",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The file, absolute or relative to the project root."},
                    "offset": {"type": "integer", "minimum": 1, "description": "The first line to return, from 1."},
                    "limit": {"type": "integer", "minimum": 1, "description": "How many lines to return."}
                },
                "required": ["file_path"]
            }),
        )
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        match parse::<ReadInput>("Read", input) {
            Ok(input) => answer(crate::read_file(&self.root, &input)),
            Err(out) => out,
        }
    }
}

impl Tool for GrepTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Grep",
            "Searches file contents with a regular expression (ripgrep syntax), skipping hidden and ignored files.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The regular expression."},
                    "path": {"type": "string", "description": "File or folder to search; the project root by default."},
                    "glob": {"type": "string", "description": "Only files matching this glob, such as `*.rs`."},
                    "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"]},
                    "-i": {"type": "boolean", "description": "Case-insensitive."},
                    "head_limit": {"type": "integer", "minimum": 1, "description": "At most this many results."}
                },
                "required": ["pattern"]
            }),
        )
    }

    fn call(&self, input: &Value, cancel: &Cancel) -> ToolOutput {
        match parse::<GrepInput>("Grep", input) {
            Ok(input) => searching(cancel, |stop| crate::grep(&self.root, &input, stop)),
            Err(out) => out,
        }
    }
}

impl Tool for GlobTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Glob",
            "Lists files whose path matches a glob (`**/*.md`), newest first, skipping hidden and ignored files.",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "The glob, over paths relative to `path`."},
                    "path": {"type": "string", "description": "The folder to search; the project root by default."}
                },
                "required": ["pattern"]
            }),
        )
    }

    fn call(&self, input: &Value, cancel: &Cancel) -> ToolOutput {
        match parse::<GlobInput>("Glob", input) {
            Ok(input) => searching(cancel, |stop| crate::glob(&self.root, &input, stop)),
            Err(out) => out,
        }
    }
}

#[derive(serde::Deserialize)]
struct BashInput {
    command: String,
}

impl Tool for BashTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Bash",
            "Runs one read-only command (ls, find, grep, cat, head, tail, wc, stat, git log/show/diff, …) in the project root, without a shell: no redirection, no substitution, nothing that writes; globs such as *.md are expanded inside the project.",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line."},
                    "description": {"type": "string", "description": "What it is for, in a few words."}
                },
                "required": ["command"]
            }),
        )
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        let input = match parse::<BashInput>("Bash", input) {
            Ok(input) => input,
            Err(out) => return out,
        };
        // Judged again here: the tool never runs what the policy refuses,
        // whoever calls it.
        let plan = match memdir_bashpolicy::check(&input.command) {
            Decision::Allowed(plan) => plan,
            Decision::Denied(denial) => return ToolOutput::error(denial.reason),
        };
        match memdir_bashpolicy::run(&plan, &self.root, &self.limits) {
            Err(e) => ToolOutput::error(format!("the command could not be run: {e}")),
            Ok(out) => {
                let mut text = out.output;
                if out.dropped_bytes > 0 {
                    let _ = write!(
                        text,
                        "\n({} more bytes of output dropped)",
                        out.dropped_bytes
                    );
                }
                if out.timed_out {
                    text.push_str("\n(the command ran past its time limit and was stopped)");
                    return ToolOutput::error(text);
                }
                match out.exit_code {
                    Some(0) => ToolOutput::ok(text),
                    Some(code) => {
                        let _ = write!(text, "\n(exit status {code})");
                        ToolOutput::error(text)
                    }
                    None => {
                        text.push_str("\n(ended by a signal)");
                        ToolOutput::error(text)
                    }
                }
            }
        }
    }
}

impl Tool for WriteTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Write",
            "Writes a memory file (its whole content), inside the memory folder only.",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The absolute path of a `.md` file inside the memory folder."},
                    "content": {"type": "string", "description": "The file's whole new content."}
                },
                "required": ["file_path", "content"]
            }),
        )
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        match parse::<WriteInput>("Write", input) {
            Ok(input) => answer(self.scope.write(&input)),
            Err(out) => out,
        }
    }
}

impl Tool for EditTool {
    fn spec(&self) -> ToolSpec {
        spec(
            "Edit",
            "Replaces text in a memory file, inside the memory folder only. `old_string` must occur exactly once unless `replace_all`.",
            json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The absolute path of a `.md` file inside the memory folder."},
                    "old_string": {"type": "string", "description": "The exact text to replace."},
                    "new_string": {"type": "string", "description": "The text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
                },
                "required": ["file_path", "old_string", "new_string"]
            }),
        )
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        match parse::<EditInput>("Edit", input) {
            Ok(input) => answer(self.scope.edit(&input)),
            Err(out) => out,
        }
    }
}

/// The extraction step's tools: Read, Grep, Glob and Bash in `root` (the
/// project), Edit and Write in `scope`.
#[must_use]
pub fn extraction_tools(root: &Path, scope: &Arc<MemoryScope>) -> Vec<Box<dyn Tool>> {
    vec![
        Box::new(ReadTool {
            root: root.to_owned(),
        }),
        Box::new(GrepTool {
            root: root.to_owned(),
        }),
        Box::new(GlobTool {
            root: root.to_owned(),
        }),
        Box::new(BashTool {
            root: root.to_owned(),
            limits: RunLimits::default(),
        }),
        Box::new(EditTool {
            scope: Arc::clone(scope),
        }),
        Box::new(WriteTool {
            scope: Arc::clone(scope),
        }),
    ]
}

/// The extraction step's permissions (SPEC R12.4): Read, Grep and Glob
/// always; Bash when the read-only policy allows the command; Edit and
/// Write when the path is inside the memory folder; nothing else.
#[derive(Debug, Clone)]
pub struct AutoMemPolicy {
    scope: Arc<MemoryScope>,
}

impl AutoMemPolicy {
    /// The policy for the folders of `scope`.
    #[must_use]
    pub fn new(scope: &Arc<MemoryScope>) -> Self {
        AutoMemPolicy {
            scope: Arc::clone(scope),
        }
    }
}

impl CanUseTool for AutoMemPolicy {
    fn check(&self, tool: &str, input: &Value) -> Verdict {
        let text = |field: &str| input.get(field).and_then(Value::as_str);
        match tool {
            "Read" | "Grep" | "Glob" => Verdict::Allow,
            "Bash" => match text("command").map(memdir_bashpolicy::check) {
                Some(Decision::Allowed(_)) => Verdict::Allow,
                Some(Decision::Denied(denial)) => Verdict::Deny(denial.reason),
                None => Verdict::Deny("Bash needs a `command` string".to_owned()),
            },
            "Edit" | "Write" => match text("file_path").map(|p| self.scope.target(p)) {
                Some(Ok(_)) => Verdict::Allow,
                Some(Err(e)) => Verdict::Deny(e.to_string()),
                None => Verdict::Deny(format!("{tool} needs a `file_path` string")),
            },
            other => Verdict::Deny(format!(
                "{other} is not available here: the memory extraction step may use Read, Grep, Glob, \
                 read-only Bash, and Edit or Write inside {}",
                self.scope.private_path().display()
            )),
        }
    }
}
