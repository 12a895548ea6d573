"""Names for the prompt inspector: the chat, its lorebooks and their entries as a player knows
them (title, book name, entry comment or keys), never their ids (issue 33 item 4)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from chat.members import members_of
from library.selectors import ChatCharacters
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

KEYS_SHOWN = 3  # an entry without a comment is named by its first few keys


def trace_chat_name(store: FileStore, instance_id: str) -> str:
    """The chat's own name, else its characters' names."""
    try:
        state = store.instance_state_read(instance_id)
    except StoreError:
        return gettext("this chat")
    name = str(state.get("name") or "").strip()
    if name:
        return name
    members = members_of(store, state, ChatCharacters(store, state=state))
    return " & ".join(m.name for m in members) or gettext("this chat")


def trace_lore_named(store: FileStore, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fired entry with `book` (its lorebook's name) and `entry` (its comment, or its
    first keys) for the page to show in place of `lorebook_id #uid`."""
    books: dict[str, str] = {}
    named = []
    for entry in entries:
        book_id = str(entry.get("lorebook_id") or "")
        if book_id not in books:
            try:
                books[book_id] = str(store.lorebook_read(book_id).get("name") or "").strip()
            except (StoreError, ValueError):
                books[book_id] = ""
        keys = entry.get("keys") or entry.get("key") or []
        keys = [str(k) for k in keys] if isinstance(keys, list) else [str(keys)]
        label = (str(entry.get("comment") or "").strip()
                 or ", ".join(k for k in keys[:KEYS_SHOWN] if k)
                 or gettext("an entry without keys"))
        named.append({**entry, "book": books[book_id] or gettext("a lorebook no longer there"),
                      "entry": label})
    return named
