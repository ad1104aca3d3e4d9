//! Shared test inputs: clients for a scripted server, model turns in each
//! backend's wire format, the tools the tests offer, and readers of the
//! tool results a recorded request carries.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use memdir_agent::{
    Agent, AgentConfig, AllowAll, CanUseTool, Cancel, ModelClient, Tool, ToolOutput, ToolSpec,
    Verdict,
};
use memdir_model::{Backend, ModelConfig};
use memdir_testkit::{Recorded, Reply};
use serde_json::{Value, json};

/// Both backends, for tests that run on each.
pub(crate) const BACKENDS: [Backend; 2] = [Backend::Anthropic, Backend::OpenAiCompatible];

/// The system prompt of every test agent.
pub(crate) const SYSTEM: &str = "Extract memories from the conversation.";

/// The first user message of every test run.
pub(crate) const PROMPT: &str = "Here is the transcript: …";

/// A client of `backend` for a scripted server at `url`, with `timeout`.
pub(crate) fn client(backend: Backend, url: &str, timeout: Duration) -> ModelClient {
    let (base, model) = match backend {
        Backend::Anthropic => (url.to_owned(), "claude-sonnet-4-6"),
        Backend::OpenAiCompatible => (format!("{url}/v1"), "local-model"),
    };
    let mut config = ModelConfig::new(backend, base, Some("sk-test-agent".to_owned()), model);
    config.timeout = timeout;
    ModelClient::new(config).unwrap()
}

/// The tool runs of a test, in order: each tool's name and input.
pub(crate) type Log = Arc<Mutex<Vec<(String, Value)>>>;

/// An agent of `backend` at `url` with [`tools`], `can_use` and `config`,
/// and the log its tools write.
pub(crate) fn agent_with(
    backend: Backend,
    url: &str,
    can_use: Box<dyn CanUseTool>,
    config: AgentConfig,
) -> (Agent, Log) {
    let model = client(backend, url, Duration::from_secs(10));
    let log = Log::default();
    let agent = Agent::new(Box::new(model), tools(&log), can_use, config).unwrap();
    (agent, log)
}

/// An agent of `backend` at `url` that allows every call, with the default
/// limits, and its tools' log.
pub(crate) fn agent(backend: Backend, url: &str) -> (Agent, Log) {
    agent_with(backend, url, Box::new(AllowAll), AgentConfig::new(SYSTEM))
}

/// The names of the tools that ran.
pub(crate) fn ran(log: &Log) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .map(|(name, _)| name.clone())
        .collect()
}

/// Runs `agent` on [`PROMPT`] without cancelling.
pub(crate) fn run(agent: &Agent) -> memdir_agent::RunReport {
    agent.run(vec![memdir_agent::Message::user(PROMPT)], &Cancel::new())
}

/// A tool that answers from its input, as a fake file system would, and
/// logs each run to prove what ran and what did not.
struct Fake {
    name: &'static str,
    field: &'static str,
    log: Log,
}

impl Tool for Fake {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_owned(),
            description: format!("The {} tool.", self.name),
            input_schema: json!({
                "type": "object",
                "properties": {self.field: {"type": "string"}},
                "required": [self.field],
            }),
        }
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        let entry = (self.name.to_owned(), input.clone());
        self.log.lock().unwrap().push(entry);
        let value = input[self.field].as_str().unwrap_or_default();
        ToolOutput::ok(format!("{} {value}: ok", self.name))
    }
}

/// The tools every test agent has: `read {path}`, `list {dir}` and
/// `write {path}`, logging to `log`.
pub(crate) fn tools(log: &Log) -> Vec<Box<dyn Tool>> {
    let fake = |name, field| -> Box<dyn Tool> {
        Box::new(Fake {
            name,
            field,
            log: Arc::clone(log),
        })
    };
    vec![
        fake("read", "path"),
        fake("list", "dir"),
        fake("write", "path"),
    ]
}

/// The `tools` array each backend is sent for [`tools`].
pub(crate) fn wire_tools(backend: Backend) -> Value {
    let spec = |name: &str, field: &str| {
        let schema = json!({
            "type": "object",
            "properties": {field: {"type": "string"}},
            "required": [field],
        });
        let description = format!("The {name} tool.");
        match backend {
            Backend::Anthropic => {
                json!({"name": name, "description": description, "input_schema": schema})
            }
            Backend::OpenAiCompatible => json!({"type": "function", "function": {
                "name": name, "description": description, "parameters": schema,
            }}),
        }
    };
    json!([
        spec("read", "path"),
        spec("list", "dir"),
        spec("write", "path")
    ])
}

