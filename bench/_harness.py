"""Shared pieces of the benchmarks: a temp data folder, the stub LLM and a Daphne server as
subprocesses, a user with a logged-in session and instances made by the app's own services, and
a small WebSocket client. Everything listens on 127.0.0.1 and every subprocess is killed on exit.

Also a command line, used by the benchmarks as subprocesses (so Django and the stub never share
the measuring process):

    python bench/_harness.py setup --instances N    (PERSONALAB_DATA_DIR set; prints JSON)
    python bench/_harness.py stub --port P --tokens N --delay S [--stamp]
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests import cluster  # noqa: E402

PYTHON = sys.executable
BENCH_SECRET_KEY = "bench-secret-key-not-for-production-0123456789abcdefghijklmnop"
USERNAME = "bench"
STAMP_SEPARATOR = "@"

_children: list[subprocess.Popen] = []


# --- processes -----------------------------------------------------------------


def children_kill() -> None:
    """Stop every subprocess this module started (by its pid, never by name)."""
    while _children:
        child = _children.pop()
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(timeout=5)


atexit.register(children_kill)


def _signal_exit(signum: int, frame: object) -> None:
    children_kill()
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, _signal_exit)


def port_free() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_wait(port: int, process: subprocess.Popen, *, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process {process.args!r} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout:g}s")


def child_start(args: list[str], env: dict[str, str], *, log: Path | None = None) -> subprocess.Popen:
    output = log.open("ab") if log else subprocess.DEVNULL
    child = subprocess.Popen(args, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT)
    _children.append(child)
    return child


def base_env(data_dir: Path, **extra: str) -> dict[str, str]:
    return cluster.worker_env(data_dir, **{"SECRET_KEY": BENCH_SECRET_KEY, **extra})


@dataclass
class Stub:
    process: subprocess.Popen
    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def stub_start(*, tokens: int, delay: float, stamp: bool = False, data_dir: Path) -> Stub:
    port = port_free()
    args = [PYTHON, str(REPO / "bench" / "_harness.py"), "stub", "--port", str(port),
            "--tokens", str(tokens), "--delay", str(delay)] + (["--stamp"] if stamp else [])
    process = child_start(args, base_env(data_dir), log=data_dir / "stub.log")
    port_wait(port, process)
    return Stub(process, port)


@dataclass
class Server:
    process: subprocess.Popen
    port: int

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, instance_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/chat/{instance_id}/"

    def rss_mb(self) -> float:
        return process_rss_mb(self.process.pid)


def server_start(data_dir: Path, stub: Stub, *, profile: Path | None = None,
                 services: dict[str, str] | None = None, wait: bool = True) -> Server:
    """Daphne serving the app, its LLM pointed at the stub; with `profile`, under cProfile
    (main thread only: the event loop), written when server_stop_profiled() interrupts it.
    `services`: REDIS_URL / DATABASE_URL of a scaled-out set (several workers, one folder)."""
    port = port_free()
    env = base_env(data_dir, OPENAI_BASE_URL=stub.base_url, OPENAI_API_KEY="bench-key",
                   PERSONALAB_MODEL="stub-model", PERSONALAB_LLM_TIMEOUT="60", **(services or {}))
    args = [str(Path(PYTHON).parent / "daphne"), "-b", "127.0.0.1", "-p", str(port),
            "personalab.asgi:application"]
    if profile:
        args = [PYTHON, "-m", "cProfile", "-o", str(profile), *args]
    process = child_start(args, env, log=data_dir / f"daphne-{port}.log")
    if wait:
        # The server builds its embedding engines once it listens (PERSONALAB_EMBED_PRELOAD,
        # personalab/server_start.py): 3 s of CPU beside the first requests.
        port_wait(port, process, timeout=240.0)
    return Server(process, port)


@contextlib.contextmanager
def services_start(data_dir: Path) -> Iterator[dict[str, str]]:
    """redis-server and a throwaway PostgreSQL cluster for several workers; yields the
    environment entries that point a worker at them."""
    from tests.redis_server import RedisServer

    reason = cluster.missing_reason()
    if reason:
        raise SystemExit(f"--workers needs Redis and PostgreSQL: {reason}")
    redis, postgres = RedisServer(data_dir.parent), cluster.PostgresServer()
    try:
        redis.start()
        postgres.start()
        yield {"REDIS_URL": redis.url, "DATABASE_URL": postgres.url}
    finally:
        children_kill()  # the workers first: they hold connections to both
        redis.stop()
        postgres.remove()


def server_stop_profiled(server: Server) -> None:
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class RssSampler:
    """Peak resident memory of one process, sampled on a thread."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError, ValueError):
                self.peak_mb = max(self.peak_mb, process_rss_mb(self.pid))
            self._stop.wait(self.interval)


