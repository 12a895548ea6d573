"""The staff's Deleted items list with --items kept copies in the trash (characters, five
owners' deletes, each copy with its note and its claimed empty folder, as a delete leaves
them): the list's time for staff and for one owner, first (the notes read) and again.

    .venv/bin/python bench/trash_listing.py [--items 30000] [--reps 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t

OWNERS = ("ann", "bo", "cy", "di", "ed")


def _trash_fill(root: Path, items: int) -> None:
    start = datetime(2026, 12, 2, tzinfo=UTC)
    for n in range(items):
        stamp = (start + timedelta(seconds=n)).strftime("%Y%m%dT%H%M%S%fZ")
        kept = root / "trash" / "characters" / f"char_gone{n}.{stamp}"
        kept.mkdir(parents=True)
        (kept / ".trashed.json").write_text(
            f'{{"owner": "{OWNERS[n % len(OWNERS)]}", "name": "Gone {n}", '
            f'"deleted_at": "{stamp}"}}')
        (root / "characters" / f"char_gone{n}").mkdir(parents=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=30_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        # After Django's set-up, as the other benches' app imports.
        from django.contrib.auth import get_user_model

        from library.trash import trash_listed
        from personalab.lib.filestore.store import FileStore

        users = get_user_model().objects
        for name in OWNERS:
            user = users.create_user(name, password="bench-password-123")
            users.filter(pk=user.pk).update(date_joined=datetime(2026, 1, 1, tzinfo=UTC))
        staff = users.create_user("staff", password="bench-password-123", is_staff=True)
        _trash_fill(data_dir, args.items)
        store = FileStore(data_dir)
        for who, user in (("staff", staff), ("one owner", users.get(username="ann"))):
            took = []
            for _ in range(args.reps + 1):
                started = time.perf_counter()
                listed = trash_listed(store, user=user)
                took.append(time.perf_counter() - started)
            print(f"trash_listing items={args.items} who={who!r} listed={len(listed)} "
                  f"first_s={took[0]:.3f} again_median_s={statistics.median(took[1:]):.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
