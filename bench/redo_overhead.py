"""What a regenerate, a continue, a swipe and an edit / delete (and its undo) of the last line
cost as the session grows: the app's own time and the bytes it writes.

    .venv/bin/python bench/redo_overhead.py [--repeat 5] [--sizes 10,1000,10000]

Runs in this process (Django set up on a temp data folder, as bench/turn_overhead.py) with a
provider that answers at once, on sessions of 10, 1,000 and 10,000 messages in the last-10
mode (--whole: the default mode, the whole session in the prompt; 2,000 messages is about the
most the default max_total_tokens takes). Each action is timed --repeat times on the same
session (median); between two regenerates
the session keeps growing its alternatives, as a player's would. "Written" is what the process
handed to write() meanwhile (/proc/self/io wchar): the session file, its line index, backups,
the trace file and its database row. The session cache is warm, as in a running server.
Prints one summary line at the end (redo_overhead ...).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402
import turn_overhead as t  # noqa: E402

ACTIONS = ("regenerate", "continue", "swipe", "edit", "delete", "undo")


def written_bytes() -> int:
    with open("/proc/self/io", encoding="ascii") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("wchar:"))


def timed(action: Callable[[], object]) -> tuple[float, int]:
    before = written_bytes()
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000, written_bytes() - before


def redo(store, instance_id: str, **kind: bool) -> None:
    from chat.play.turn import turn_run

    asyncio.run(turn_run(store, instance_id=instance_id, user_text="", emit=t._emit,
                         provider=t.InstantProvider(), **kind))


def last_row(store, instance_id: str) -> dict:
    from chat.history_manager import reads as history_read

    page = history_read.messages_page(store, instance_id=instance_id, session_key="sess_002")
    return page["rows"][-1]


def actions_for(store, instance_id: str) -> dict[str, Callable[[], object]]:
    from chat.history_manager import edits as history

    state: dict = {}

    def swipe() -> None:
        row = last_row(store, instance_id)
        history.reply_choose_alternative(store, instance_id=instance_id, session_id="sess_002",
                                         turn=row["turn"], alternative_index=0)

    def edit() -> None:
        row = state["row"]
        history.message_edit(store, instance_id=instance_id, session_id="sess_002",
                             index=row["index"], fingerprint=row["fingerprint"],
                             text=row["content"] + "（改）")

    def delete() -> None:
        row = state["row"]
        state["undo"] = history.message_delete(
            store, instance_id=instance_id, session_id="sess_002", index=row["index"],
            fingerprint=row["fingerprint"])["undo_token"]

    def undo() -> None:
        history.undo(store, instance_id=instance_id, token=state["undo"])

    return {"regenerate": lambda: redo(store, instance_id, regenerate=True),
            "continue": lambda: redo(store, instance_id, continue_reply=True),
            "swipe": swipe, "edit": edit, "delete": delete, "undo": undo,
            "_row": lambda: state.update(row=last_row(store, instance_id))}


def size_measure(store, owner, character_id: str, background_id: str, messages: int,
                 repeat: int) -> dict[str, tuple[float, float]]:
    instance_id = t.instance_with_session(store, owner, character_id, background_id,
                                          messages // 2)
    history_module = store.module_read("history")
    store.module_write("history", {**history_module, "undo_window_seconds": 3600})
    t.turn_once(store, instance_id, t.PLAIN_TEXT)  # the session cache and the index warm
    actions = actions_for(store, instance_id)
    times: dict[str, list[float]] = {name: [] for name in ACTIONS}
    wrote: dict[str, list[int]] = {name: [] for name in ACTIONS}
    for _ in range(repeat):
        for name in ACTIONS:
            actions["_row"]()
            ms, count = timed(actions[name])
            times[name].append(ms)
            wrote[name].append(count)
    size_kb = store.session_path(instance_id, "sess_002").stat().st_size / 1024
    figures = {name: (h.median(times[name]), h.median(wrote[name])) for name in ACTIONS}
    print(f"session of {messages:>6} messages ({size_kb:6.0f} KB): " + "; ".join(
        f"{name} {ms:6.2f} ms {count / 1024:7.1f} KB" for name, (ms, count) in figures.items()),
        flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--whole", action="store_true",
                        help="the whole session in the prompt (the default mode; a session over "
                             "max_total_tokens refuses the regenerate and continue)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"machine: {h.machine_describe()} load {os.getloadavg()[0]:.2f}")
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        from personalab.lib.tokens import tokenizer_name

        tokenizer_name()
        store, owner, character_id, background_id = t.library_seed(data_dir)
        config = store.config_read()
        config["preferences"]["conversation_load_all"] = args.whole
        store.config_write(config)
        figures = {size: size_measure(store, owner, character_id, background_id, size,
                                      args.repeat) for size in sizes}
    print(f"load after {os.getloadavg()[0]:.2f}")
    print("redo_overhead " + " ".join(
        f"ms_{name}_{size}={figures[size][name][0]:.1f} kb_{name}_{size}="
        f"{figures[size][name][1] / 1024:.1f}" for size in sizes for name in ACTIONS), flush=True)
    os._exit(0)  # the memory worker keeps non-daemon threads; the temp folder is gone


if __name__ == "__main__":
    main()
