"""The Django side's handle on the file store: one place that knows the data folder and
which instance lock the deployment uses (Redis when REDIS_URL is set, else flock)."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings

from personalab.lib.filestore.store import FileStore
from personalab.lib.locks import LockFactory, flock_factory, redis_lock_factory


@lru_cache(maxsize=4)
def _lock_factory(redis_url: str) -> LockFactory:
    return redis_lock_factory(redis_url) if redis_url else flock_factory


def get_store() -> FileStore:
    return FileStore(settings.PERSONALAB_DATA_DIR,
                     lock_factory=_lock_factory(getattr(settings, "REDIS_URL", "")))