# --- data folder and app setup -------------------------------------------------------


@contextlib.contextmanager
def data_dir_temp(*, keep: bool = False) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="personalab-bench-"))
    data = root / "data"
    data.mkdir()
    try:
        yield data
    finally:
        children_kill()
        memory_jobs_drain()
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


def memory_jobs_drain() -> None:
    """Wait for the memory jobs that a bench's in-process turns queued (the index sync after
    each turn, memory.runtime). Removing the data folder under a running sync ended each run
    with "memory index … is behind the files: attempt to write a readonly database" (SQLite's
    answer when its file is deleted under it). Only when the bench imported the app."""
    runtime = sys.modules.get("memory.runtime")
    if runtime is not None:
        runtime.drain()


@dataclass
class AppSetup:
    session_key: str
    instance_ids: list[str] = field(default_factory=list)


def app_setup(data_dir: Path, *, instances: int, memory_indexing: bool = False,
              env: dict[str, str] | None = None) -> AppSetup:
    """migrate, then (in a subprocess with the same data folder) a user, a logged-in session,
    a character, a background and `instances` instances, all through the app's own code."""
    payload = cluster.app_setup(env or base_env(data_dir), instances=instances,
                                memory_indexing=memory_indexing)
    return AppSetup(session_key=payload["session_key"], instance_ids=payload["instance_ids"])


@contextlib.contextmanager
def app_served(data_dir: Path, *, instances: int, memory_indexing: bool = False
               ) -> Iterator[tuple[AppSetup, Server, Any]]:
    """The app set up in `data_dir` (app_setup) and served by Daphne, its LLM a StubLLM in this
    process (a bench scripts its replies and reads its requests); both stopped after."""
    # tests.stub_llm imports pytest: only the benches that serve the app load it
    from tests.stub_llm import StubLLM

    setup = app_setup(data_dir, instances=instances, memory_indexing=memory_indexing)
    stub = StubLLM()
    try:
        yield setup, server_start(data_dir, stub), stub
    finally:
        children_kill()
        stub.stop()


