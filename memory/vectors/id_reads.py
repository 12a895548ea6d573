"""Chroma reads by id in batches of at most ID_BATCH ids (docs/performance.md, "Chroma reads
by id").

Embedded Chroma's native heap grew with the size of the reads by id it answered, and did not
give it back: a search read its candidates' documents (up to 1,200) in one call, and a long
chat's server grew ~0.4 MB a turn for as long as the chat went on. Read in batches of 64, the
same turns grew a sixth of that (bench/chroma_rss.py)."""

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
