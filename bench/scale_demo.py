"""The scaled-out set on one machine: Redis, PostgreSQL, a Chroma server, N Daphne workers
sharing one data folder, and a small TCP round-robin proxy in front (WebSockets pass through).

    .venv/bin/python bench/scale_demo.py [--workers 2] [--port 8000] [--state .scale-demo]

Everything lives under --state (the data folder, Redis, PostgreSQL, Chroma); Ctrl-C stops it all.
PostgreSQL runs as the `postgres` user when started as root (it refuses root). This is the
layout docs/deploy.md describes, minus the real proxy and the separate machines.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cluster import BIN, PostgresServer, port_wait  # noqa: E402


async def proxy(port: int, backends: list[int]) -> None:
    """Layer-4 round robin: each new connection (page, REST call or WebSocket) to the next
    worker, the way a real proxy spreads players over workers."""
    turn = itertools.cycle(backends)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def handle(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            worker_r, worker_w = await asyncio.open_connection("127.0.0.1", next(turn))
        except OSError:
            client_w.close()
            return
        await asyncio.gather(pipe(client_r, worker_w), pipe(worker_r, client_w))

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def _interrupted(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, _interrupted)  # a service manager stops it like Ctrl-C
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--state", type=Path, default=ROOT / ".scale-demo")
    args = parser.parse_args()
    state = args.state.resolve()
    state.mkdir(parents=True, exist_ok=True)
    (state / "data").mkdir(exist_ok=True)
    redis_port, pg_port, chroma_port = args.port + 379, args.port + 432, args.port + 10
    children: list[subprocess.Popen] = []
    postgres = PostgresServer(state, pg_port)
    try:
        children.append(subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", str(state),
             "--appendonly", "yes"], stdout=subprocess.DEVNULL))
        port_wait(redis_port, "redis-server")
        postgres.start()
        database_url = postgres.url
        children.append(subprocess.Popen(
            [str(BIN / "chroma"), "run", "--path", str(state / "chroma"), "--host", "127.0.0.1",
             "--port", str(chroma_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        port_wait(chroma_port, "chroma")
        env = {**os.environ, "PERSONALAB_DATA_DIR": str(state / "data"),
               "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "DATABASE_URL": database_url,
               "PERSONALAB_CHROMA_URL": f"http://127.0.0.1:{chroma_port}",
               "HOST": "127.0.0.1", "PORT": str(args.port)}
        for command in (["migrate", "--noinput"], ["bootstrap"], ["seed_demo"], ["reindex"]):
            subprocess.run([str(BIN / "python"), "manage.py", *command], cwd=ROOT, env=env,
                           check=True)
        backends = [args.port + 100 + n for n in range(args.workers)]
        for port in backends:
            children.append(subprocess.Popen(
                [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                 "personalab.asgi:application"], cwd=ROOT, env=env))
        for port in backends:
            port_wait(port, "daphne")
        print(f"PersonaLab: http://127.0.0.1:{args.port}/ → {args.workers} workers {backends}; "
              f"Redis :{redis_port}, PostgreSQL :{pg_port}, Chroma :{chroma_port}; "
              f"state in {state}. Ctrl-C stops it all.", flush=True)
        asyncio.run(proxy(args.port, backends))
    except KeyboardInterrupt:
        pass
    finally:
        for child in reversed(children):
            child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
        postgres.stop()


if __name__ == "__main__":
    main()
