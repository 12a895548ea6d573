"""One page of a list whose items may each be megabytes of text (characters, backgrounds): at
most `limit` items and about PAGE_MAX_BYTES of them, so one call, or a few at once, never holds
another account's hundreds of large shared items in the server's memory (docs/api.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from django.db.models import QuerySet
from django.utils.translation import gettext

from personalab.lib.errors import Invalid

LIMIT_DEFAULT = 200
LIMIT_MAX = 1000
PAGE_MAX_BYTES = 8 * 1024 * 1024
PAGE_HELP = (f"`offset` (the `next_offset` of the page before) and `limit` (at most {LIMIT_MAX}, "
             f"{LIMIT_DEFAULT} when left out); a page also ends once its items pass "
             f"{PAGE_MAX_BYTES // (1024 * 1024)} MB, with one item at least")


def page_read(rows: QuerySet, *, id_field: str, read: Callable[[str], dict[str, Any]],
              offset: int, limit: int) -> dict[str, Any]:
    """`{"items", "total", "next_offset"}`: the page's items as `read` gives them, in the
    rows' order; `next_offset` is None on the last page."""
    if offset < 0:
        raise Invalid(gettext("offset must be 0 or more"), field="offset")
    if not 1 <= limit <= LIMIT_MAX:
        raise Invalid(gettext("limit must be from 1 to %(count)s") % {"count": LIMIT_MAX},
                      field="limit")
    total = rows.count()
    ids = list(rows.values_list(id_field, flat=True)[offset:offset + limit])
    items: list[dict[str, Any]] = []
    size = 0
    for item_id in ids:
        if items and size >= PAGE_MAX_BYTES:
            break
        item = read(item_id)
        size += len(orjson.dumps(item))
        items.append(item)
    end = offset + len(items)
    return {"items": items, "total": total, "next_offset": end if end < total else None}
