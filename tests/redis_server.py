"""A throwaway redis-server on a free 127.0.0.1 port, for tests that need the real thing."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

REDIS_SERVER = "/usr/bin/redis-server"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(port: int, process: subprocess.Popen) -> None:
    for _ in range(100):
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("redis-server did not answer PING within 5 s")


class RedisServer:
    """One redis-server; `stop()` and `start()` again on the same port (an outage)."""

    def __init__(self, folder) -> None:
        self.port = _free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_until_up(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def redis_server(tmp_path) -> Iterator[RedisServer]:
    if not shutil.which(REDIS_SERVER):
        pytest.skip(f"{REDIS_SERVER} is missing (apt-get install redis-server; .ci/run does it as root)")
    server = RedisServer(tmp_path)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    return redis_server.url
