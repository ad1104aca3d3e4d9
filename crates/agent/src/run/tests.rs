//! The loop against an in-process model: the cases a scripted HTTP server
//! adds nothing to.

use std::sync::{Arc, Mutex};

use memdir_model::{
    ChatReply, ChatRequest, ContentBlock, Message, ModelError, StopReason, ToolSpec, Usage,
};
use serde_json::{Value, json};

use super::{Agent, AgentConfig, Stop, ToolCallOutcome};
use crate::cancel::Cancel;
use crate::error::AgentError;
use crate::tool::{AllowAll, Tool, ToolOutput};

/// A model that answers from a list of replies and remembers how many
/// messages each request carried.
struct Script {
    replies: Mutex<Vec<ChatReply>>,
    seen: Mutex<Vec<usize>>,
}

impl super::ChatModel for Script {
    fn chat(&self, request: &ChatRequest) -> Result<ChatReply, ModelError> {
        self.seen.lock().unwrap().push(request.messages.len());
        let mut replies = self.replies.lock().unwrap();
        if replies.is_empty() {
            return Err(ModelError::Overloaded);
        }
        Ok(replies.remove(0))
    }
}

fn reply(content: Vec<ContentBlock>, stop: StopReason) -> ChatReply {
    ChatReply::new(
        content,
        stop,
        Usage {
            input_tokens: 1,
            output_tokens: 1,
        },
    )
}

fn call(id: &str, name: &str) -> ContentBlock {
    ContentBlock::ToolUse {
        id: id.to_owned(),
        name: name.to_owned(),
        input: json!({}),
    }
}

struct Named(String);

fn named(name: &str) -> Box<dyn Tool> {
    Box::new(Named(name.to_owned()))
}

impl Tool for Named {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.0.clone(),
            description: String::new(),
            input_schema: json!({"type": "object"}),
        }
    }
    fn call(&self, _input: &Value, _cancel: &Cancel) -> ToolOutput {
        assert_ne!(self.0, "boom", "this tool always panics");
        ToolOutput::error("it did not work")
    }
}

fn agent(replies: Vec<ChatReply>, tools: Vec<Box<dyn Tool>>) -> Agent {
    let model = Script {
        replies: Mutex::new(replies),
        seen: Mutex::new(Vec::new()),
    };
    Agent::new(
        Box::new(model),
        tools,
        Box::new(AllowAll),
        AgentConfig::new("s"),
    )
    .unwrap()
}

fn run(agent: &Agent) -> super::RunReport {
    agent.run(vec![Message::user("go")], &Cancel::new())
}

#[test]
fn a_panicking_tool_is_a_failed_call_and_the_run_goes_on() {
    let agent = agent(
        vec![
            reply(
                vec![call("a", "boom"), call("b", "fails")],
                StopReason::ToolUse,
            ),
            reply(vec![ContentBlock::text("done")], StopReason::EndTurn),
        ],
        vec![named("boom"), named("fails")],
    );
    let report = run(&agent);
    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    let outcomes: Vec<&ToolCallOutcome> = report.tool_calls.iter().map(|c| &c.outcome).collect();
    assert_eq!(
        outcomes,
        [
            &ToolCallOutcome::Ran { is_error: true },
            &ToolCallOutcome::Ran { is_error: true }
        ]
    );
    assert_eq!(
        report.messages[2].content,
        [
            ContentBlock::ToolResult {
                tool_use_id: "a".to_owned(),
                content: "tool `boom` failed unexpectedly".to_owned(),
                is_error: true,
            },
            ContentBlock::ToolResult {
                tool_use_id: "b".to_owned(),
                content: "it did not work".to_owned(),
                is_error: true,
            },
        ]
    );
}

#[test]
fn tool_calls_are_answered_whatever_the_stop_reason_says() {
    // A local server that says `stop` with tool calls, or a reason this
    // crate does not know: the calls are still answered.
    let agent = agent(
        vec![
            reply(vec![call("a", "fails")], StopReason::EndTurn),
            reply(
                vec![call("b", "fails")],
                StopReason::Other("new".to_owned()),
            ),
            reply(vec![], StopReason::Other("new".to_owned())),
        ],
        vec![named("fails")],
    );
    let report = run(&agent);
    assert!(matches!(report.stop, Stop::EndTurn), "{:?}", report.stop);
    assert_eq!(report.tool_calls.len(), 2);
    assert_eq!(report.turns, 3);
    // An empty reply adds no empty message.
    assert_eq!(report.messages.len(), 5);
}

