"""Another chat's recall while an import's fill runs in the same process, with the fill giving
way to recall (personalab/lib/embedding/give_way.py) and without.

    .venv/bin/python bench/fill_give_way.py [--data ../shared/bench/locomo] [--fill-lines 1200]
        [--busy 2] [--gap 0.3] [--rounds 2]

Chat A (the first conversation of --data, its first --other-sessions sessions) is embedded
whole; then, per round and mode ("off": GIVE_WAY_SECONDS 0, the fill never waits; "on": the
default), a chat B of --fill-lines lines (the next conversations' lines) is written to the
keyword store as an import leaves it and filled in a thread as the sync fills it (chunk_embed,
newest chunks first), while the main thread asks A's LoCoMo questions through
memory.recall.rag.query_user_history one after another (--gap seconds apart) until the fill ends.
Prints each mode's recall ms (idle before the fill, and during it: p50 / p95 / max) and the
fill's wall seconds; `--busy N` keeps N processes spinning on the CPU meanwhile (a busy shared
machine). Ends with one `fill_give_way[mode] ...` line per mode, over all rounds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from recall_locomo import conversation_sessions  # noqa: E402

from memory.recall.rag import query_user_history  # noqa: E402
from memory.vectors.fill import chunk_embed, newest_first_chunks, positions_runs  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402
from personalab.lib.embedding import give_way  # noqa: E402

DEFAULT_DATA = REPO.parent.parent / "shared" / "bench" / "locomo"


def owner_of(instance_id: str) -> dict[str, Any]:
    return {"instance_id": instance_id, "character_id": "char_bench", "background_id": None}


def spin(stop: Any) -> None:
    while not stop.is_set():
        sum(range(10_000))


def fill_lines_read(paths: list[Path], count: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """(session_id, lines) of the conversations at `paths`, `count` lines in all."""
    sessions: list[tuple[str, list[dict[str, Any]]]] = []
    taken = 0
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        for session_id, lines, _ in conversation_sessions(data.get("conversation", data)):
            lines = lines[:count - taken]
            sessions.append((f"{path.stem}_{session_id}", lines))
            taken += len(lines)
            if taken >= count:
                return sessions
    return sessions


def fill_run(index: MemoryIndex, instance_id: str,
             sessions: list[tuple[str, list[dict[str, Any]]]], done: dict[str, float]) -> None:
    owner = owner_of(instance_id)
    total = sum(len(lines) for _, lines in sessions)
    started = time.perf_counter()
    for session_id, lines in reversed(sessions):  # newest first, as the sync fills
        for chunk in newest_first_chunks(positions_runs(list(range(len(lines))))):
            chunk_embed(index, owner, session_id, lines, chunk, fill_lines=total)
    done["seconds"] = time.perf_counter() - started


def asks(index: MemoryIndex, questions: list[str], *, until: threading.Thread | None,
         gap: float, count: int = 0) -> list[float]:
    """Milliseconds of each recall of A asked, until `until` ends (or `count` asks)."""
    times: list[float] = []
    position = 0
    while (until is not None and until.is_alive()) or (until is None and position < count):
        started = time.perf_counter()
        result = query_user_history(questions[position % len(questions)], "chat_a",
                                    index=index, force=True, k=10)
        times.append(1000 * (time.perf_counter() - started))
        if result.warning:
            raise SystemExit(f"recall failed: {result.warning}")
        position += 1
        time.sleep(gap)
    return times


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"n={len(times)} p50={statistics.median(times):.0f} p95={p95:.0f} "
            f"max={ordered[-1]:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--other-sessions", type=int, default=8)
    parser.add_argument("--fill-lines", type=int, default=1200)
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--gap", type=float, default=0.3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default="off,on")
    args = parser.parse_args()
    paths = sorted(args.data.glob("*.json"))
    data = json.loads(paths[0].read_text(encoding="utf-8"))
    questions = [qa["question"] for qa in data["qa"] if qa.get("category") in (1, 2, 3, 4)][:40]
    sessions_a = conversation_sessions(data.get("conversation", data))[:args.other_sessions]
    sessions_b = fill_lines_read(paths[1:], args.fill_lines)
    default_wait = give_way.GIVE_WAY_SECONDS
    results: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as temp:
        index = MemoryIndex(chroma_path=Path(temp) / "chroma")
        started = time.perf_counter()
        for session_id, lines, _ in sessions_a:
            index.add_turns(**owner_of("chat_a"), session_id=session_id, turns=lines, before=None)
        print(f"chat A: {sum(len(s[1]) for s in sessions_a)} lines embedded in "
              f"{time.perf_counter() - started:.1f} s; chat B: "
              f"{sum(len(s[1]) for s in sessions_b)} lines", flush=True)
        stop = multiprocessing.Event()
        spinners = [multiprocessing.Process(target=spin, args=(stop,), daemon=True)
                    for _ in range(args.busy)]
        for process in spinners:
            process.start()
        try:
            for round_number in range(args.rounds):
                for mode in args.modes.split(","):
                    give_way.GIVE_WAY_SECONDS = default_wait if mode == "on" else 0.0
                    idle = asks(index, questions, until=None, gap=args.gap, count=10)
                    instance_b = f"chat_b_{mode}_{round_number}"
                    for session_id, lines in sessions_b:
                        index.add_turns(**owner_of(instance_b), session_id=session_id,
                                        turns=lines, before=None, keywords_only=True)
                    done: dict[str, float] = {}
                    filler = threading.Thread(target=fill_run,
                                              args=(index, instance_b, sessions_b, done))
                    filler.start()
                    during = asks(index, questions, until=filler, gap=args.gap)
                    filler.join()
                    kept = results.setdefault(mode, {"idle": [], "during": [], "fill": []})
                    kept["idle"] += idle
                    kept["during"] += during
                    kept["fill"].append(done["seconds"])
                    print(f"round {round_number} {mode}: idle {figures(idle)}; during the fill "
                          f"{figures(during)}; fill {done['seconds']:.1f} s", flush=True)
        finally:
            stop.set()
            for process in spinners:
                process.join()
    for mode, kept in results.items():
        print(f"fill_give_way[{mode}] idle_p50={statistics.median(kept['idle']):.0f} "
              f"during_p50={statistics.median(kept['during']):.0f} "
              f"during_p95={sorted(kept['during'])[int(0.95 * (len(kept['during']) - 1))]:.0f} "
              f"during_mean={statistics.mean(kept['during']):.0f} "
              f"fill_s={'/'.join(f'{s:.1f}' for s in kept['fill'])} busy={args.busy}",
              flush=True)


if __name__ == "__main__":
    main()
