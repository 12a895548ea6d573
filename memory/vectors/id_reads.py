"""Chroma reads by id in batches of at most ID_BATCH ids (docs/performance.md, "A long chat's
memory").

Embedded Chroma's native heap grew with the size of its reads by id (most at a read larger than
any before) and did not give it back: a search read all its candidates' documents in one call
(up to 1,200 ids), so a chat longer than any before grew the server's heap ~0.3 MB a turn. In
batches of 64 the same turns grew it 0.04 MB a turn (bench/ws_play_long.py; in one process:
bench/chroma_rss.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ID_BATCH = 64


def ids_get(get: Callable[..., dict[str, Any]], ids: list[str], *, include: list[str]
            ) -> dict[str, Any]:
    """What `get(ids=…, include=…)` (a collection's get) answers for `ids` (repeats read
    once), read in batches of at most ID_BATCH: "ids" and the included fields."""
    wanted = list(dict.fromkeys(ids))
    merged: dict[str, Any] = {"ids": [], **{name: [] for name in include}}
    for start in range(0, len(wanted), ID_BATCH):
        got = get(ids=wanted[start:start + ID_BATCH], include=include)
        merged["ids"].extend(got["ids"])
        for name in include:
            merged[name].extend(got[name] or [])
    return merged
