"""The Django side's handle on the file store: one place that knows the data folder."""

from __future__ import annotations

from django.conf import settings

from personalab.lib.filestore import FileStore


def get_store() -> FileStore:
    return FileStore(settings.PERSONALAB_DATA_DIR)