#[test]
fn a_full_context_window_and_a_failed_call_end_the_run() {
    let agent1 = agent(
        vec![reply(
            vec![call("a", "fails")],
            StopReason::ContextWindowExceeded,
        )],
        vec![named("fails")],
    );
    let report = run(&agent1);
    assert!(
        matches!(report.stop, Stop::ContextWindowExceeded),
        "{:?}",
        report.stop
    );
    assert!(
        report.tool_calls.is_empty(),
        "no call of a cut-off reply runs"
    );

    let agent2 = agent(vec![], vec![]);
    let report = run(&agent2);
    assert!(
        matches!(report.stop, Stop::Model(ModelError::Overloaded)),
        "{:?}",
        report.stop
    );
    assert_eq!(report.turns, 1);
    assert_eq!(report.messages, [Message::user("go")]);
}

#[test]
fn the_conversation_is_handed_back_after_each_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let lengths = Arc::clone(&seen);
    let model = move |request: &ChatRequest| -> Result<ChatReply, ModelError> {
        let mut lengths = lengths.lock().unwrap();
        lengths.push(request.messages.len());
        Ok(if lengths.len() == 1 {
            reply(vec![call("a", "fails")], StopReason::ToolUse)
        } else {
            reply(vec![ContentBlock::text("done")], StopReason::EndTurn)
        })
    };
    let agent = Agent::new(
        Box::new(model),
        vec![named("fails")],
        Box::new(AllowAll),
        AgentConfig::new("s"),
    )
    .unwrap();
    let report = run(&agent);
    assert_eq!(*seen.lock().unwrap(), [1, 3]);
    assert_eq!(report.messages.len(), 4);
}

/// A tool whose schema is not an object.
struct NoSchema;

impl Tool for NoSchema {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "n".to_owned(),
            description: String::new(),
            input_schema: json!(true),
        }
    }
    fn call(&self, _input: &Value, _cancel: &Cancel) -> ToolOutput {
        ToolOutput::ok("")
    }
}

#[test]
fn tools_and_limits_that_cannot_work_are_refused() {
    let make = |tools: Vec<Box<dyn Tool>>, config: AgentConfig| {
        Agent::new(
            Box::new(Script {
                replies: Mutex::default(),
                seen: Mutex::default(),
            }),
            tools,
            Box::new(AllowAll),
            config,
        )
        .unwrap_err()
    };
    let config = || AgentConfig::new("s");
    assert_eq!(
        make(vec![named("a"), named("a")], config()),
        AgentError::DuplicateTool {
            name: "a".to_owned()
        }
    );
    let long = "x".repeat(65);
    for name in ["", "has space", "dots.not.allowed", "ü", &long] {
        assert_eq!(
            make(vec![named(name)], config()),
            AgentError::InvalidToolName {
                name: name.to_owned()
            }
        );
    }
    let longest = agent(Vec::new(), vec![named(&"x".repeat(64)), named("a-b_C9")]);
    assert_eq!(format!("{longest:?}").matches("xxxx").count(), 16);
    assert_eq!(
        make(vec![Box::new(NoSchema)], config()),
        AgentError::InvalidToolSchema {
            name: "n".to_owned()
        }
    );
    let mut zero = config();
    zero.max_turns = 0;
    assert!(matches!(
        make(vec![], zero),
        AgentError::InvalidConfig {
            setting: "max_turns",
            ..
        }
    ));
    let mut zero = config();
    zero.max_tokens_per_call = 0;
    assert!(matches!(
        make(vec![], zero),
        AgentError::InvalidConfig {
            setting: "max_tokens_per_call",
            ..
        }
    ));
}

#[test]
fn an_agent_can_run_on_another_thread() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Agent>();
    assert_send_sync::<Cancel>();
}
