"""The library page with many characters: ms per load of GET /library/ (the tiles read each
character's picture and a line from its card), and of the tiles alone.

    .venv/bin/python bench/library_page.py [--characters 100] [--loads 20] [--book-entries 50]

Each character is made through the app's own service, with a card of realistic size: its
description and greetings, and a character book of `--book-entries` entries (cards from
Chub and SillyTavern often carry one); every third has a picture. Prints the median and p95
wall ms and the median CPU ms of a page load (the first load apart: it fills the cache), of the
tiles alone, and of the tiles with the cache emptied before each load (as before it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import _harness


def card_data(index: int, entries: int) -> dict:
    lore = "The drowned city keeps its bells ringing under the tide. " * 8
    return {"name": f"Keeper {index:03d}",
            "base_persona": f"Keeper {index} tends the lamp of Saltmere. " * 40,
            "greeting": "The lamp is lit. " * 30,
            "card": {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
                "name": f"Keeper {index:03d}", "creator_notes": f"Keeper {index}, a sailor.",
                "character_book": {"entries": [
                    {"keys": [f"bell{n}", f"tide{n}"], "content": lore, "enabled": True,
                     "insertion_order": n, "id": n} for n in range(entries)]}}},
            "visibility": "private"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=100)
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--book-entries", type=int, default=50)
    args = parser.parse_args()
    with _harness.data_dir_temp() as data_dir:
        _harness.app_setup(data_dir, instances=0)
        os.environ.update(_harness.base_env(data_dir))
        import django

        django.setup()
        # The app's modules read Django settings when imported: only after setup, in this folder.
        from django.contrib.auth import get_user_model
        from django.test import Client

        from library import library_tiles, selectors
        from library.avatars import avatar_write
        from library.character_services import character_save
        from personalab.lib.filestore.cache import FileParseCache
        from personalab.storage import get_store
        from tests.png_files import tiny_png

        store = get_store()
        user = get_user_model().objects.get(username=_harness.USERNAME)
        for index in range(args.characters):
            character_id = character_save(store, data=card_data(index, args.book_entries),
                                          character_id=None, user=user)
            if index % 3 == 0:
                avatar_write(store.character_dir(character_id), tiny_png(), "png")
        sizes = [(store.character_dir(c) / "definition.json").stat().st_size
                 for c in store.character_ids()]
        client = Client()
        client.force_login(user)

        def timed(work) -> tuple[float, float]:
            """(wall ms, CPU ms of this process): CPU is steadier when others share the cores."""
            wall, cpu = time.perf_counter(), time.process_time()
            work()
            return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000

        def page_load() -> None:
            response = client.get("/library/")
            assert response.status_code == 200, response.status_code

        def tiles_load() -> None:
            visible = list(selectors.characters_visible_to(user=user))
            library_tiles.character_tiles(store, characters=visible)

        def tiles_load_cold() -> None:
            library_tiles.BLURBS = FileParseCache()  # as before the cache: every card parsed
            tiles_load()

        first = timed(page_load)
        runs = {name: [timed(work) for _ in range(args.loads)] for name, work in
                (("page", page_load), ("tiles", tiles_load), ("tiles_cold", tiles_load_cold))}

        def p95(values: list[float]) -> float:
            return sorted(values)[max(0, round(0.95 * len(values)) - 1)]

        figures = {"characters": len(sizes),
                   "definition_kb_median": round(statistics.median(sizes) / 1024),
                   "loads": args.loads, "first_page_ms": round(first[0], 1)}
        for name, values in runs.items():
            walls, cpus = [w for w, _ in values], [c for _, c in values]
            figures.update({f"{name}_ms_p50": round(statistics.median(walls), 1),
                            f"{name}_ms_p95": round(p95(walls), 1),
                            f"{name}_cpu_ms_p50": round(statistics.median(cpus), 1)})
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
