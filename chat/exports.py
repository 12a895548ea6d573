"""Chat exports and imports, at most N at once per account: a few exports of a 100k-message
chat each hold a worker thread for seconds, so one account may not take them all (a 429 with a
sentence past PERSONALAB_EXPORTS_PER_ACCOUNT / PERSONALAB_IMPORTS_PER_ACCOUNT). An export runs in
a worker process (chat/export_process.py), away from the lock other accounts' requests share."""

from __future__ import annotations

from django.conf import settings

from chat import services
from chat.export_process import session_export_apart
from personalab.lib.busy import busy_slot
from personalab.storage import get_store


def session_export_limited(user, *, instance_id: str, session_id: str, fmt: str,
                           character: str | None) -> tuple[bytes, str]:
    """`services.session_export` for `user`, in one of the account's export slots."""
    store = get_store()
    services.instance_for_user(user, instance_id)
    services.session_live_check(store, instance_id=instance_id, session_id=session_id)
    with busy_slot(store.root / "busy", account=user.get_username(), action="export",
                   slots=settings.PERSONALAB_EXPORTS_PER_ACCOUNT, what="exports"):
        return session_export_apart(instance_id=instance_id, session_id=session_id, fmt=fmt,
                                    character=character)


def session_import_limited(user, *, instance_id: str, data: bytes) -> tuple[str, dict]:
    """`services.session_import` for `user`, in one of the account's import slots."""
    store = get_store()
    services.instance_for_user(user, instance_id)
    with busy_slot(store.root / "busy", account=user.get_username(), action="import",
                   slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
        return services.session_import(store, instance_id=instance_id, data=data)
