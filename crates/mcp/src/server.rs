//! The MCP handler: tools, the memory prompt and the memories as resources,
//! each request answered from a fresh read of the folder.

use memdir_ops::{Project, Scope};
use memdir_prompt::{MemoryPrompt, PromptOptions, load_memory_prompt};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::tools::{self, ToolError};

/// The one prompt the server offers.
const PROMPT_NAME: &str = "memory";

/// Resource URIs: `memdir:///` and the file's path in the memory folder.
const URI_PREFIX: &str = "memdir:///";

/// What a path segment of a resource URI keeps as it is; the rest is
/// percent-encoded (`/` separates segments and stays).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b'/');

/// The URI of the memory at `file` (relative to the memory folder).
fn resource_uri(file: &str) -> String {
    format!("{URI_PREFIX}{}", utf8_percent_encode(file, SEGMENT))
}

/// The server: a project whose paths are resolved once; its folders are
/// read afresh on every request.
#[derive(Debug, Clone)]
pub(crate) struct MemdirServer {
    project: Project,
}

impl MemdirServer {
    pub(crate) fn new(project: Project) -> MemdirServer {
        MemdirServer { project }
    }

    /// Runs blocking folder work off the protocol's threads.
    async fn blocking<T, F>(&self, work: F) -> Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&Project) -> T + Send + 'static,
    {
        let project = self.project.clone();
        tokio::task::spawn_blocking(move || work(&project))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the request failed: {e}"), None))
    }
}

fn memory_prompt(project: &Project) -> Result<String, ErrorData> {
    match load_memory_prompt(project.resolution(), &PromptOptions::default()) {
        Ok(MemoryPrompt::Prompt { text, .. }) => Ok(text),
        Ok(MemoryPrompt::Off { reason }) => Err(ErrorData::internal_error(
            format!("no memory prompt: {reason}"),
            None,
        )),
        Err(e) => Err(ErrorData::internal_error(
            format!("no memory prompt: {e}"),
            None,
        )),
    }
}

fn list_resources(project: &Project) -> Result<Vec<Resource>, ToolError> {
    let folder = project.folder(Scope::Private)?;
    let scan = match scan_memory_dir(
        folder.as_std_path(),
        &ScanOptions::default(),
        &CancelToken::new(),
    ) {
        Ok(scan) => scan,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    Ok(scan
        .memories
        .into_iter()
        .map(|m| {
            let resource = Resource::new(resource_uri(&m.filename), m.filename.clone())
                .with_mime_type("text/markdown");
            match m.description {
                Some(d) => resource.with_description(d),
                None => resource,
            }
        })
        .collect())
}

/// A resource's text: only a memory the folder's scan lists (the scan
/// follows no links), so no URI reaches outside the folder.
fn read_resource(project: &Project, uri: &str) -> Result<Option<String>, ToolError> {
    let Some(encoded) = uri.strip_prefix(URI_PREFIX) else {
        return Ok(None);
    };
    let Ok(file) = percent_decode_str(encoded).decode_utf8() else {
        return Ok(None);
    };
    let listed = list_resources(project)?.into_iter().any(|r| r.name == file);
    if !listed {
        return Ok(None);
    }
    tools::read_file(project, Scope::Private, &file).map(Some)
}

impl ServerHandler for MemdirServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            crate::SERVER_NAME,
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(
            "The project's memory: list_memories, read_memory, recall_memories to look; \
             write_memory and delete_memory to change it. The prompt `memory` explains \
             what is worth saving.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::specs()
            .into_iter()
            .map(|spec| {
                let schema = match spec.schema {
                    serde_json::Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                Tool::new(spec.name, spec.description, schema)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let arguments = request.arguments;
        let tool = name.clone();
        let answer = self
            .blocking(move |project| tools::call(project, &tool, arguments))
            .await?;
        Ok(match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => {
                let line = e.one_line();
                log::info!("{name}: {line}");
                CallToolResult::error(vec![ContentBlock::text(line)])
            }
        }
        .into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            PROMPT_NAME,
            Some(
                "The memory section of the system prompt: where memory lives, what to save and how",
            ),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != PROMPT_NAME {
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt is named {:?}; the prompt is {PROMPT_NAME:?}",
                    request.name
                ),
                None,
            ));
        }
        let text = self.blocking(memory_prompt).await??;
        let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
        result.description = Some("memdir's memory prompt".to_owned());
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self
            .blocking(list_resources)
            .await?
            .map_err(|e| ErrorData::internal_error(e.one_line(), None))?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let asked = uri.clone();
        let text = self
            .blocking(move |project| read_resource(project, &asked))
            .await?
            .map_err(|e| ErrorData::internal_error(e.one_line(), None))?;
        match text {
            Some(text) => {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
            }
            None => Err(ErrorData::resource_not_found(
                format!("no memory at {uri}"),
                None,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memdir_ops::{Environment, ProjectOptions};

    #[test]
    fn resources_are_the_listed_memories_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let memory = tmp.path().join("memory");
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(
            memory.join("deploy notes.md"),
            "---\nname: deploy notes\ndescription: how we deploy\ntype: project\n---\nStaging first.\n",
        )
        .unwrap();
        std::fs::write(tmp.path().join("outside.md"), "not memory").unwrap();
        let project = Project::open(
            Environment::new().with_home(tmp.path().join("home")),
            &ProjectOptions {
                dir: Some(tmp.path().to_path_buf()),
                memory_dir: Some(memory),
                settings_file: None,
            },
        )
        .unwrap();
        let resources = list_resources(&project).unwrap();
        assert_eq!(resources.len(), 1);
        assert_eq!(resources[0].uri, "memdir:///deploy%20notes.md");
        let text = read_resource(&project, &resources[0].uri).unwrap().unwrap();
        assert!(text.contains("Staging first."), "{text}");
        for hostile in [
            "memdir:///../outside.md",
            "memdir:///%2E%2E/outside.md",
            "memdir:///%2e%2e%2foutside.md",
            "file:///etc/passwd",
            "memdir:///%FF.md",
        ] {
            assert!(
                read_resource(&project, hostile).unwrap().is_none(),
                "{hostile}"
            );
        }
    }
}
