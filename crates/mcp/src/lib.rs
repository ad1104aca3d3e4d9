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
//! Every call reads the folder afresh, so a memory another process writes
//! is seen on the next call. Every write goes through [`memdir_ops`]
//! (validated, indexed, under the folder's lock, secret-checked for the
//! team folder). Nothing but the protocol goes to standard output; the
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
mod tools;

use memdir_ops::Project;
use rmcp::ServiceExt;

/// The name the server gives in its `initialize` answer.
pub const SERVER_NAME: &str = "memdir";

/// Why the server stopped other than by the client closing the connection.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The async runtime could not be started.
    #[error("cannot start the MCP server's runtime")]
    Runtime(#[source] std::io::Error),
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(McpError::Runtime)?;
    runtime.block_on(async move {
        let service = server::MemdirServer::new(project)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Initialize(Box::new(e)))?;
        log::debug!("MCP session initialized");
        service.waiting().await.map_err(McpError::Join)?;
        Ok(())
    })
}