/// A permission check that refuses `write` with a reason.
pub(crate) fn no_writes() -> Box<dyn CanUseTool> {
    Box::new(|tool: &str, input: &Value| {
        if tool == "write" {
            Verdict::Deny(format!(
                "writing {} is refused: only the memory folder is writable",
                input["path"]
            ))
        } else {
            Verdict::Allow
        }
    })
}

/// A tool call in a scripted turn: id, name, and the input as a JSON value
/// (sent as it is to Anthropic, as a JSON string to OpenAI).
pub(crate) type Call<'a> = (&'a str, &'a str, Value);

/// One model turn in `backend`'s wire format: optional text, tool calls,
/// and the stop reason (`end_turn`, `tool_use`, `max_tokens`, … in
/// Anthropic's words, translated for OpenAI), with `tokens` of input and
/// output.
pub(crate) fn turn(
    backend: Backend,
    text: Option<&str>,
    calls: &[Call<'_>],
    stop: &str,
    tokens: (u64, u64),
) -> Reply {
    match backend {
        Backend::Anthropic => {
            let mut content: Vec<Value> = text
                .map(|t| json!({"type": "text", "text": t}))
                .into_iter()
                .collect();
            content.extend(calls.iter().map(|(id, name, input)| {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }));
            Reply::json(
                200,
                &json!({
                    "id": "msg_01", "type": "message", "role": "assistant",
                    "model": "claude-sonnet-4-6",
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": null,
                    "usage": {"input_tokens": tokens.0, "output_tokens": tokens.1},
                }),
            )
        }
        Backend::OpenAiCompatible => {
            let calls: Vec<Value> = calls
                .iter()
                .map(|(id, name, input)| {
                    json!({"id": id, "type": "function",
                           "function": {"name": name, "arguments": input.to_string()}})
                })
                .collect();
            openai_turn(text, &calls, stop, tokens)
        }
    }
}

/// An OpenAI turn with `tool_calls` given as they go on the wire (for
/// arguments that are not JSON); `stop` in Anthropic's words.
pub(crate) fn openai_turn(
    text: Option<&str>,
    calls: &[Value],
    stop: &str,
    tokens: (u64, u64),
) -> Reply {
    let finish = match stop {
        "end_turn" => "stop",
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        other => other,
    };
    let mut message = json!({"role": "assistant", "content": text});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls.to_vec());
    }
    Reply::json(
        200,
        &json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "local-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": tokens.0, "completion_tokens": tokens.1,
                      "total_tokens": tokens.0 + tokens.1},
        }),
    )
}

/// The tool results of the last message of a recorded request: (id,
/// content, `is_error`). For OpenAI these are the trailing `tool` messages,
/// and an error is the content's `Error: ` prefix, which is removed.
pub(crate) fn last_results(backend: Backend, request: &Recorded) -> Vec<(String, String, bool)> {
    let body = request.json();
    let messages = body["messages"].as_array().unwrap();
    match backend {
        Backend::Anthropic => {
            let last = messages.last().unwrap();
            assert_eq!(last["role"], "user");
            last["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| {
                    assert_eq!(block["type"], "tool_result");
                    (
                        block["tool_use_id"].as_str().unwrap().to_owned(),
                        block["content"].as_str().unwrap().to_owned(),
                        block["is_error"].as_bool().unwrap(),
                    )
                })
                .collect()
        }
        Backend::OpenAiCompatible => {
            let tail = messages
                .iter()
                .rev()
                .take_while(|m| m["role"] == "tool")
                .collect::<Vec<_>>();
            tail.into_iter()
                .rev()
                .map(|m| {
                    let content = m["content"].as_str().unwrap();
                    let (content, is_error) = match content.strip_prefix("Error: ") {
                        Some(rest) => (rest, true),
                        None => (content, false),
                    };
                    (
                        m["tool_call_id"].as_str().unwrap().to_owned(),
                        content.to_owned(),
                        is_error,
                    )
                })
                .collect()
        }
    }
}

/// An (id, content, `is_error`) triple, for comparing with [`last_results`].
pub(crate) fn result(id: &str, content: &str, is_error: bool) -> (String, String, bool) {
    (id.to_owned(), content.to_owned(), is_error)
}
