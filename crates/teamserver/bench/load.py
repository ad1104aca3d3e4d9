#!/usr/bin/env python3
"""Load measurements of the team server against its performance targets.

Starts the real `memdir serve` binary and a reference server (Python's
`http.server.ThreadingHTTPServer` + `sqlite3`, WAL, `synchronous=FULL`,
`TCP_NODELAY`; this same file, run as `load.py --reference-server PORT DB`),
both on 127.0.0.1 in a fresh temporary folder, drives them and prints
one line per target: the measured value, the target, and `met` or `NOT
met`. Targets 2 to 4 are driven by `load_client` (the teamserver crate's
example `examples/load_client.rs`: a hyper client on one thread, a task per
connection; the script builds it with cargo), the same client for both
servers; targets 1 and 5 by Python standard-library sockets.

Targets:
  1. 1,000 idle + 100 trickling connections open: one GET hashes < 50 ms.
  2. Single-client sequential PUTs, memdir / reference >= 2 (alternating
     time slices).
  3. 64 clients PUTting: p99 < 20 ms, max/min requests per connection < 3.
  4. 64 clients GET hashes: >= 10,000 requests/s.
  5. A one-entry push into a 1,000-entry repository (304 on GET hashes with
     If-None-Match, PUT with Prefer: return=minimal) moves <= 3x the
     entry's bytes, counted on the socket in both directions.

Every process it starts is stopped at the end, also on Ctrl-C, SIGTERM or
an exception (and, on Linux, the children get SIGTERM should this script
die without cleaning up). Python 3.11 standard library, and cargo to build
the load client.

    python3 crates/teamserver/bench/load.py            # about 2 minutes
    python3 crates/teamserver/bench/load.py --quick    # under a minute
    python3 crates/teamserver/bench/load.py --memdir target/debug/memdir
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import math
import os
import platform
import resource
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

TEAM_MEMORY_PATH = "/api/claude_code/team_memory"
HEALTH_PATH = "/healthz"
WORKSPACE = Path(__file__).resolve().parents[3]
ENTRY_BYTES = 1346  # the entry of target 5


# --------------------------------------------------------------------------
# The reference server (runs in a child process)
# --------------------------------------------------------------------------


class ReferenceServer(ThreadingHTTPServer):
    """A thread per connection, TCP_NODELAY on every accepted socket."""

    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(self, address, db_path: str):
        super().__init__(address, ReferenceHandler)
        self.db_path = db_path
        self.local = threading.local()

    def get_request(self):
        sock, addr = super().get_request()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, addr

    def db(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA synchronous=FULL")
            self.local.conn = conn
        return conn


class ReferenceHandler(BaseHTTPRequestHandler):
    """The same PUT upsert as memdir (key -> text per repository), answering
    `{"ok":true}`; GET answers the keys' checksums. No request log."""

    protocol_version = "HTTP/1.1"
    server: ReferenceServer

    def log_message(self, format, *args):  # noqa: A002 - the base's name
        pass

    def answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def target(self) -> tuple[str, str | None]:
        parts = urlsplit(self.path)
        repo = parse_qs(parts.query).get("repo", [None])[0]
        return parts.path, repo

    def do_GET(self):
        path, repo = self.target()
        if path == HEALTH_PATH:
            return self.answer(200, {"ok": True})
        if path != TEAM_MEMORY_PATH or not repo:
            return self.answer(404, {"error": "not_found"})
        if not self.headers.get("Authorization", "").startswith("Bearer "):
            return self.answer(401, {"error": "unauthorized"})
        rows = self.server.db().execute(
            "SELECT key, sha FROM entries WHERE repo = ?", (repo,)
        ).fetchall()
        if not rows:
            return self.answer(404, {"error": "not_found"})
        self.answer(200, {"content": {"entryChecksums": dict(rows)}})

    def do_PUT(self):
        path, repo = self.target()
        if path != TEAM_MEMORY_PATH or not repo:
            return self.answer(404, {"error": "not_found"})
        if not self.headers.get("Authorization", "").startswith("Bearer "):
            return self.answer(401, {"error": "unauthorized"})
        length = int(self.headers.get("Content-Length", "0"))
        try:
            entries = json.loads(self.rfile.read(length))["entries"]
        except (ValueError, KeyError, TypeError):
            return self.answer(400, {"error": "invalid_json"})
        rows = [
            (repo, k, v, "sha256:" + hashlib.sha256(v.encode()).hexdigest())
            for k, v in entries.items()
        ]
        db = self.server.db()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO entries (repo, key, text, sha) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (repo, key) DO UPDATE SET text = excluded.text, sha = excluded.sha",
                rows,
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.answer(200, {"ok": True})


