"""Does a hostile model stream slow everyone? Another instance's REST latency while one turn
reads a hostile endpoint (issue 29, item 4).

    .venv/bin/python bench/hostile_stream.py [--long-line 30000000] [--useless 60] [--idle 60]

Method. The stub LLM runs as its own process (tests/stub_llm.py), playing one hostile endpoint:
`--long-line BYTES` streams one `data:` line of BYTES with no newline; `--useless SECONDS` floods
empty deltas, role-only chunks and keep-alive comments for SECONDS. One Daphne server points at
it. Instance A's turn (WebSocket) reads the hostile stream while a client GETs instance B
(`/api/v1/instances/{B}`) every 50 ms; the same is measured idle first. Prints the turn's time and
how it ended, the probe's p50/max idle and under attack, and the server's CPU seconds.
Goal: the probe under 0.5 s. `--idle` sets PERSONALAB_LLM_IDLE_SECONDS for the server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h


async def probe(client, url: str, stop: asyncio.Event, out: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        response = await client.get(url)
        out.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"probe answered {response.status_code}")
        try:
            await asyncio.wait_for(stop.wait(), 0.05)
        except TimeoutError:
            pass


def stub_start(args: argparse.Namespace, data_dir: Path) -> h.Stub:
    port = h.port_free()
    hostile = (["--long-line", str(args.long_line)] if args.long_line
               else ["--useless", str(args.useless)])
    process = h.child_start([h.PYTHON, str(h.REPO / "tests" / "stub_llm.py"), "--port",
                             str(port), *hostile], h.base_env(data_dir),
                            log=data_dir / "stub.log")
    h.port_wait(port, process)
    return h.Stub(process, port)


async def measure(server: h.Server, setup: h.AppSetup, idle_probe_s: float) -> dict:
    import httpx

    attacked, other = setup.instance_ids[:2]
    url = f"{server.origin}/api/v1/instances/{other}"
    out: dict = {"idle": [], "attack": []}
    async with httpx.AsyncClient(cookies={"sessionid": setup.session_key}, timeout=600) as client:
        await client.get(url)  # warm-up
        stop = asyncio.Event()
        task = asyncio.create_task(probe(client, url, stop, out["idle"]))
        await asyncio.sleep(idle_probe_s)
        stop.set()
        await task
        cpu_before = h.process_cpu_seconds(server.process.pid)
        stop = asyncio.Event()
        task = asyncio.create_task(probe(client, url, stop, out["attack"]))
        async with h.ws_connect(server, setup.session_key, attacked) as ws:
            result = await h.ws_turn(ws, "hello", timeout=900)
        stop.set()
        await task
        out["server_cpu_s"] = h.process_cpu_seconds(server.process.pid) - cpu_before
    out["turn_s"] = (result.done_at or time.perf_counter()) - result.sent_at
    out["ended"] = ("error: " + str(result.errors[0].get("message"))[:110]
                    if result.errors else "done")
    out["kept"] = result.text[:40]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--long-line", type=int, default=0, metavar="BYTES")
    parser.add_argument("--useless", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--idle", type=float, default=60.0, help="PERSONALAB_LLM_IDLE_SECONDS")
    parser.add_argument("--probe-idle", type=float, default=2.0)
    args = parser.parse_args()
    if not args.long_line and not args.useless:
        args.long_line = 30_000_000
    with h.data_dir_temp() as data_dir:
        stub = stub_start(args, data_dir)
        setup = h.app_setup(data_dir, instances=2)
        server = h.server_start(data_dir, stub,
                                services={"PERSONALAB_LLM_IDLE_SECONDS": str(args.idle)})
        out = asyncio.run(measure(server, setup, args.probe_idle))
    attack = (f"long line of {args.long_line} bytes" if args.long_line
              else f"empty deltas for {args.useless:g}s")
    print(f"machine: {h.machine_describe()}")
    print(f"attack: {attack}; turn {out['turn_s']:.2f} s, ended: {out['ended']}")
    print(f"reply kept: {out['kept']!r}; server CPU during the turn {out['server_cpu_s']:.2f} s")
    for phase in ("idle", "attack"):
        values = out[phase]
        print(f"other instance GET ms ({phase}, n={len(values)}): "
              f"p50 {h.median(values):.1f}  max {max(values):.1f}")


if __name__ == "__main__":
    main()
