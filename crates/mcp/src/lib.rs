//! memdir's MCP server: a project's memories for any MCP-capable agent.
//!
//! [`serve_stdio`] answers the Model Context Protocol on standard input and
//! output (server name `memdir`) until the client closes the connection:
//!
//! - tools `list_memories`, `read_memory`, `write_memory`, `delete_memory`
//!   and `recall_memories`, each with a JSON input schema; a failed call is
//!   a tool error (`isError: true`) of one line, never a failed server;
//! - the memory section of the system prompt as the prompt `memory`;
//! - each memory of the private folder as a resource `memdir:///<file>`.
//!
//! Every request gets exactly one answer: a line that is not a message
//! (not UTF-8, not JSON, an `id` no integer holds, longer than
//! [`MAX_MESSAGE_BYTES`]) gets one JSON-RPC error, -32700 or -32600, and the
//! session goes on. A line over the limit is skipped without being held.
//!
//! What `read_memory`, `recall_memories` and a resource give of a memory
//! is [`memdir_ops::AgentMemory::text`], rendered by the use case exactly
//! as the prompt hook injects it (its age from `modified`, its notes, its
//! text cut at [`memdir_ops::MAX_AGENT_MEMORY_CHARS`]).
//!
//! Every call reads the folder afresh, so a memory another process writes
//! is seen on the next call. Every write goes through [`memdir_ops`]
//! (validated, indexed, under the folder's lock, secret-checked in either
//! folder, title included). Nothing but the protocol goes to standard output; the
//! crate logs through `log`, and the binary sends that to stderr.
//!
//! ```no_run
//! use memdir_ops::{Environment, Project, ProjectOptions};
//!
//! let project = Project::open(Environment::from_process(), &ProjectOptions::default())?;
//! memdir_mcp::serve_stdio(project)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod server;
mod stdio;
mod tools;

use memdir_ops::Project;
use rmcp::ServiceExt;

/// The name the server gives in its `initialize` answer.
pub const SERVER_NAME: &str = "memdir";

/// The longest message the server reads, in bytes, not counting its line
/// ending: 16 MiB, as rmcp's own limit. A longer line is answered with a
/// JSON-RPC error (-32600) as soon as it passes the limit, and the rest of
/// it is skipped without being held.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Why the server stopped other than by the client closing the connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The async runtime could not be started.
    #[error("cannot start the MCP server's runtime")]
    Runtime(#[source] std::io::Error),
    /// The threads that read and write the protocol could not be started.
    #[error("cannot start the MCP server's input and output threads")]
    Threads(#[source] std::io::Error),
    /// The client's `initialize` exchange failed.
    #[error("the MCP client did not initialize the session")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The server's task ended abnormally.
    #[error("the MCP server stopped abnormally")]
    Join(#[source] tokio::task::JoinError),
}

/// Serves `project`'s memory over MCP on stdin and stdout until the client
/// disconnects.
pub fn serve_stdio(project: Project) -> Result<(), McpError> {
    serve(project, std::io::stdin(), std::io::stdout())
}

/// Serves `project`'s memory over MCP, one JSON-RPC message per line, on
/// `input` and `output` until `input` ends.
fn serve<R, W>(project: Project, input: R, output: W) -> Result<(), McpError>
where
    R: std::io::Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(McpError::Runtime)?;
    let (transport, threads) = stdio::start(input, output).map_err(McpError::Threads)?;
    let served = runtime.block_on(async move {
        let service = server::MemdirServer::new(project)
            .serve(transport)
            .await
            .map_err(|e| McpError::Initialize(Box::new(e)))?;
        log::debug!("MCP session initialized");
        service.waiting().await.map_err(McpError::Join)?;
        Ok(())
    });
    // The answers still queued go out before the process ends.
    threads.finish();
    served
}