def run_reference_server(port: int, db_path: str) -> None:
    """The child process: create the schema, serve until SIGTERM."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    setup = sqlite3.connect(db_path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute(
        "CREATE TABLE IF NOT EXISTS entries (repo TEXT NOT NULL, key TEXT NOT NULL, "
        "text TEXT NOT NULL, sha TEXT NOT NULL, PRIMARY KEY (repo, key))"
    )
    setup.commit()
    setup.close()
    server = ReferenceServer(("127.0.0.1", port), db_path)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


# --------------------------------------------------------------------------
# Processes: start, wait for, stop
# --------------------------------------------------------------------------


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when this script dies (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Processes:
    """Every child process started, so that all of them are stopped."""

    def __init__(self) -> None:
        self.children: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, argv: list[str], log: Path) -> subprocess.Popen:
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches us, and we stop them
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )
        self.children.append((name, proc))
        return proc

    def stop_all(self) -> None:
        for name, proc in self.children:
            if proc.poll() is None:
                proc.terminate()
        for name, proc in self.children:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            print(f"stopped {name} (pid {proc.pid}, exit {proc.returncode})")
        self.children.clear()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, proc: subprocess.Popen, log: Path, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}); see {log}:\n{log.read_text()[-2000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", HEALTH_PATH)
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server on port {port} not healthy after {timeout} s; see {log}")


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (0 where unknown)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def self_cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


@dataclass
class Server:
    """A server under test, as the clients see it."""

    name: str
    port: int
    token: str
    pid: int
    checksums: bool  # whether answers carry `checksum` (If-Match chaining)


# --------------------------------------------------------------------------
# Clients
# --------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection to one repository, chaining
    If-Match from the checksum of the last answer."""

    def __init__(self, server: Server, repo: str, timeout: float = 30):
        self.server = server
        self.repo = repo
        self.timeout = timeout
        self.checksum: str | None = None
        self.conn: http.client.HTTPConnection | None = None

    def connect(self) -> http.client.HTTPConnection:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=self.timeout)
            self.conn.connect()
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.conn

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method: str, target: str, body: bytes | None, headers: dict) -> tuple[int, bytes]:
        conn = self.connect()
        headers = {"Authorization": f"Bearer {self.server.token}", **headers}
        try:
            conn.request(method, target, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if resp.will_close:
            self.close()
        return resp.status, data

    def put(self, entries: dict[str, str], minimal: bool = True) -> int:
        headers = {"Content-Type": "application/json"}
        if self.checksum is not None and self.server.checksums:
            headers["If-Match"] = self.checksum
        if minimal:
            headers["Prefer"] = "return=minimal"
        body = json.dumps({"entries": entries}).encode()
        status, data = self.request("PUT", f"{TEAM_MEMORY_PATH}?repo={self.repo}", body, headers)
        if status in (200, 412, 428) and self.server.checksums:
            self.checksum = json.loads(data).get("checksum")
        return status

    def get_hashes(self) -> int:
        status, _ = self.request("GET", f"{TEAM_MEMORY_PATH}?repo={self.repo}&view=hashes", None, {})
        return status


def entry_text(n: int, size: int = 200) -> str:
    """An ASCII text of `size` bytes that differs for every `n`."""
    head = f"---\nname: entry {n}\n---\n"
    return (head + "x" * size)[:size]


def populate(server: Server, repo: str, count: int, size: int, batch: int = 100) -> Client:
    client = Client(server, repo)
    for start in range(0, count, batch):
        entries = {f"notes/k{i:04}.md": entry_text(i, size) for i in range(start, min(count, start + batch))}
        status = client.put(entries, minimal=False)
        if status != 200:
            raise RuntimeError(f"{server.name}: populating {repo} answered {status}")
    return client


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass
class Result:
    number: int
    name: str
    measured: str
    target: str
    met: bool
    notes: list[str] = field(default_factory=list)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return math.inf
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def client_bottleneck_note(client_cpu: float, wall: float) -> str | None:
    share = client_cpu / wall if wall else 0
    if share >= 0.85:
        return (
            f"the load client used {share:.0%} of a core, on a machine it shares with the server: "
            "the client may limit what is measured"
        )
    return None


# --------------------------------------------------------------------------
# Target 1: idle and trickling connections
# --------------------------------------------------------------------------


def raise_fd_limit(wanted: int) -> int:
    """Raises the soft open-file limit as far as allowed (children inherit
    it); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def open_nonblocking(port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
    return socks


def established(socks: list[socket.socket]) -> int:
    poller = select.poll()
    by_fd = {}
    for s in socks:
        poller.register(s, select.POLLOUT)
        by_fd[s.fileno()] = s
    ready = poller.poll(0)
    return sum(
        1
        for fd, ev in ready
        if ev & select.POLLOUT and by_fd[fd].getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    )


def timed_get_hashes(server: Server, repo: str, timeout: float) -> float:
    """Connect, GET hashes, read the answer: seconds (inf on timeout)."""
    t0 = time.perf_counter()
    client = Client(server, repo, timeout=timeout)
    try:
        status = client.get_hashes()
        if status != 200:
            raise RuntimeError(f"{server.name}: GET hashes answered {status}")
    except (TimeoutError, socket.timeout):
        return math.inf
    finally:
        client.close()
    return time.perf_counter() - t0


def measure_slow_clients(server: Server, idle: int, trickle: int, settle: float, timeout: float) -> tuple[float, int, int]:
    """Opens `idle` silent and `trickle` one-byte-a-second connections,
    waits `settle` seconds, times one GET hashes; returns (seconds,
    established connections, total opened)."""
    head = (
        f"GET {TEAM_MEMORY_PATH}?repo=o/hashes&view=hashes HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{server.port}\r\nX-Filler: " + "a" * 4000
    ).encode()
    idle_socks = open_nonblocking(server.port, idle)
    trickle_socks = open_nonblocking(server.port, trickle)
    stop = threading.Event()

    def trickler() -> None:
        i = 0
        while not stop.is_set():
            for s in trickle_socks:
                try:
                    s.send(head[i % len(head) : i % len(head) + 1])
                except OSError:
                    pass
            i += 1
            stop.wait(1.0)

    thread = threading.Thread(target=trickler, daemon=True)
    thread.start()
    try:
        time.sleep(settle)
        up = established(idle_socks + trickle_socks)
        took = timed_get_hashes(server, "o/hashes", timeout)
    finally:
        stop.set()
        thread.join()
        for s in idle_socks + trickle_socks:
            s.close()
    return took, up, idle + trickle


def target_slow_clients(memdir: Server, ref: Server, quick: bool) -> Result:
    wanted_idle, wanted_trickle = 1000, 100
    limit = raise_fd_limit(4096)
    spare = 64
    room = max(0, limit - spare)
    idle = min(wanted_idle, room - min(wanted_trickle, room))
    trickle = min(wanted_trickle, room)
    timeout = 5.0 if quick else 20.0
    notes = []
    if (idle, trickle) != (wanted_idle, wanted_trickle):
        notes.append(f"open-file limit {limit}: used {idle} idle and {trickle} trickling connections, not 1000 + 100")
    took, up, opened = measure_slow_clients(memdir, idle, trickle, settle=2.0, timeout=timeout)
    time.sleep(1.0)  # let the server see the closes
    ref_took, ref_up, _ = measure_slow_clients(ref, idle, trickle, settle=2.0, timeout=timeout)
    notes.append(f"memdir had accepted the handshake of {up}/{opened} connections; the reference {ref_up}/{opened}")
    notes.append(f"reference under the same load: {fmt_ms(ref_took, timeout)}")
    return Result(
        1,
        f"GET hashes beside {idle} idle + {trickle} trickling conns",
        fmt_ms(took, timeout),
        "< 50 ms",
        took < 0.050,
        notes,
    )


def fmt_ms(seconds: float, timeout: float) -> str:
    return f"> {timeout:.0f} s (gave up)" if math.isinf(seconds) else f"{seconds * 1000:.1f} ms"


# --------------------------------------------------------------------------
# Target 2: single-client PUT throughput, alternating slices
# --------------------------------------------------------------------------


def commit_floor(folder: Path, seconds: float) -> float:
    """Seconds per fsync'd commit on this disk: SQLite (WAL,
    synchronous=FULL) upserting a 200-byte entry over 16 keys, one commit
    at a time, in the folder the servers' databases are in. No server can
    acknowledge sequential durable PUTs faster than this."""
    path = folder / "floor.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE e (k TEXT PRIMARY KEY, v TEXT)")
        n, start = 0, time.monotonic()
        while time.monotonic() - start < seconds:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO e VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                (f"k{n % 16}", entry_text(n)),
            )
            conn.execute("COMMIT")
            n += 1
        return (time.monotonic() - start) / max(n, 1)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


def target_single_put(memdir: Server, ref: Server, quick: bool, folder: Path) -> Result:
    slices, seconds = (2, 2.0) if quick else (4, 3.0)
    runs: dict[str, list[LoadRun]] = {memdir.name: [], ref.name: []}
    checksums: dict[str, list[str | None]] = {memdir.name: [None], ref.name: [None]}
    for k in range(slices):
        for s in (memdir, ref):
            run = run_load(s, "put", ["o/single"], seconds, first=k * 10**8, checksums=checksums[s.name], start_in=0.3)
            if run.errors:
                raise RuntimeError(f"{s.name}: {run.errors} single-client PUTs failed")
            checksums[s.name] = run.checksums
            runs[s.name].append(run)
    done = {name: [r.completed for r in rs] for name, rs in runs.items()}
    rate_m = sum(done[memdir.name]) / (slices * seconds)
    rate_r = sum(done[ref.name]) / (slices * seconds)
    spread = "; ".join(
        f"{name} {min(c) / seconds:.0f}..{max(c) / seconds:.0f} PUT/s per slice" for name, c in done.items()
    )
    ratio = rate_m / rate_r if rate_r else math.inf
    floor = commit_floor(folder, 1.0)
    client = sum(r.client_cpu for r in runs[memdir.name]) / max(sum(done[memdir.name]), 1)
    notes = [
        "keep-alive, sequential, If-Match chained (memdir), Prefer: return=minimal, 200-byte entries over 16 keys",
        spread,
        f"this disk's fsync'd SQLite commit alone takes {floor * 1e6:.0f} us ({1 / floor:.0f}/s); "
        f"the client's own CPU per PUT is {client * 1e6:.0f} us",
    ]
    if rate_r:
        budget = 1 / rate_r / 2
        rest = budget - floor - client
        notes.append(
            f"2x the reference means answering a PUT in {budget * 1e6:.0f} us: after one commit and the client's "
            f"CPU that leaves {rest * 1e6:.0f} us for the loopback round trip and all of the server's work"
            + (" (none: no server that commits each PUT can reach 2x here)" if rest <= 0 else "")
        )
    return Result(
        2,
        f"single-client PUT/s, memdir/reference ({slices} x {seconds:.0f} s each)",
        f"{ratio:.2f}x ({rate_m:.0f} vs {rate_r:.0f} PUT/s)",
        ">= 2x",
        ratio >= 2,
        notes,
    )


# --------------------------------------------------------------------------
# Targets 3 and 4: 64 clients
# --------------------------------------------------------------------------


@dataclass
class LoadRun:
    latencies: list[float]  # seconds, every request started in the window
    per_connection: list[int]  # requests completed inside the window
    errors: int
    wall: float
    client_cpu: float  # seconds, the load client's whole run
    server_cpu: float  # seconds, over the window
    checksums: list[str | None]  # each connection's last checksum

    @property
    def completed(self) -> int:
        return sum(self.per_connection)


LOAD_CLIENT: Path | None = None  # set by main()


def find_load_client(explicit: str | None) -> Path:
    """The load client binary: `explicit`, or the workspace's release build
    of the example, built (or brought up to date) with cargo."""
    if explicit:
        path = Path(explicit).resolve()
    else:
        path = WORKSPACE / "target" / "release" / "examples" / "load_client"
        argv = ["cargo", "build", "--release", "--quiet", "-p", "memdir-teamserver", "--example", "load_client"]
        try:
            subprocess.run(argv, cwd=WORKSPACE, check=True, timeout=1800)
        except (OSError, subprocess.SubprocessError) as e:
            if not path.exists():
                raise SystemExit(f"could not build the load client ({' '.join(argv)}): {e}") from e
            print(f"  WARNING: could not rebuild the load client ({e}); using {path} as it is")
    if not path.exists():
        raise SystemExit(f"no load client at {path}")
    return path


def run_load(
    server: Server,
    mode: str,
    repos: list[str],
    seconds: float,
    first: int = 0,
    checksums: list[str | None] | None = None,
    start_in: float | None = None,
) -> LoadRun:
    """One run of the load client: a keep-alive connection per entry of
    `repos`, each doing `mode` (`put` or `hashes`) one request at a time for
    `seconds`, after `start_in` seconds to connect."""
    assert LOAD_CLIENT is not None
    start_in = 0.5 + 0.01 * len(repos) if start_in is None else start_in
    plan = {
        "port": server.port,
        "token": server.token,
        "mode": mode,
        "repos": repos,
        "seconds": seconds,
        "if_match": server.checksums,
        "checksums": checksums or [],
        "start_in": start_in,
        "first": first,
    }
    t0 = time.monotonic()
    proc = subprocess.Popen([LOAD_CLIENT, json.dumps(plan)], stdout=subprocess.PIPE)
    try:
        # The server's CPU over the window only: sampled as it opens and closes.
        time.sleep(max(0.0, t0 + start_in - time.monotonic()))
        srv0 = process_cpu_seconds(server.pid)
        time.sleep(max(0.0, t0 + start_in + seconds - time.monotonic()))
        srv1 = process_cpu_seconds(server.pid)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if status != 0 or not out:
        raise RuntimeError(f"the load client failed against {server.name} (status {status})")
    report = json.loads(out)
    return LoadRun(
        latencies=[us / 1e6 for us in report["latencies_us"]],
        per_connection=report["counts"],
        errors=report["errors"],
        wall=seconds,
        client_cpu=usage.ru_utime + usage.ru_stime,
        server_cpu=srv1 - srv0,
        checksums=report["checksums"],
    )


def describe(run: LoadRun, seconds: float) -> str:
    lo, hi = min(run.per_connection), max(run.per_connection)
    return (
        f"{run.completed / seconds:.0f} req/s, p50 {percentile(run.latencies, 50) * 1000:.1f} ms, "
        f"p99 {percentile(run.latencies, 99) * 1000:.1f} ms, max {max(run.latencies, default=0) * 1000:.0f} ms, per conn {lo}..{hi}, errors {run.errors}, "
        f"client CPU {run.client_cpu / seconds:.0%}, server CPU {run.server_cpu / seconds:.0%}"
    )


def target_concurrent_put(memdir: Server, ref: Server, quick: bool) -> Result:
    seconds = 3.0 if quick else 5.0
    runs = {s.name: run_load(s, "put", [f"o/c{i:02}" for i in range(64)], seconds) for s in (memdir, ref)}
    m = runs[memdir.name]
    p99 = percentile(m.latencies, 99)
    lo, hi = min(m.per_connection), max(m.per_connection)
    spread = hi / lo if lo else math.inf
    notes = [
        "each client its own repository (no 412s), Prefer: return=minimal",
        f"memdir:    {describe(m, seconds)}",
        f"reference: {describe(runs[ref.name], seconds)}",
    ]
    if (hint := client_bottleneck_note(m.client_cpu, seconds)) is not None:
        notes.append(hint)
    return Result(
        3,
        f"64 clients PUT for {seconds:.0f} s: p99, max/min per conn",
        f"p99 {p99 * 1000:.1f} ms, max/min {hi}/{lo} = {spread:.1f}",
        "p99 < 20 ms, max/min < 3",
        p99 < 0.020 and spread < 3,
        notes,
    )


def target_concurrent_hashes(memdir: Server, ref: Server, quick: bool) -> Result:
    seconds = 3.0 if quick else 5.0
    runs = {s.name: run_load(s, "hashes", ["o/hashes"] * 64, seconds) for s in (memdir, ref)}
    m = runs[memdir.name]
    rate = m.completed / seconds
    notes = [
        "one 16-entry repository, no If-None-Match (full hashes answers)",
        f"memdir:    {describe(m, seconds)}",
        f"reference: {describe(runs[ref.name], seconds)}",
    ]
    if (hint := client_bottleneck_note(m.client_cpu, seconds)) is not None:
        notes.append(hint)
    return Result(4, "64 clients GET hashes", f"{rate:.0f} req/s", ">= 10,000 req/s", rate >= 10_000, notes)


# --------------------------------------------------------------------------
# Target 5: bytes of a one-entry push
# --------------------------------------------------------------------------


class CountingSocket:
    """A raw HTTP/1.1 client on one socket that counts every byte."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sent = 0
        self.received = 0
        self.buffer = b""

    def exchange(self, request: bytes) -> tuple[int, dict[str, str], bytes]:
        self.sock.sendall(request)
        self.sent += len(request)
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            self.buffer += self._recv()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, headers, body

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("connection closed mid-answer")
        self.received += len(data)
        return data

    def close(self) -> None:
        self.sock.close()


