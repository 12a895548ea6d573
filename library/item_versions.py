"""A short fingerprint of a character or background as stored: its editor sends back the one it
was shown, and a save made meanwhile elsewhere (another tab, device or author) is not silently
undone (as a lorebook's, library/lore/services.py). What the page changes in place, beside the
editor's own form, is left out of the page's: a background's outline points are saved one by
one on its page, and the form never writes them. The REST API's `seen` covers the whole item,
outline included, and a save that changes the outline must send that one: the page's would let
an outline read before another tab's edit overwrite it."""

from __future__ import annotations

import json
from typing import Any

from django.utils.crypto import salted_hmac

from library.errors import ItemChanged

IN_PLACE = {"character": (), "background": ("story_outline",)}


def item_version(item: dict[str, Any], kind: str, *, whole: bool = False) -> str:
    """`whole`: the REST API's, with what the page edits in place."""
    left_out = () if whole else IN_PLACE[kind]
    kept = {key: value for key, value in item.items() if key not in left_out}
    # Keyed with the site's secret: a reader of a shared item is shown the fingerprint of what
    # is kept from them (a private book's link, the card's file name), which a plain digest
    # let them test guesses of offline.
    return salted_hmac("personalab.item_version", json.dumps(kept, sort_keys=True, default=str),
                       algorithm="sha256").hexdigest()[:16]


def item_version_check(existing: dict[str, Any], kind: str, seen: str | None, *,
                       in_place_changed: bool = False) -> None:
    """Refuse a save whose editor was shown another version than the one stored.
    `in_place_changed`: the save changes what the page edits in place (a background's
    outline), which only the whole item's `seen` vouches for."""
    if not seen or not existing or seen == item_version(existing, kind, whole=True):
        return
    if seen != item_version(existing, kind):
        raise ItemChanged(f"the {kind} was saved elsewhere since this editor opened it")
    if in_place_changed:
        raise ItemChanged(f"the {kind}'s {' and '.join(IN_PLACE[kind])} was sent with a "
                          "`seen` that does not cover it (the editor page's); send the `seen` "
                          f"GET /api/v1/{kind}s/{{id}} shows")
