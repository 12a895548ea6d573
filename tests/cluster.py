"""The scaled-out set as throwaway processes on 127.0.0.1, for the scale test and the benchmarks:
a PostgreSQL cluster (initdb into a temp folder), a Chroma server (`chroma run` of the pinned
chromadb) and N Daphne workers sharing one data folder. redis-server is tests/redis_server.py.

PostgreSQL refuses to run as root: as root it runs as the `postgres` user (runuser), otherwise
as whoever runs the tests. Every process here is stopped by its own pid or data folder.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.redis_server import REDIS_SERVER

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PG_BIN = Path("/usr/lib/postgresql/15/bin")
SECRET_KEY = "scale-test-secret-key-not-for-production-0123456789abcdefghij"


def port_free() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_wait(port: int, what: str, process: subprocess.Popen | None = None,
              timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _postgres_user_exists() -> bool:
    try:
        pwd.getpwnam("postgres")
        return True
    except KeyError:
        return False


def missing_reason() -> str | None:
    """Why the scaled-out set cannot start on this machine, or None."""
    if not Path(REDIS_SERVER).exists():
        return f"{REDIS_SERVER} is missing (apt-get install redis-server; .ci/run does it as root)"
    if not (PG_BIN / "initdb").exists():
        return f"{PG_BIN}/initdb is missing (apt-get install postgresql; .ci/run does it as root)"
    if os.geteuid() == 0 and not _postgres_user_exists():
        return "running as root with no `postgres` user to start PostgreSQL as"
    return None


def chroma_missing_reason() -> str | None:
    if not (BIN / "chroma").exists():
        return f"{BIN}/chroma is missing: the pinned chromadb ships no `chroma run` here"
    return None


class PostgresServer:
    """A cluster in `folder`/pg (a new temp folder unless given): initdb on first start, trust
    auth, listening on 127.0.0.1 only; stop() leaves the folder, remove() deletes it."""

    def __init__(self, folder: Path | None = None, port: int | None = None) -> None:
        if folder is None:
            folder = Path(tempfile.mkdtemp(prefix="personalab-pg-"))
            folder.chmod(0o755)  # the postgres user must reach its data folder inside
        self.folder = folder
        self.data = folder / "pg"
        self.port = port or port_free()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/personalab"

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        command = [str(PG_BIN / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, cwd="/")

    def start(self) -> None:
        if not (self.data / "PG_VERSION").exists():
            self.data.mkdir(parents=True, exist_ok=True)
            if os.geteuid() == 0:
                shutil.chown(self.data, "postgres", "postgres")
            done = self._run("initdb", "-D", str(self.data), "--auth=trust", "-U", "postgres",
                             "--no-sync")
            if done.returncode:
                raise RuntimeError(f"initdb failed: {done.stderr.strip()[-400:]}")
        # fsync off: a throwaway cluster; nothing here must survive a power cut.
        done = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.data / "log"), "-w",
                         "start", "-o", f"-p {self.port} -k {self.data} -c fsync=off "
                                        "-c listen_addresses=127.0.0.1 -c max_connections=300")
        if done.returncode:
            raise RuntimeError(f"PostgreSQL did not start: {done.stdout.strip()[-400:]}")
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                  "personalab")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "stop")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class ChromaServer:
    """`chroma run` on a free port; stop() and start() again keep its folder (an outage)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = port_free()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(BIN / "chroma"), "run", "--path", str(self.folder), "--host", "127.0.0.1",
             "--port", str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_wait(self.port, "chroma", self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=15)
            self.process = None


@dataclass
class Workers:
    """N Daphne workers with one environment (data folder, Redis, database, Chroma, LLM)."""

    env: dict[str, str]
    log_dir: Path
    ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)

    def launch(self, count: int) -> None:
        for number in range(count):
            port = port_free()
            log = (self.log_dir / f"daphne-{number + 1}.log").open("ab")
            self.processes.append(subprocess.Popen(
                [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                 "personalab.asgi:application"], cwd=ROOT, env=self.env, stdout=log,
                stderr=subprocess.STDOUT))
            self.ports.append(port)

    def wait(self) -> None:
        for number, (port, process) in enumerate(zip(self.ports, self.processes)):
            port_wait(port, f"daphne worker {number + 1}", process, timeout=120)

    def origin(self, number: int) -> str:
        return f"http://127.0.0.1:{self.ports[number]}"

    def ws_url(self, number: int, instance_id: str) -> str:
        return f"ws://127.0.0.1:{self.ports[number]}/ws/chat/{instance_id}/"

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # open sockets can hold Daphne's shutdown
                process.kill()
                process.wait(timeout=5)


def worker_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PERSONALAB_MODEL",
                          "PERSONALAB_GGUF", "PERSONALAB_CHROMA_URL", "REDIS_URL", "DATABASE_URL")}
    env.update({"PERSONALAB_DATA_DIR": str(data_dir), "SECRET_KEY": SECRET_KEY,
                "DJANGO_SETTINGS_MODULE": "personalab.settings", "LOG_LEVEL": "WARNING",
                "PYTHONPATH": str(ROOT), "PERSONALAB_OFFLINE_DELAY": "0",
                # the scale tests' and benchmarks' many players are one account
                "PERSONALAB_TURNS_PER_ACCOUNT": "0", **extra})
    return env


def app_setup(env: dict[str, str], *, instances: int, memory_indexing: bool) -> dict:
    """migrate, then a user with a logged-in session and an API token, a character, a background
    and `instances` instances, all through the app's own code (bench/_harness.py setup)."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)
    args = [sys.executable, str(ROOT / "bench" / "_harness.py"), "setup",
            "--instances", str(instances)] + (["--memory-indexing"] if memory_indexing else [])
    done = subprocess.run(args, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])