def target_push_bytes(memdir: Server) -> Result:
    repo = "o/big"
    checksum = populate(memdir, repo, 1000, ENTRY_BYTES).checksum
    text = entry_text(10_000, ENTRY_BYTES)
    assert len(text.encode()) == ENTRY_BYTES
    auth = f"Authorization: Bearer {memdir.token}\r\n"
    host = f"Host: 127.0.0.1:{memdir.port}\r\n"
    body = json.dumps({"entries": {"notes/k0500.md": text}}, separators=(",", ":")).encode()
    get = (
        f"GET {TEAM_MEMORY_PATH}?repo={repo}&view=hashes HTTP/1.1\r\n{host}{auth}"
        f'If-None-Match: "{checksum}"\r\n\r\n'
    ).encode()
    put = (
        f"PUT {TEAM_MEMORY_PATH}?repo={repo} HTTP/1.1\r\n{host}{auth}"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        f"If-Match: {checksum}\r\nPrefer: return=minimal\r\n\r\n"
    ).encode() + body
    raw = CountingSocket(memdir.port)
    try:
        get_status, _, _ = raw.exchange(get)
        after_get = raw.sent + raw.received
        put_status, put_headers, _ = raw.exchange(put)
    finally:
        raw.close()
    total = raw.sent + raw.received
    budget = 3 * ENTRY_BYTES
    notes = [
        f"GET {get_status} ({after_get} bytes), PUT {put_status} ({total - after_get} bytes); "
        f"sent {raw.sent}, received {raw.received}; TCP payload only (headers count, TCP/IP headers do not)",
    ]
    if put_headers.get("preference-applied", "").lower() != "return=minimal":
        notes.append("the PUT answer did not say Preference-Applied: return=minimal")
    ok = get_status == 304 and put_status == 200 and total <= budget
    return Result(
        5,
        f"one-entry push into a 1,000-entry repository ({ENTRY_BYTES}-byte entry)",
        f"{total} bytes = {total / ENTRY_BYTES:.2f}x",
        f"<= 3x ({budget} bytes)",
        ok,
        notes,
    )


