"""Is the server still there while memory work runs? Login-page latency while one account's long
reply is being indexed and another account's summarize embeds its events.

    .venv/bin/python bench/responsiveness.py [--quick] [--reply-chars 200000] [--events 12]

Method. One Daphne server (recall on, so finished turns are indexed in its background worker),
the stub LLM in this process. Instance B gets one short turn; instance A then gets one reply of
--reply-chars characters (its indexing starts when the turn ends) and, right after, B's summarize
is posted (the stub answers it with --events events of ~1,500 characters each, which summarize
embeds). While both run, a client GETs /login/ every 50 ms over HTTP and records each answer's
time; the same is measured before, with the server idle. Prints `login_ms_p50/p95/max` for both
phases and how long summarize took. Goal: login p95 under load < 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402

CSRF = "b" * 32


async def login_probe(client, server: h.Server, stop: asyncio.Event, out: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        response = await client.get(f"{server.origin}/login/")
        out.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"login page answered {response.status_code}")
        try:
            await asyncio.wait_for(stop.wait(), 0.05)
        except TimeoutError:
            pass


async def phases_run(server: h.Server, setup: h.AppSetup, stub, *, reply_chars: int,
                     events: int, idle_seconds: float) -> dict:
    import httpx

    from tests.stub_llm import Reply

    first, second = setup.instance_ids[:2]
    cookies = {"sessionid": setup.session_key, "csrftoken": CSRF}
    headers = {"X-CSRFToken": CSRF, "Referer": server.origin + "/"}
    out: dict = {"idle": [], "loaded": []}
    async with httpx.AsyncClient(cookies=cookies, headers=headers, timeout=600) as client:
        async with h.ws_connect(server, setup.session_key, second) as ws:
            await h.ws_turn(ws, "我们出发吧。")
        await client.get(f"{server.origin}/login/")  # warm-up: the first request loads the view
        stop = asyncio.Event()
        probe = asyncio.create_task(login_probe(client, server, stop, out["idle"]))
        await asyncio.sleep(idle_seconds)
        stop.set()
        await probe

        long_reply = ("她推开门，雨还在下。远处的灯塔忽明忽暗，" * (reply_chars // 20 + 1))[:reply_chars]
        stub.script(Reply(long_reply, chunk_size=8192))
        async with h.ws_connect(server, setup.session_key, first) as ws:
            result = await h.ws_turn(ws, "讲讲那天晚上发生了什么。", timeout=600)
        if result.errors:
            raise RuntimeError(f"long turn failed: {result.errors}")
        body = {"events": [{"summary": f"第{i}件事：" + "他们在废墟里找到了旧地图。" * 100,
                            "plot": f"细节{i}：" + "地图背面写着一串坐标和一个名字。" * 90}
                           for i in range(events)]}
        stub.script(Reply(json.dumps(body, ensure_ascii=False), chunk_size=8192))
        stop = asyncio.Event()
        probe = asyncio.create_task(login_probe(client, server, stop, out["loaded"]))
        started = time.perf_counter()
        response = await client.post(f"{server.origin}/api/v1/instances/{second}/summarize")
        out["summarize_s"] = time.perf_counter() - started
        if response.status_code != 200:
            raise RuntimeError(f"summarize answered {response.status_code}: {response.text[:300]}")
        stop.set()
        await probe
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a shorter idle phase")
    parser.add_argument("--reply-chars", type=int, default=200_000)
    parser.add_argument("--events", type=int, default=6)
    parser.add_argument("--keep", action="store_true", help="keep the data folder (daphne.log)")
    args = parser.parse_args()
    print(f"machine: {h.machine_describe()}")
    with h.data_dir_temp(keep=args.keep) as data_dir:
        print(f"data: {data_dir}")
        with h.app_served(data_dir, instances=2, memory_indexing=True) as (setup, server, stub):
            out = asyncio.run(phases_run(server, setup, stub, reply_chars=args.reply_chars,
                                         events=args.events,
                                         idle_seconds=1.0 if args.quick else 3.0))
    for phase in ("idle", "loaded"):
        values = out[phase]
        print(f"login_ms[{phase}] p50={h.median(values):.1f} p95={h.percentile(values, 0.95):.1f} "
              f"max={max(values):.1f} n={len(values)}")
    print(f"summarize took {out['summarize_s']:.2f} s ({args.events} events) while a "
          f"{args.reply_chars}-character reply was being indexed")
    loaded = out["loaded"]
    print(f"responsiveness login_ms_p95_loaded={h.percentile(loaded, 0.95):.1f} (goal < 50) "
          f"login_ms_max_loaded={max(loaded):.1f}")


if __name__ == "__main__":
    main()
