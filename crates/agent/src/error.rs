//! The one error type of the crate: an agent that cannot be made. A run
//! itself never fails; how it ended is its [`Stop`](crate::Stop).

/// Why [`Agent::new`](crate::Agent::new) refused its arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// Two tools have the same name, so a call could not say which runs.
    #[error("two tools are named `{name}`")]
    DuplicateTool {
        /// The name.
        name: String,
    },
    /// A tool's name is not what model servers accept: letters, digits,
    /// `_` and `-`, 1 to 64 of them.
    #[error("tool name `{name}` is not 1 to 64 letters, digits, `_` or `-`")]
    InvalidToolName {
        /// The name.
        name: String,
    },
    /// A tool's input schema is not a JSON object.
    #[error("the input schema of tool `{name}` is not a json object")]
    InvalidToolSchema {
        /// The tool's name.
        name: String,
    },
    /// A setting of [`AgentConfig`](crate::AgentConfig) cannot work.
    #[error("invalid agent setting {setting}: {reason}")]
    InvalidConfig {
        /// The field of `AgentConfig`.
        setting: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
}
