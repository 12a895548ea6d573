"""Another account's page view while anonymous clients post wrong passwords for made-up usernames.

    .venv/bin/python bench/login_flood.py [--clients 4] [--seconds 20] [--address-limit 20]
                                          [--rate 0]

Starts Daphne with the app's own settings (PBKDF2: each password checked costs its rounds on
the thread every synchronous view shares), logs a player in, then loads /library/ as that player
every 0.2 s: alone for --seconds, then while --clients clients each post to /login/ one made-up
username after another (red team LOW-4, 2026-12-02): through the first --address-limit posts
(at most 300 s), then for --seconds more. Prints the page view's median / p95 / max in ms for
each phase and the login posts' answers (200: wrong password, 429: paused). `--address-limit`
sets PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT (0: off; the phases still split at 20 posts). Run
from a checkout of older code (copy this file there) to compare the same phases before the limit.
`--rate` paces the posts (that many a second, all clients together; 0: each client posts again
as soon as answered), so two versions compare at the same flood; the server's CPU time per post
after the first ones is printed too (its process's user + system time over that phase).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from collections import Counter
from pathlib import Path

import _harness as h

PROBE_PATH = "/library/"
PROBE_PAUSE = 0.2
FIRST_POSTS_MAX_SECONDS = 300.0


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Flood:
    """The login posts' answers, when the first `split` of them had been answered, and the
    server's CPU time and answer count then."""

    def __init__(self, split: int, *, pid: int, rate: float) -> None:
        self.split, self.pid, self.rate = split, pid, rate
        self.answers: Counter = Counter()
        self.split_at: float | None = None
        self.split_cpu = 0.0
        self.stop = asyncio.Event()

    def answered(self, status: int) -> None:
        self.answers[status] += 1
        if self.split_at is None and sum(self.answers.values()) >= self.split:
            self.split_at = time.monotonic()
            self.split_cpu = cpu_seconds(self.pid)


async def page_probe(server: h.Server, session_key: str, *, seconds: float,
                     flood: Flood | None = None) -> list[tuple[float, float]]:
    """(when it started, how long it took in ms) of each page view: for `seconds`, or with a
    flood, until `seconds` after its first posts were answered."""
    import httpx

    timings: list[tuple[float, float]] = []
    started_phase = time.monotonic()
    async with httpx.AsyncClient(cookies={"sessionid": session_key}, timeout=120) as client:
        await client.get(server.origin + PROBE_PATH)  # warm-up: the first request loads the view
        while True:
            now = time.monotonic()
            if flood is None and now - started_phase > seconds:
                break
            if flood is not None and (now - started_phase > FIRST_POSTS_MAX_SECONDS + seconds
                                      or (flood.split_at and now - flood.split_at > seconds)):
                break
            started = time.perf_counter()
            response = await client.get(server.origin + PROBE_PATH)
            timings.append((now, (time.perf_counter() - started) * 1000))
            if response.status_code != 200:
                raise RuntimeError(f"{PROBE_PATH} answered {response.status_code}")
            await asyncio.sleep(PROBE_PAUSE)
    return timings


async def login_flooder(server: h.Server, flood: Flood, clients: int) -> None:
    import httpx

    pause = clients / flood.rate if flood.rate else 0.0

    login = server.origin + "/login/"
    headers = {"Referer": login, "Origin": server.origin}
    async with httpx.AsyncClient(timeout=120, headers=headers) as client:
        await client.get(login)
        token = client.cookies["csrftoken"]
        while not flood.stop.is_set():
            started = time.monotonic()
            response = await client.post(login, data={
                "username": f"nobody-{uuid.uuid4().hex[:12]}", "password": "a-wrong-guess",
                "csrfmiddlewaretoken": token})
            flood.answered(response.status_code)
            await asyncio.sleep(max(0.0, pause - (time.monotonic() - started)))


async def phases_run(server: h.Server, session_key: str, *, clients: int, seconds: float,
                     split: int, rate: float) -> dict:
    idle = await page_probe(server, session_key, seconds=seconds)
    flood = Flood(split, pid=server.process.pid, rate=rate)
    flooders = [asyncio.create_task(login_flooder(server, flood, clients))
                for _ in range(clients)]
    loaded = await page_probe(server, session_key, seconds=seconds, flood=flood)
    flood.stop.set()
    await asyncio.gather(*flooders)
    cpu_after = cpu_seconds(server.process.pid) - flood.split_cpu
    posts_after = sum(flood.answers.values()) - split
    split_at = flood.split_at or float("inf")
    return {"idle": [ms for _, ms in idle],
            f"flood, its first {split} posts": [ms for at, ms in loaded if at < split_at],
            f"flood, after {split} posts": [ms for at, ms in loaded if at >= split_at],
            "answers": flood.answers, "cpu_ms_per_post": 1000 * cpu_after / max(1, posts_after)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--address-limit", type=int, default=20)
    parser.add_argument("--rate", type=float, default=0.0)
    args = parser.parse_args()
    print(f"machine: {h.machine_describe()}")
    os.environ["PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT"] = str(args.address_limit)
    with h.data_dir_temp() as data_dir, \
            h.app_served(data_dir, instances=1) as (setup, server, _stub):
        out = asyncio.run(phases_run(server, setup.session_key, clients=args.clients,
                                     seconds=args.seconds, split=args.address_limit or 20,
                                     rate=args.rate))
    answers = out.pop("answers")
    cpu_ms_per_post = out.pop("cpu_ms_per_post")
    for phase, values in out.items():
        if values:
            print(f"page_ms[{phase}] p50={h.median(values):.1f} "
                  f"p95={h.percentile(values, 0.95):.1f} max={max(values):.1f} n={len(values)}")
    print(f"login posts: {sum(answers.values())} from {args.clients} clients, answers "
          f"{dict(sorted(answers.items()))} (address limit {args.address_limit or 'off'}, "
          f"rate {args.rate or 'unpaced'}); server CPU per post after the first "
          f"{args.address_limit or 20}: {cpu_ms_per_post:.2f} ms (page views included)")


if __name__ == "__main__":
    main()