# --------------------------------------------------------------------------
# Setup and main
# --------------------------------------------------------------------------


def filesystem_of(path: Path) -> str:
    """The type of the file system holding `path`, from /proc/mounts."""
    best, kind = "", "unknown"
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            _, point, fstype, *_ = line.split()
            if str(path).startswith(point) and len(point) > len(best):
                best, kind = point, fstype
    except OSError:
        pass
    return kind


def find_memdir(explicit: str | None) -> tuple[Path, str]:
    if explicit:
        path = Path(explicit).resolve()
        build = "release" if "release" in path.parts else "debug" if "debug" in path.parts else "unknown"
    else:
        release = WORKSPACE / "target" / "release" / "memdir"
        path, build = (release, "release") if release.exists() else (WORKSPACE / "target" / "debug" / "memdir", "debug")
    if not path.exists():
        raise SystemExit(f"no memdir binary at {path}; build it: cargo build --release -p memory-cli")
    return path, build


def version_of(binary: Path) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    return out.stdout.strip() or out.stderr.strip()


def start_servers(procs: Processes, memdir: Path, tmp: Path) -> tuple[Server, Server]:
    db = tmp / "team.db"
    made = subprocess.run(
        [memdir, "serve", "--db", db, "--create-token", "acme"], capture_output=True, text=True, timeout=30
    )
    if made.returncode != 0:
        raise RuntimeError(f"memdir serve --create-token failed: {made.stderr}")
    token = made.stdout.strip()
    m_port, r_port = free_port(), free_port()
    m_log, r_log = tmp / "memdir.log", tmp / "reference.log"
    m_proc = procs.start("memdir serve", [str(memdir), "serve", "--db", str(db), "--bind", f"127.0.0.1:{m_port}"], m_log)
    r_db = tmp / "reference.db"
    r_proc = procs.start(
        "reference server", [sys.executable, str(Path(__file__).resolve()), "--reference-server", str(r_port), str(r_db)], r_log
    )
    wait_healthy(m_port, m_proc, m_log)
    wait_healthy(r_port, r_proc, r_log)
    print(f"  memdir serve     pid {m_proc.pid}, http://127.0.0.1:{m_port}, db {db}, log {m_log}")
    print(f"  reference server pid {r_proc.pid}, http://127.0.0.1:{r_port}, db {r_db}, log {r_log}")
    return (
        Server("memdir", m_port, token, m_proc.pid, checksums=True),
        Server("reference", r_port, "reference", r_proc.pid, checksums=False),
    )


