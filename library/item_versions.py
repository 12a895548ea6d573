"""A short fingerprint of a character or background as stored: its editor sends back the one it
was shown, and a save made meanwhile elsewhere (another tab, device or author) is not silently
undone (as a lorebook's, library/lore/services.py). What the page changes in place, beside the
editor's own form, is left out: a background's outline points are saved one by one on its page,
and the form never writes them."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from library.errors import ItemChanged

IN_PLACE = {"character": (), "background": ("story_outline",)}


def item_version(item: dict[str, Any], kind: str) -> str:
    kept = {key: value for key, value in item.items() if key not in IN_PLACE[kind]}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()[:16]


def item_version_check(existing: dict[str, Any], kind: str, seen: str | None) -> None:
    """Refuse a save whose editor was shown another version than the one stored."""
    if seen and existing and item_version(existing, kind) != seen:
        raise ItemChanged(f"the {kind} was saved elsewhere since this editor opened it")
