"""What an outline edit costs now that every chat playing the background follows it, and what
the instance lock's hook adds to each lock taken when no edit is waiting (one look for a note).

    .venv/bin/python bench/outline_edit.py [--chats 200] [--edits 20] [--locks 5000]

Django set up on a temp data folder; `--chats` chats of one account play one background. An
edit inserts a point above them all (each chat's step moves); its wall time is the median of
`--edits`. Then `--locks` lock cycles (take, give back) on one free chat, with the hook and
without it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h  # noqa: E402
from turn_overhead import django_boot, library_seed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chats", type=int, default=200)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--locks", type=int, default=5000)
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        django_boot(data_dir)
        # The app's modules once Django runs on the temporary data folder.
        from chat.services.instances import instance_create
        from library.background_services import background_save_reported

        store, owner, character_id, background_id = library_seed(data_dir)
        chats = [instance_create(store, owner=owner, character_id=character_id,
                                 background_id=background_id) for _ in range(args.chats)]
        outline = [p["content"] for p in store.background_read(background_id)["story_outline"]]
        times = []
        for n in range(args.edits):
            outline = [f"插入的第{n}点", *outline]
            started = time.perf_counter()
            _, report = background_save_reported(store, background_id=background_id, data={
                "name": "废土复仇记", "world_setting": "2087年。", "story_outline": outline})
            times.append(time.perf_counter() - started)
            assert len(report.moved) == args.chats
        index = store.instance_state_read(chats[0])["plot_state"]["current_plot_index"]
        print(f"{args.chats} chats, each followed {args.edits} edits (step now {index}): "
              f"edit median {h.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
        def unhooked():
            lock = store.instance_lock(chats[0])
            lock.on_hold = None
            return lock

        for label, make in (("with the hook", lambda: store.instance_lock(chats[0])),
                            ("without", unhooked)):
            started = time.perf_counter()
            for _ in range(args.locks):
                make().acquire().release()
            spent = (time.perf_counter() - started) / args.locks
            print(f"lock take + give back {label}: {spent * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
