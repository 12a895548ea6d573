"""Chat exports, imports and regroups, at most N at once per account: a few exports of a
100k-message chat each hold a worker thread for seconds, so one account may not take them all (a
429 with a sentence past PERSONALAB_EXPORTS_PER_ACCOUNT / PERSONALAB_IMPORTS_PER_ACCOUNT; a regroup
counts as an import). An export runs in a worker process (chat/import_export/export_process.py),
away from the lock other accounts' requests share."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header

from chat.groups.members import members_of, members_title
from chat.import_export.export_process import session_export_apart
from chat.services.instances import instance_for_user
from chat.services.session_export import session_regroup
from chat.services.session_import import session_import
from chat.services.sessions import session_live_check
from chat.templatetags.sessions import session_label
from personalab.lib.busy import busy_slot
from personalab.storage import get_store

# A body larger than this goes out a piece at a time. Django's ASGI handler writes a whole body
# in one step of the event loop (Daphne's send never waits), and a 44 MB export held every other
# account's request for 2.3 s (bench/cross_account.py with PYTHONASYNCIODEBUG=1).
STREAM_OVER = 1 << 20
PIECE = 1 << 18


async def _pieces(body: bytes) -> AsyncIterator[bytes]:
    view = memoryview(body)
    for start in range(0, len(body), PIECE):
        yield bytes(view[start:start + PIECE])
        await asyncio.sleep(0)  # the other requests on the loop run between two pieces


def export_response(body: bytes, *, content_type: str, filename: str) -> HttpResponse:
    response = (StreamingHttpResponse(_pieces(body), content_type=content_type)
                if len(body) > STREAM_OVER else HttpResponse(body, content_type=content_type))
    response["Content-Length"] = str(len(body))
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


# Characters a file name may not hold on one system or another; a name is cut at this length.
_NOT_IN_FILE_NAMES = dict.fromkeys(map(ord, '/\\:*?"<>|'), " ")
_FILE_NAME_CHARS = 80


def export_filename(*, instance_id: str, session_id: str, fmt: str,
                    character: str | None) -> str:
    """'Lin Yue - conversation 2.jsonl': whose chat it is, as SillyTavern names its exports, and
    the conversation as the page names it (in the page's language), never its internal id."""
    store = get_store()
    state = store.instance_state_read(instance_id)
    members = members_of(store, state)
    chosen = [m.name for m in members if m.character_id == character]
    who = (chosen[0] if chosen else members_title(members)
           or (members[0].name if members else state.get("character_id", "")))
    shown = _file_name_part(who)
    which = _file_name_part(session_label(session_id)) or "chat"
    return f"{shown} - {which}.{fmt}" if shown else f"{which}.{fmt}"


def _file_name_part(text: str) -> str:
    """`text` as a piece of a file name on every system: unsafe and unprintable characters
    out, spaces collapsed, cut to `_FILE_NAME_CHARS`."""
    kept = "".join(c for c in text.translate(_NOT_IN_FILE_NAMES) if c.isprintable())
    return " ".join(kept.split())[:_FILE_NAME_CHARS].strip(" .")


def session_export_limited(user, *, instance_id: str, session_id: str, fmt: str,
                           character: str | None) -> tuple[bytes, str]:
    """`session_export` for `user`, in one of the account's export slots."""
    store = get_store()
    instance_for_user(user, instance_id)
    session_live_check(store, instance_id=instance_id, session_id=session_id)
    with busy_slot(store.root / "busy", account=user.get_username(), action="export",
                   slots=settings.PERSONALAB_EXPORTS_PER_ACCOUNT, what="exports"):
        return session_export_apart(instance_id=instance_id, session_id=session_id, fmt=fmt,
                                    character=character, account=user.get_username())


def session_import_limited(user, *, instance_id: str, data: bytes) -> tuple[str, dict]:
    """`session_import` for `user`, in one of the account's import slots."""
    store = get_store()
    instance_for_user(user, instance_id)
    with busy_slot(store.root / "busy", account=user.get_username(), action="import",
                   slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
        return session_import(store, instance_id=instance_id, data=data)


def session_regroup_limited(user, *, instance_id: str,
                            session_id: str) -> tuple[str, str, dict[str, Any]]:
    """`session_regroup` for `user` in one of the account's import slots (it reads, exports and
    imports a whole chat), its export within the account's share of the export workers."""
    store = get_store()
    instance_for_user(user, instance_id)
    account = user.get_username()

    def export(*, instance_id: str, session_id: str) -> bytes:
        return session_export_apart(instance_id=instance_id, session_id=session_id,
                                    fmt="jsonl", character=None, account=account)[0]

    with busy_slot(store.root / "busy", account=account, action="import",
                   slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
        return session_regroup(store, user=user, instance_id=instance_id,
                               session_id=session_id, export=export)