def _setup_main(args: argparse.Namespace) -> None:
    import django

    django.setup()
    # The app's modules (models among them) import only once Django is set up, above.
    from django.contrib.auth import get_user_model
    from django.test import Client

    from chat.models import ApiToken
    from chat.services.instances import instance_create
    from library.background_services import background_save
    from library.character_services import character_save
    from personalab.storage import get_store

    store = get_store()
    # Indexing finished turns embeds them on a background thread of the server; the stream
    # benchmarks leave it off unless asked, so they measure the streaming path alone.
    store.module_write("memory", {"recall_enabled": bool(args.memory_indexing)})
    user = get_user_model().objects.create_user(USERNAME, password="bench-password-123")
    character = character_save(store, data={"name": "Alserqi", "base_persona": "废土黑帮老大。",
                                            "greeting": "", "tags": "废土"}, character_id=None)
    background = background_save(store, data={
        "name": "废土复仇记", "world_setting": "2087年，核战后50年。",
        "story_outline": ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙"]})
    ids = [instance_create(store, owner=user, character_id=character, background_id=background)
           for _ in range(args.instances)]
    client = Client()
    client.force_login(user)
    print(json.dumps({"session_key": client.cookies["sessionid"].value, "instance_ids": ids,
                      "api_token": ApiToken.issue(user)}))


# --- the stub LLM ------------------------------------------------------------------------


def _stub_main(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(REPO))
    import tests.stub_llm as stub_module
    from tests.stub_llm import Reply, StubLLM

    class StampedReply(Reply):
        """Pieces `index@monotonic_ns ` made at the moment they are sent (the stub sleeps
        here, not in the server loop, so the stamp is taken right before the write)."""

        def pieces(self) -> Iterator[str]:  # type: ignore[override]
            for index in range(args.tokens):
                if args.delay:
                    time.sleep(args.delay)
                yield f"{index}{STAMP_SEPARATOR}{time.monotonic_ns()} "

    if args.stamp:
        reply: Reply = StampedReply("", delay=0.0)
    else:
        reply = Reply("tok " * args.tokens, chunk_size=4, delay=args.delay)
    stub_module._Server.request_queue_size = 1024  # 200 streams connect at once
    stub = StubLLM(port=args.port, default=reply)
    print(f"stub at {stub.base_url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    stub.stop()


def stamps_parse(text: str) -> list[tuple[int, int]]:
    """(index, send time ns) of every stamped piece in a reply text."""
    out = []
    for piece in text.split():
        index, _, sent = piece.partition(STAMP_SEPARATOR)
        if index.isdigit() and sent.isdigit():
            out.append((int(index), int(sent)))
    return out


# --- WebSocket client --------------------------------------------------------------------


@dataclass
class StreamResult:
    text: str
    sent_at: float  # time.perf_counter() when "send" went out
    first_token_at: float | None
    done_at: float | None
    tokens: list[tuple[str, int]]  # (content, receive time monotonic_ns)
    done: dict[str, Any] | None
    errors: list[dict[str, Any]]


@contextlib.asynccontextmanager
async def ws_connect(server: Server, session_key: str, instance_id: str) -> AsyncIterator[Any]:
    from websockets.asyncio.client import connect

    async with connect(server.ws_url(instance_id), origin=server.origin,
                       additional_headers={"Cookie": f"sessionid={session_key}"},
                       max_size=None, open_timeout=60, ping_interval=None) as ws:
        yield ws


async def ws_turn(ws: Any, text: str, *, timeout: float = 120.0) -> StreamResult:
    """Send one message and read token events until done (or an error ends the turn)."""
    parts: list[str] = []
    tokens: list[tuple[str, int]] = []
    errors: list[dict[str, Any]] = []
    first: float | None = None
    done: dict[str, Any] | None = None
    sent_at = time.perf_counter()
    await ws.send(json.dumps({"type": "send", "content": text}))
    async with asyncio.timeout(timeout):
        while done is None:
            raw = await ws.recv()
            received_ns = time.monotonic_ns()
            event = json.loads(raw)
            kind = event.get("type")
            if kind == "token":
                if first is None:
                    first = time.perf_counter()
                parts.append(event["content"])
                tokens.append((event["content"], received_ns))
            elif kind == "done":
                done = event
            elif kind == "error":
                errors.append(event)
                if event.get("code"):  # refused before streaming: no done follows
                    break
    return StreamResult(text="".join(parts), sent_at=sent_at, first_token_at=first,
                        done_at=time.perf_counter() if done else None, tokens=tokens,
                        done=done, errors=errors)


# --- files -----------------------------------------------------------------------------


def session_path(data_dir: Path, instance_id: str, session_id: str = "sess_001") -> Path:
    return data_dir / "instances" / instance_id / "sessions" / f"{session_id}.jsonl"


def session_last_assistant(data_dir: Path, instance_id: str) -> dict[str, Any] | None:
    path = session_path(data_dir, instance_id)
    for raw in reversed(path.read_text(encoding="utf-8").splitlines()):
        with contextlib.suppress(json.JSONDecodeError):
            line = json.loads(raw)
            if line.get("role") == "assistant":
                return line
    return None


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[position]


def machine_describe() -> str:
    memory_kb = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory_kb = int(line.split()[1])
    return f"nproc={os.cpu_count()} ram_gb={memory_kb / 1024 / 1024:.1f} python={sys.version.split()[0]}"


def main() -> None:
    parser = argparse.ArgumentParser(description="benchmark helpers")
    commands = parser.add_subparsers(dest="command", required=True)
    setup = commands.add_parser("setup")
    setup.add_argument("--instances", type=int, default=1)
    setup.add_argument("--memory-indexing", action="store_true")
    stub = commands.add_parser("stub")
    stub.add_argument("--port", type=int, required=True)
    stub.add_argument("--tokens", type=int, default=50)
    stub.add_argument("--delay", type=float, default=0.0)
    stub.add_argument("--stamp", action="store_true")
    args = parser.parse_args()
    if args.command == "setup":
        _setup_main(args)
    else:
        _stub_main(args)


if __name__ == "__main__":
    main()
