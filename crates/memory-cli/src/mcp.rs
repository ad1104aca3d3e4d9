//! `memdir mcp`: the project's memory as an MCP server on stdio.

use clap::Args;

use crate::Outcome;
use crate::context::GlobalArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
Speaks the Model Context Protocol on stdin and stdout (server name memdir) until the client \
disconnects; logs go to stderr only.

Tools: list_memories, read_memory, write_memory, delete_memory, recall_memories (each with a JSON \
input schema; a failed call is a tool error, never a stopped server). Prompt: memory. Resources: \
each memory of the private folder, as memdir:///<file>.

Example (an agent's MCP configuration):
  {\"mcpServers\": {\"memdir\": {\"command\": \"memdir\", \"args\": [\"mcp\"]}}}")]
pub(crate) struct McpArgs {}

pub(crate) fn run(_args: &McpArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    memdir_mcp::serve_stdio(project)?;
    Ok(Outcome::Success)
}
