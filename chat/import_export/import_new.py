"""A chat exported by another role-play app imported as a NEW chat with the character(s) the
player picks, from the library or a character's page (the chat drawer imports into the chat it
is in). The file is read before the chat is made: a bad file makes no empty chat, and the
imported chat is the new chat's only session (no greeting session beside it)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from chat.groups.speakers import STRATEGIES
from chat.import_export.chat_formats import ChatFormatError, ChatImport, chat_import
from chat.import_export.imported_groups import chat_group
from chat.services.instances import instance_create
from chat.services.session_import import session_import
from personalab.lib.busy import busy_slot
from personalab.storage import get_store

CHAT_IMPORT_MAX_BYTES = 10 * 1024 * 1024


def chat_import_new(user, *, character_ids: list[str], data: bytes,
                    background_id: str | None = None,
                    imported: ChatImport | None = None) -> tuple[str, str, dict[str, Any]]:
    """(new instance id, imported session id, import report) for `user`, in one of the
    account's import slots. `character_ids`: one character, or the members of a group, the
    first one the story's character. `imported`: `data` already read (by the check before)."""
    ids = [c for c in dict.fromkeys(c.strip() for c in character_ids) if c]
    if not ids:
        raise ChatFormatError("pick the character this chat is with")
    if len(data) > CHAT_IMPORT_MAX_BYTES:
        raise ChatFormatError("the chat file is larger than 10 MB")
    store = get_store()
    with busy_slot(store.root / "busy", account=user.get_username(), action="import",
                   slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
        imported = imported if imported is not None else chat_import(data)
        # A group exported from here says how its members took turns: kept for the new scene.
        group = chat_group(imported.original_header, imported.lines)
        order = group.reply_order
        instance_id = instance_create(store, owner=user, character_id=ids[0],
                                      character_ids=ids if len(ids) > 1 else None,
                                      background_id=background_id or None,
                                      reply_order=order if len(ids) > 1 and order in STRATEGIES
                                      else None, card_join=group.card_join,
                                      allow_self_responses=group.allow_self_responses)
        session_id, report = session_import(store, instance_id=instance_id, data=data,
                                            imported=imported, new_chat=True)
    return instance_id, session_id, report