def print_table(results: list[Result]) -> None:
    print()
    print(f"{'#':<2} {'target':<62} {'measured':<38} {'goal':<26} result")
    for r in sorted(results, key=lambda r: r.number):
        print(f"{r.number:<2} {r.name:<62} {r.measured:<38} {r.target:<26} {'met' if r.met else 'NOT met'}")
        for note in r.notes:
            print(f"   - {note}")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--reference-server"]:
        run_reference_server(int(argv[1]), argv[2])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memdir", help="the memdir binary (default: target/release/memdir, else target/debug/memdir)")
    parser.add_argument("--quick", action="store_true", help="shorter slices and windows (under a minute)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (databases, logs)")
    parser.add_argument("--load-client", help="the load client binary (default: build the example with cargo)")
    args = parser.parse_args(argv)

    # SIGTERM unwinds like Ctrl-C, through the `finally` that stops children.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignoring it
    memdir, build = find_memdir(args.memdir)
    global LOAD_CLIENT
    LOAD_CLIENT = find_load_client(args.load_client)
    fd_limit = raise_fd_limit(4096)  # before any child starts: they inherit it
    tmp = Path(tempfile.mkdtemp(prefix="memdir-load-"))
    print("memdir team server load test", "(quick)" if args.quick else "")
    print(f"  binary           {memdir} ({build} build; {version_of(memdir)})")
    if build != "release":
        print("  WARNING: not a release build: the numbers are not a fair measurement")
    print(f"  load client      {LOAD_CLIENT}")
    print(f"  python           {platform.python_version()}, sqlite3 {sqlite3.sqlite_version} (reference)")
    print(f"  machine          {platform.platform()}, {os.cpu_count()} cores, open-file limit {fd_limit}")
    print(f"  temporary folder {tmp} ({filesystem_of(tmp)}; both databases live here)")
    procs = Processes()
    results: list[Result] = []
    t0 = time.monotonic()
    try:
        m, r = start_servers(procs, memdir, tmp)
        populate(m, "o/hashes", 16, 200)
        populate(r, "o/hashes", 16, 200)
        steps = [
            (2, lambda: target_single_put(m, r, args.quick, tmp)),
            (3, lambda: target_concurrent_put(m, r, args.quick)),
            (4, lambda: target_concurrent_hashes(m, r, args.quick)),
            (5, lambda: target_push_bytes(m)),
            (1, lambda: target_slow_clients(m, r, args.quick)),  # last: it ties up the workers
        ]
        for number, step in steps:
            print(f"target {number} ...", flush=True)
            results.append(step())
            time.sleep(0.5)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        procs.stop_all()
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        if results:
            print_table(results)
        print(f"took {time.monotonic() - t0:.0f} s")
    return 0 if all(r.met for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
