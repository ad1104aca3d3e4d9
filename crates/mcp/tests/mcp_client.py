"""Drives `memdir mcp` with the official MCP Python SDK's stdio client.

Usage: mcp_client.py MEMDIR_BINARY MEMORY_DIR
Exits 0 when every check passes; prints the failed check and exits 1 else.
"""

import asyncio
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

MEMDIR, MEMORY_DIR = sys.argv[1], sys.argv[2]
ENV = {k: v for k, v in os.environ.items()}
ENV["MEMDIR_TEAM"] = "1"


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)


def text(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main():
    params = StdioServerParameters(
        command=MEMDIR, args=["--memory-dir", MEMORY_DIR, "mcp"], env=ENV, cwd=os.path.dirname(MEMORY_DIR)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "memdir", f"server name {init.server_info.name}")

            tools = {t.name: t for t in (await session.list_tools()).tools}
            expected = {"list_memories", "read_memory", "write_memory", "delete_memory", "recall_memories"}
            check(set(tools) == expected, f"tools {sorted(tools)}")
            for t in tools.values():
                check(t.input_schema.get("type") == "object", f"{t.name} has an object schema")
            check("name" in tools["write_memory"].input_schema["required"], "write_memory requires name")

            async def call(name, args):
                return await session.call_tool(name, args)

            # Good calls.
            r = await call("write_memory", {"name": "use-pnpm", "type": "feedback",
                                            "description": "The repo uses pnpm; npm breaks the lockfile",
                                            "body": "Use pnpm, never npm."})
            check(not r.is_error and "saved" in text(r), f"write: {text(r)}")
            index = open(os.path.join(MEMORY_DIR, "MEMORY.md")).read()
            check("use-pnpm.md" in index, "write_memory indexed the memory")
            r = await call("write_memory", {"name": "use-pnpm", "type": "feedback",
                                            "description": "pnpm only", "body": "Use pnpm 9."})
            check(not r.is_error and "updated" in text(r), f"rewrite: {text(r)}")
            r = await call("list_memories", {})
            check(not r.is_error and "use-pnpm.md" in text(r) and "pnpm only" in text(r), f"list: {text(r)}")
            r = await call("read_memory", {"name": "use-pnpm"})
            check(not r.is_error and "Use pnpm 9." in text(r), f"read: {text(r)}")
            old = os.path.join(MEMORY_DIR, "old-note.md")
            with open(old, "w") as f:
                f.write("---\nname: old-note\ndescription: deploys go through staging\ntype: project\n---\nDeploy to staging first.\n")
            os.utime(old, (1_600_000_000, 1_600_000_000))
            r = await call("read_memory", {"name": "old-note"})
            check(not r.is_error and "<system-reminder>" in text(r) and "days old" in text(r), f"freshness: {text(r)}")
            r = await call("recall_memories", {"query": "how do we deploy to staging"})
            check(not r.is_error and "old-note.md" in text(r) and "<system-reminder>" in text(r), f"recall: {text(r)}")

            # A memory that replaces another: the old one leaves the list and recall.
            r = await call("write_memory", {"name": "staging-gone", "type": "project",
                                            "description": "deploys skip staging now; go to production behind a flag",
                                            "body": "No staging step.", "supersedes": ["old-note"]})
            check(not r.is_error and "superseding old-note" in text(r), f"supersede: {text(r)}")
            r = await call("list_memories", {})
            check("old-note.md" not in text(r) and "staging-gone.md" in text(r), f"list after supersede: {text(r)}")
            r = await call("recall_memories", {"query": "how do we deploy to staging"})
            check("## old-note.md" not in text(r) and "## staging-gone.md" in text(r), f"recall after supersede: {text(r)}")
            check("supersededBy: staging-gone.md" in open(old).read(), "the old memory is marked")

            # Hostile and broken calls: tool errors, one line, server alive.
            hostile = [
                ("read_memory", {"name": "../../etc/passwd"}),
                ("read_memory", {"name": "/etc/passwd"}),
                ("write_memory", {"name": "../escape", "type": "project", "description": "d", "body": "b"}),
                ("delete_memory", {"name": "../MEMORY"}),
                ("read_memory", {"name": "missing-one"}),
                ("delete_memory", {"name": "missing-one"}),
                ("read_memory", {"name": 42}),
                ("write_memory", {"name": "x", "type": "nonsense", "description": "d", "body": "b"}),
                ("write_memory", {"name": "x", "type": "project", "description": 7, "body": "b"}),
                ("write_memory", {"name": "x"}),
                ("recall_memories", {"query": ["not", "a", "string"]}),
                ("list_memories", {"scope": "elsewhere"}),
                ("no_such_tool", {}),
                ("write_memory", {"name": "aws-key", "type": "project", "description": "deploy credentials",
                                  "body": "key AKIAZ5VBQ2LJ3XKPR7TN secret", "scope": "team"}),
                ("write_memory", {"name": "gh-token", "type": "reference", "description": "token", "scope": "team",
                                  "body": "token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}),
            ]
            for name, args in hostile:
                r = await call(name, args)
                t = text(r)
                check(r.is_error, f"{name} {args} is a tool error: {t}")
                check(t and "\n" not in t.strip(), f"{name} error is one line: {t!r}")
            check(not os.path.exists(os.path.join(MEMORY_DIR, "team", "aws-key.md")), "no secret in team")
            check(not os.path.exists(os.path.join(MEMORY_DIR, "team", "gh-token.md")), "no token in team")
            check(not os.path.exists(os.path.join(os.path.dirname(MEMORY_DIR), "escape.md")), "no traversal write")
            r = await call("write_memory", {"name": "team-ci", "type": "project", "scope": "team",
                                            "description": "CI runs on every push", "body": "CI runs on push."})
            check(not r.is_error, f"clean team write: {text(r)}")

            # Resources and the prompt.
            resources = (await session.list_resources()).resources
            uris = {str(res.uri) for res in resources}
            check("memdir:///use-pnpm.md" in uris, f"resources {sorted(uris)}")
            content = await session.read_resource("memdir:///use-pnpm.md")
            check("Use pnpm 9." in content.contents[0].text, "resource text")
            for bad in ["memdir:///../../etc/passwd", "memdir:///nothing.md", "file:///etc/passwd"]:
                try:
                    await session.read_resource(bad)
                    check(False, f"reading {bad} fails")
                except Exception as e:  # an MCP error answer
                    check("root:" not in str(e), f"{bad} leaks nothing")
            prompts = (await session.list_prompts()).prompts
            check([p.name for p in prompts] == ["memory"], f"prompts {prompts}")
            prompt = await session.get_prompt("memory")
            check("MEMORY.md" in prompt.messages[0].content.text, "the memory prompt")

            # Another process writes; the running server sees it.
            out = subprocess.run([MEMDIR, "--memory-dir", MEMORY_DIR, "add", "--type", "project",
                                  "--name", "from-cli", "--description", "added by another process",
                                  "--body", "written outside"], env=ENV, capture_output=True, text=True)
            check(out.returncode == 0, f"memdir add: {out.stderr}")
            r = await call("list_memories", {})
            check("from-cli.md" in text(r), f"list sees the other process's memory: {text(r)}")
            r = await call("read_memory", {"name": "from-cli"})
            check("written outside" in text(r), "read sees it")
            uris = {str(res.uri) for res in (await session.list_resources()).resources}
            check("memdir:///from-cli.md" in uris, "resources see it")

            r = await call("delete_memory", {"name": "from-cli"})
            check(not r.is_error and "deleted" in text(r), f"delete: {text(r)}")
            check(not os.path.exists(os.path.join(MEMORY_DIR, "from-cli.md")), "file removed")
            check("from-cli.md" not in open(os.path.join(MEMORY_DIR, "MEMORY.md")).read(), "index line removed")
    print("ok")


asyncio.run(main())
