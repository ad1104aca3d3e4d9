"""Writes the hand-made seed inputs of each fuzz target into fuzz/corpus/.

The fuzzers grow the corpora from these; `cargo xtask fuzz` minimises
them. Run from anywhere: python3 fuzz/seeds/make.py
"""
import hashlib
import json
import pathlib

FUZZ = pathlib.Path(__file__).resolve().parent.parent
ROOT = FUZZ.parent


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = FUZZ / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)


memories = sorted((ROOT / "fixtures").rglob("*.md"))
for p in memories:
    if p.name != "MEMORY.md":
        put("frontmatter", p.read_bytes()[:4096])
for p in sorted((ROOT / "fixtures" / "entrypoint").rglob("MEMORY.md")):
    put("index", p.read_bytes()[:8192])
put("index", "# Memory\n- [A](a.md) \u2014 hook\n- [B](notes/b.md)\n\0Title\0a.md\0hook")
put("frontmatter", "---\nname: x\ntype: [user]\n---\nbody")
put("frontmatter", "---\nname: \"quoted: yes\"\ndescription: |\n  multi\n  line\n---\n")
put("frontmatter", "\ufeff---\r\nname: crlf\r\ntype: feedback\r\n---\r\nBody\r\n")

for key in ["notes/a.md", "\u898f\u7d04/\u30c6\u30b9\u30c8.md", "cafe\u0301.md",
            "../../etc/passwd", "a/./b.md", "CON.md", "notes/\u202edm.exe",
            "-dash.md", "a\\b.md", "/abs.md", "x" * 300 + ".md", "\ud55c\uad6d\uc5b4.md"]:
    put("team_key", key.encode("utf-8", "surrogatepass"))

Q = "/api/claude_code/team_memory?repo=owner/name"
body = json.dumps({"entries": {"notes/a.md": "hello", "b.md": "world"}})
# An HTTP/1.1 request needs one Host header (RFC 9112 §3.2); without it the
# server answers 400 before any handler runs, as the first seed shows.
H = "Host: x\r\n"
put("teamserver_http", "GET /healthz HTTP/1.1\r\n\r\n")
put("teamserver_http", f"GET /healthz HTTP/1.1\r\n{H}\r\n")
put("teamserver_http", f"GET {Q} HTTP/1.1\r\n{H}Authorization: Bearer @TOKEN@\r\n\r\n"
    f"GET {Q}&view=hashes HTTP/1.1\r\n{H}Authorization: Bearer @TOKEN@\r\nConnection: close\r\n\r\n")
put("teamserver_http", f"PUT {Q} HTTP/1.1\r\n{H}Authorization: Bearer @TOKEN@\r\n"
    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}"
    f"GET {Q} HTTP/1.1\r\n{H}Authorization: Bearer @TOKEN@\r\n\r\n")
put("teamserver_http", f"PUT {Q} HTTP/1.1\r\n{H}Authorization: Bearer @TOKEN@\r\n"
    f"If-Match: \"sha256:00\"\r\nExpect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n{body}")
put("teamserver_http", f"PUT {Q} HTTP/1.1\r\n{H}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
put("teamserver_http", f"DELETE {Q} HTTP/1.0\r\nAuthorization: Bearer wrong\r\n\r\n")

answer = {"checksum": "sha256:ab", "content": {
    "entries": {"notes/a.md": "hello", "cafe\u0301.md": "nfd", "caf\u00e9.md": "nfc",
                "../x.md": "escape"},
    "entryChecksums": {"notes/a.md": "sha256:00"}}}
for status in range(6):
    put("teamsync_answer", bytes([status]) + json.dumps(answer, ensure_ascii=False).encode())
put("teamsync_answer", b"\x00{\"error\":{\"code\":\"x\"}}")
put("teamsync_answer", b"\x03" + b"<html>" + b"x" * 400)

put("secrets_config", (ROOT / "crates/secrets/rules/default.toml").read_bytes())
put("secrets_config", "[extend]\nuseDefault = true\ndisabledRules = [\"github-pat\"]\n"
    "[[rules]]\nid = \"mine\"\nregex = '''mine_[a-z]{8}'''\nkeywords = [\"mine_\"]\n"
    "[[rules.allowlists]]\nregexTarget = \"line\"\nregexes = ['''example''']\n")
put("secrets_config", "[[rules]]\nid = \"g\"\nregex = '''(a)(b)?'''\nsecretGroup = 2\n"
    "entropy = 0.5\n[allowlist]\nstopwords = [\"test\"]\npaths = ['''\\.md$''']\ncondition = \"AND\"\n")

put("secrets_scan", "GITHUB_TOKEN=ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS\n")
put("secrets_scan", "token: glpat-Xq3Tb7ZkP2vLw9RcY5nH glft-Xq3Tb7ZkP2vLw9RcY5nHglrt-Xq3Tb7ZkP2vLw9RcY5nH\n")

put("settings", json.dumps({"autoMemoryEnabled": False, "autoMemoryDirectory": "~/notes/../memory"}))
put("settings", json.dumps({"autoMemoryEnabled": "yes", "autoMemoryDirectory": "/home"}))
put("settings", json.dumps({"autoMemoryDirectory": "~root/x", "autoMemoryEnabled": 1}))
put("settings", json.dumps({"autoMemoryDirectory": "C:\\\\Users\\\\me\\\\mem"}))
put("settings", '{"autoMemoryDirectory": "/tmp/a//b/./c/"}')

for root in ["/home/a/my.proj", "/tmp/\u6570\u636e", "/tmp/\U0001f980", "/" + "d" * 260,
             "C:\\Users\\me\\proj", "", "-leading"]:
    put("slug", root)

put("git_config", '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://github.com/owner/name.git\n')
put("git_config", '[remote "origin"]\n\turl = git@github.com:o/r.git\n[remote "up"]\n\turl = ssh://git@github.com/a/b\n')
put("git_config", '[Remote "origin"]\nURL = "https://user:pw@www.github.com/o/../r/"\n')
