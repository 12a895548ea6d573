"""How long the trash keeps deleted library items: PERSONALAB_TRASH_DAYS (30; 0: for ever).
A server removes older copies at its start and once a day after, on a thread of its own;
`manage.py purge_trash` does it by hand (docs/decisions/trash-retention.md)."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

from django.conf import settings

from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.trash_purge import trash_purge

log = logging.getLogger(__name__)
DAY_SECONDS = 24 * 60 * 60


def trash_purge_old(store: FileStore, *, days: int, dry_run: bool = False,
                    now: datetime | None = None) -> list[str]:
    """The kept copies deleted more than `days` days ago removed (0: every copy); those
    removed, as `{kind}/{id}.{stamp}` (with `dry_run`, those that would be)."""
    try:
        before = (now or datetime.now(UTC)) - timedelta(days=days)
    except OverflowError:  # before the calendar's first day: nothing was deleted that long ago
        return []
    return trash_purge(store.root, before=before, dry_run=dry_run)


def trash_purge_daily(store: FileStore) -> None:
    """For a server's thread: purge now, then every day, while PERSONALAB_TRASH_DAYS says to."""
    while settings.PERSONALAB_TRASH_DAYS > 0:
        try:
            purged = trash_purge_old(store, days=settings.PERSONALAB_TRASH_DAYS)
            if purged:
                log.info("trash: removed %d item(s) deleted more than %d days ago",
                         len(purged), settings.PERSONALAB_TRASH_DAYS)
        except OSError:  # the data folder unreadable for now: tomorrow's purge tries again
            log.exception("trash purge failed")
        time.sleep(DAY_SECONDS)
