"""After a transactional test (`django_db(transaction=True)`), Django empties every table and
then sends `post_migrate`, whose receivers (auth's permissions, contenttypes' types) look up
each app's models and write the same rows again: about 45 ms of CPU per test, with some 700
such tests in the suite (issue 31). The rows they write depend only on the installed models, so
the first flush of a test process sends the signal as Django does and keeps what it wrote; each
later flush writes those rows back (same ids) in two inserts."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management.commands import flush
from django.core.management.sql import emit_post_migrate_signal

_kept: dict[str, tuple[list[ContentType], list[Permission]]] = {}


def _post_flush(verbosity: int, interactive: bool, db: str, **kwargs: Any) -> None:
    if db not in _kept:
        emit_post_migrate_signal(verbosity, interactive, db, **kwargs)
        _kept[db] = (list(ContentType.objects.using(db).order_by("pk")),
                     list(Permission.objects.using(db).order_by("pk")))
        return
    types, permissions = _kept[db]
    ContentType.objects.using(db).bulk_create(types)
    Permission.objects.using(db).bulk_create(permissions)


def flush_keeps_post_migrate_rows() -> None:
    flush.emit_post_migrate_signal = _post_flush
