"""The chat page's render: ms per load of GET /instances/<id>/ for a chat of many messages (the
page shows the newest 40), in each of the page's languages.

    .venv/bin/python bench/chat_page.py [--turns 60] [--loads 30]

The chat is made through the app's own services, its turns written to the session file as a
played chat leaves them (a player line, a reply with its trace and timing; one reply in five
with reasoning, one line in ten edited, one in fifteen hidden). Prints the median and p95 wall
ms and the median CPU ms of a page load per language (the first load apart: it fills the
caches).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import _harness


def turn_lines(turn: int) -> list[dict]:
    stamp = f"2026-11-28T20:{turn % 60:02d}:00Z"
    player = {"role": "user", "content": f"Turn {turn}: I ask about the **bells** again.",
              "turn": turn, "timestamp": stamp}
    reply = {"role": "assistant", "turn": turn, "timestamp": stamp, "trace_id": f"trc_{turn:016x}",
             "content": "The keeper *smiles*. " * 12 + "\n\n> The tide is late tonight.",
             "model": "bench-model", "duration_ms": 900, "tokens": 120}
    if turn % 5 == 0:
        reply["reasoning"] = "She weighs how much to say. " * 6
    if turn % 10 == 0:
        player["edited"] = True
    if turn % 15 == 0:
        player["hidden"] = True
    return [player, reply]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--loads", type=int, default=30)
    args = parser.parse_args()
    with _harness.data_dir_temp() as data_dir:
        setup = _harness.app_setup(data_dir, instances=1)
        os.environ.update(_harness.base_env(data_dir))
        import django

        django.setup()
        # The app's modules read Django settings when imported: only after setup, in this folder.
        from django.contrib.auth import get_user_model
        from django.test import Client

        from personalab.storage import get_store

        store = get_store()
        instance_id = setup.instance_ids[0]
        session_id = store.instance_state_read(instance_id)["current_session_id"]
        for turn in range(1, args.turns + 1):
            for line in turn_lines(turn):
                store.session_append(instance_id, session_id, line)
        client = Client()
        client.force_login(get_user_model().objects.get(username=_harness.USERNAME))

        def timed(language: str) -> tuple[float, float]:
            """(wall ms, CPU ms of this process) of one load."""
            client.cookies["django_language"] = language
            wall, cpu = time.perf_counter(), time.process_time()
            response = client.get(f"/instances/{instance_id}/")
            assert response.status_code == 200, response.status_code
            return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000

        figures: dict[str, float | int] = {"turns": args.turns, "loads": args.loads}
        for language in ("en", "zh-hans"):
            figures[f"{language}_first_ms"] = round(timed(language)[0], 1)
            runs = [timed(language) for _ in range(args.loads)]
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            figures.update({
                f"{language}_ms_p50": round(_harness.median(walls), 1),
                f"{language}_ms_p95": round(_harness.percentile(walls, 0.95), 1),
                f"{language}_cpu_ms_p50": round(_harness.median(cpus), 1)})
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
