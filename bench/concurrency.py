"""Many players at once: N WebSocket clients on N instances, all streaming from the stub LLM at the
same time with a per-token delay.

    .venv/bin/python bench/concurrency.py [--quick] [--clients 200] [--tokens 100] [--delay 0.02]
                                          [--memory-indexing] [--workers N]

With --workers N the app runs scaled out (docs/deploy.md): N Daphne workers sharing one data
folder, a redis-server (channel layer and instance locks) and a PostgreSQL cluster, all started
here; client i talks to worker i mod N. Without it: one Daphne on SQLite, in-memory layer, flock.

Method. The stub (a subprocess) sends piece i of a reply as the text "i@T " where T is its
time.monotonic_ns() taken right before the write (the stub sleeps --delay before each piece).
CLOCK_MONOTONIC is one clock for every process of the machine, so a client that receives the
token event at time R adds R - T to the delay figures: the time the app (openai client in the
server, session-file write, Channels, Daphne, WebSocket) and the client's own event loop took.
The client reads all N sockets in one asyncio process, so its own lag is included (an upper bound
on what the app adds). Tokens lost: the pieces 0..n-1 each client should have received, minus the
ones it did (in order, no duplicates), plus any difference between the received text and the
assistant line in the session file. Peak memory: RSS of the largest Daphne process, sampled every
50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402


async def client_run(server: h.Server, session_key: str, instance_id: str,
                     ready: asyncio.Barrier, timeout: float) -> h.StreamResult:
    async with h.ws_connect(server, session_key, instance_id) as ws:
        await ready.wait()
        return await h.ws_turn(ws, "大家一起出发吧。", timeout=timeout)


async def clients_run(servers: list[h.Server], setup: h.AppSetup, timeout: float) -> list[Any]:
    ready = asyncio.Barrier(len(setup.instance_ids))
    tasks = [client_run(servers[n % len(servers)], setup.session_key, instance_id, ready, timeout)
             for n, instance_id in enumerate(setup.instance_ids)]
    return await asyncio.gather(*tasks, return_exceptions=True)


def results_check(results: list[Any], setup: h.AppSetup, data_dir: Path,
                  tokens: int) -> tuple[list[float], int, int, list[str]]:
    """(per-token delays ms, tokens lost, failed turns, problems). A turn that ended in an error
    event (an LLM error the app reported and wrote as an error line) is a failed turn, not lost
    tokens; lost tokens are gaps in a stream that ended normally, and any difference between what
    a client received and what its session file holds."""
    delays: list[float] = []
    lost = 0
    failed = 0
    problems: list[str] = []
    for instance_id, result in zip(setup.instance_ids, results):
        if isinstance(result, BaseException):
            problems.append(f"{instance_id}: {type(result).__name__}: {result}")
            lost += tokens
            continue
        if result.errors:
            failed += 1
            problems.append(f"{instance_id}: {result.errors[:1]}")
        received = []
        for content, received_ns in result.tokens:
            for index, sent_ns in h.stamps_parse(content):
                received.append(index)
                delays.append((received_ns - sent_ns) / 1e6)
        if received != list(range(tokens)) and not result.errors:
            lost += tokens - len(set(received) & set(range(tokens)))
            problems.append(f"{instance_id}: received {len(received)} pieces, "
                            f"in order: {received == sorted(set(received))}")
        line = h.session_last_assistant(data_dir, instance_id)
        stored = [index for index, _ in h.stamps_parse(line.get("content", ""))] if line else []
        if line and line.get("error"):
            problems.append(f"{instance_id}: error line in the session file: {line['content'][-160:]!r}")
        if stored != received:
            lost += len(set(stored) ^ set(received))
            problems.append(f"{instance_id}: the session file holds {len(stored)} pieces, "
                            f"the client got {len(received)}")
    return delays, lost, failed, problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 clients")
    parser.add_argument("--clients", type=int, default=None)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds before each piece")
    parser.add_argument("--timeout", type=float, default=300.0, help="per client turn, seconds")
    parser.add_argument("--profile-server", type=Path, default=None,
                        help="run Daphne under cProfile and print its top functions")
    parser.add_argument("--memory-indexing", action="store_true",
                        help="let the server embed finished turns (recall on); off by default")
    parser.add_argument("--workers", type=int, default=0,
                        help="N Daphne workers with Redis and PostgreSQL (docs/deploy.md)")
    args = parser.parse_args()
    clients = args.clients or (20 if args.quick else 200)
    print(f"machine: {h.machine_describe()}; load average {os.getloadavg()[0]:.2f} at the start")
    print(f"{clients} clients on {clients} instances, {args.tokens} pieces each, "
          f"{args.delay * 1000:g} ms apart (an ideal stream lasts {args.tokens * args.delay:.1f} s)"
          + (f"; {args.workers} workers + Redis + PostgreSQL" if args.workers else
             "; one Daphne, SQLite, in-memory layer"))
    with h.data_dir_temp() as data_dir, \
            (h.services_start(data_dir) if args.workers else contextlib.nullcontext({})) as services:
        started = time.perf_counter()
        setup = h.app_setup(data_dir, instances=clients, memory_indexing=args.memory_indexing,
                            env=h.base_env(data_dir, **services) if services else None)
        print(f"setup: {clients} instances in {time.perf_counter() - started:.1f} s", flush=True)
        stub = h.stub_start(tokens=args.tokens, delay=args.delay, stamp=True, data_dir=data_dir)
        servers = [h.server_start(data_dir, stub, profile=args.profile_server, services=services,
                                  wait=False) for _ in range(max(1, args.workers))]
        for server in servers:
            h.port_wait(server.port, server.process)
        pids = {"stub": stub.process.pid, "client": os.getpid()}
        pids.update({f"daphne{n + 1}": server.process.pid for n, server in enumerate(servers)})
        cpu_before = {name: h.process_cpu_seconds(pid) for name, pid in pids.items()}
        baseline = max(server.rss_mb() for server in servers)
        samplers = [h.RssSampler(server.process.pid) for server in servers]
        with contextlib.ExitStack() as sampling:
            for sampler in samplers:
                sampling.enter_context(sampler)
            started = time.perf_counter()
            results = asyncio.run(clients_run(servers, setup, args.timeout))
            wall = time.perf_counter() - started
        cpu = {name: h.process_cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
        peak_mb = max(sampler.peak_mb for sampler in samplers)
        delays, lost, failed, problems = results_check(results, setup, data_dir, args.tokens)
        if args.profile_server:
            h.server_stop_profiled(servers[0])
            stats = pstats.Stats(str(args.profile_server)).strip_dirs()
            stats.sort_stats("tottime").print_stats(25)
            stats.sort_stats("cumulative").print_stats(30)
        h.children_kill()
    finished = [r for r in results if not isinstance(r, BaseException) and r.done]
    streams = [r.done_at - r.sent_at for r in finished]
    p50, p95, p99 = (h.percentile(delays, q) for q in (0.50, 0.95, 0.99))
    print(f"all streams finished in {wall:.1f} s (connect + stream); per stream: median "
          f"{h.median(streams):.2f} s, max {max(streams, default=float('nan')):.2f} s; "
          f"{len(finished)}/{clients} ended with done")
    print(f"token delay added (client receive - stub send), {len(delays)} tokens: p50 {p50:.1f} ms, "
          f"p95 {p95:.1f} ms, p99 {p99:.1f} ms, max {max(delays, default=float('nan')):.1f} ms")
    events = sum(len(r.tokens) for r in finished)
    # perf_counter and monotonic_ns read the same clock (CLOCK_MONOTONIC) on Linux.
    ends = [r.done_at - r.tokens[-1][1] / 1e9 for r in finished if r.tokens]
    print(f"token events: {events} ({len(delays) / max(events, 1):.2f} pieces each; the app joins "
          f"pieces that arrive while it is behind); last token to done: median "
          f"{h.median(ends) * 1000:.0f} ms, max {max(ends, default=float('nan')) * 1000:.0f} ms")
    print("CPU seconds during the run: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
          + f" (wall {wall:.1f} s, {os.cpu_count()} cores)")
    print(f"tokens lost: {lost}; failed turns (error event): {failed}" + (f"; {len(problems)} problems, first: {problems[:4]}" if problems else ""))
    print(f"daphne RSS (largest worker): {baseline:.0f} MB idle, peak {peak_mb:.0f} MB")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    print(f"concurrency clients={clients} workers={args.workers or 1} p50_ms={p50:.1f} "
          f"p95_ms={p95:.1f} lost={lost} failed={failed} peak_rss_mb={peak_mb:.0f}")


if __name__ == "__main__":
    main()
