"""A player's page view while chat sockets flood acting frames the server refuses.

    .venv/bin/python bench/socket_action_flood.py [--sockets 8] [--seconds 20] [--rate 350]
                                                  [--frame malformed]

Starts Daphne, logs a player in, then loads /library/ as that player every 0.2 s: alone for
--seconds, then for --seconds while --sockets chat sockets send --rate acting frames a second between them,
each reading every answer before its next (red team LOW-3, 2026-12-02: 350 a second). `--frame malformed`: a `send` whose
`speaker` is a number (refused `bad_request`); `--frame regenerate`: a `regenerate` on a chat with
nothing to regenerate (well formed: refused by the turn, or `throttled`). Prints the page view's
median / p95 / max in ms and the answers' codes. Run from a checkout of older code (copy this
file there) to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter

import _harness as h
from login_flood import page_probe

FRAMES = {"malformed": {"type": "send", "content": "hello", "speaker": 1},
          "regenerate": {"type": "regenerate"}}


async def socket_flooder(server: h.Server, session_key: str, instance_id: str, frame: dict,
                         seconds: float, pause: float, answers: Counter) -> None:
    text = json.dumps(frame)
    async with h.ws_connect(server, session_key, instance_id) as ws:
        started = time.monotonic()
        sent = 0
        while time.monotonic() - started < seconds:
            await asyncio.sleep(max(0.0, started + sent * pause - time.monotonic()))
            await ws.send(text)
            sent += 1
            while True:  # the answer to this frame (a `stream` of another turn may come first)
                event = json.loads(await ws.recv())
                if event.get("code") or event.get("type") == "done":
                    answers[event.get("code") or "done"] += 1
                    break


async def phases_run(server: h.Server, setup: h.AppSetup, *, sockets: int, seconds: float,
                     rate: float, frame: dict) -> dict:
    idle = await page_probe(server, setup.session_key, seconds=seconds)
    answers: Counter = Counter()
    flooders = [asyncio.create_task(socket_flooder(server, setup.session_key,
                                                   setup.instance_ids[0], frame, seconds,
                                                   sockets / rate, answers))
                for _ in range(sockets)]
    loaded = await page_probe(server, setup.session_key, seconds=seconds)
    await asyncio.gather(*flooders)
    return {"idle": [ms for _, ms in idle], "flood": [ms for _, ms in loaded],
            "answers": answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=350.0)
    parser.add_argument("--frame", choices=sorted(FRAMES), default="malformed")
    args = parser.parse_args()
    print(f"machine: {h.machine_describe()}")
    with h.data_dir_temp() as data_dir, \
            h.app_served(data_dir, instances=1) as (setup, server, _stub):
        out = asyncio.run(phases_run(server, setup, sockets=args.sockets,
                                     seconds=args.seconds, rate=args.rate,
                                     frame=FRAMES[args.frame]))
    answers = out.pop("answers")
    for phase, values in out.items():
        print(f"page_ms[{phase}] p50={h.median(values):.1f} "
              f"p95={h.percentile(values, 0.95):.1f} max={max(values):.1f} n={len(values)}")
    print(f"frames: {sum(answers.values())} from {args.sockets} sockets in {args.seconds:g} s, "
          f"answers {dict(sorted(answers.items()))}")


if __name__ == "__main__":
    main()
