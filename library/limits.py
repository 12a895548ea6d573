"""Per-account limits on the heavy library paths, read from settings (defaults and reasons in
personalab/settings.py): entries per lorebook, CHARX sizes, imports running at once."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.conf import settings

from library.card_formats.charx import CharxLimits
from library.errors import LibraryError
from personalab.lib import errors
from personalab.lib.busy import Busy, busy_slot
from personalab.lib.filestore.store import FileStore


class TooMany(LibraryError):
    code, status = "too_many", 422


class ImportBusy(LibraryError, errors.Busy):
    """A LibraryError, so the library page shows it as it shows any refused import."""

    code, status = "busy", 429


def lore_entries_check(entries: Any) -> None:
    """A book past the cap is refused whole, at save and at import, before anything is written."""
    limit = settings.PERSONALAB_LORE_ENTRIES_MAX
    if isinstance(entries, list) and len(entries) > limit:
        raise TooMany(f"this lorebook has {len(entries)} entries; at most {limit} are kept in "
                      "one book: split it into several books",
                      {"entries": f"at most {limit} entries"})


def charx_limits() -> CharxLimits:
    return CharxLimits(max_bytes=settings.PERSONALAB_CHARX_MAX_BYTES,
                       unpacked_max_bytes=settings.PERSONALAB_CHARX_UNPACKED_MAX_BYTES,
                       max_ratio=settings.PERSONALAB_CHARX_MAX_RATIO)


@contextlib.contextmanager
def import_slot(store: FileStore, *, user) -> Iterator[None]:
    """One of the account's import slots (429 Busy when all are taken); the system: no limit."""
    if user is None:
        yield
        return
    try:
        with busy_slot(store.root / "busy", account=user.get_username(), action="import",
                       slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
            yield
    except Busy as exc:
        raise ImportBusy(exc.message) from None
