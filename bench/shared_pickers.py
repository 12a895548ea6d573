"""Pickers beside another account's many shared characters: server ms of alice's home page and
of her character editor (both offer a character picker) when bob shares N characters, and the
size of those pages.

    .venv/bin/python bench/shared_pickers.py [--shared 1000 5000] [--names same|distinct]
                                             [--loads 7]

In one process with Django's test client (server time only, no network), on a new data folder
and SQLite index: alice has 20 characters of her own (one named "Alserqi"); bob shares N
characters, all named "Alserqi" (`same`: the namesakes every label must tell apart) or each its
own name (`distinct`). Made through the app's own service. Prints, per N, the median and the
fastest of `--loads` loads (the first load apart), the page's bytes and its <option> count, and
the median ms of a search of the REST route the pickers call when it exists
(GET /api/v1/characters/choices?q=alserqi). Runs against any checkout it is copied into (the
route missing is printed as such), so the same script measures before and after.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _setup(data_dir: str) -> None:
    os.environ["PERSONALAB_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")
    import django

    from tests.fsync_off import fsync_off

    fsync_off()  # making 5,000 characters; what is measured writes nothing
    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    call_command("migrate", verbosity=0)


def _timed(client, url: str, loads: int) -> tuple[float, float, bytes]:
    client.get(url)  # the first load fills caches
    times, body = [], b""
    for _ in range(loads):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        body = response.content
    return statistics.median(times), min(times), body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--names", choices=("same", "distinct"), default="same")
    parser.add_argument("--loads", type=int, default=7)
    args = parser.parse_args()
    _setup(tempfile.mkdtemp(prefix="shared_pickers_"))

    # Imported after _setup: Django's settings must point at the bench's own data folder first.
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from library.character_services import character_save
    from personalab.storage import get_store

    store = get_store()
    users = get_user_model()
    alice = users.objects.create_user("alice", password="bench-password-123")
    bob = users.objects.create_user("bob", password="bench-password-123")
    own = [character_save(store, user=alice, character_id=None, data={
        "name": "Alserqi" if n == 0 else f"Alice's {n:02d}", "base_persona": "Hers.",
        "greeting": "", "visibility": "private"}) for n in range(20)]
    client = Client()
    client.force_login(alice)
    urls = {"home": "/", "editor": reverse("character_edit", args=[own[0]])}
    made = 0
    print(f"alice: 20 own characters; bob's shared named {args.names!r}; "
          f"{args.loads} loads, ms median / fastest")
    for shared in [0, *sorted(args.shared)]:
        for n in range(made, shared):
            character_save(store, user=bob, character_id=None, data={
                "name": "Alserqi" if args.names == "same" else f"Bob's {n:05d}",
                "base_persona": f"Bob's shared character number {n}.", "greeting": "",
                "visibility": "shared"})
        made = max(made, shared)
        line = [f"bob shares {shared:>5}:"]
        for page, url in urls.items():
            median, fastest, body = _timed(client, url, args.loads)
            options = len(re.findall(rb"<option value=\"char_", body))
            ticks = len(re.findall(rb'name="character_ids" value="', body))
            line.append(f"{page} {median:7.1f} / {fastest:7.1f} ms, {len(body) // 1024:5d} KB, "
                        f"{options} options, {ticks} ticks;")
        answer = client.get("/api/v1/characters/choices", {"q": "alserqi"})
        if answer.status_code == 200:
            median, _, body = _timed(client, "/api/v1/characters/choices?q=alserqi", args.loads)
            line.append(f"search {median:5.1f} ms ({len(answer.json()['characters'])} found)")
        else:
            line.append(f"search route: {answer.status_code}")
        print(" ".join(line), flush=True)


if __name__ == "__main__":
    main()
