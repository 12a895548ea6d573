"""Biography paragraphs of the instance's character (seed 003 §3.4), added by hand or kept from
the evolved persona."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

from memory.action_base import main_character
from memory.errors import MemoryActionError
from memory.item_lists import (
    item_remove,
    item_reorder,
    item_text_checked,
    item_update,
    items_doc_read,
)
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import random_id

BIOGRAPHY_FILE = "biography"


def biography_items(store: FileStore, *, instance_id: str,
                    character_id: str | None = None) -> list[dict[str, Any]]:
    """The biography paragraphs; with `character_id`, only that character's (seed 003 §3.4:
    keyed by character — after the first member left, the next one does not inherit them).
    Items from before this was recorded belong to whoever is the instance's character."""
    items = items_doc_read(store, instance_id, BIOGRAPHY_FILE, strict=False)["items"]
    if character_id is None:
        return items
    return [item for item in items if item.get("character_id", character_id) == character_id]



def biography_add(store: FileStore, *, instance_id: str, text: str, source: str = "manual",
                  position: int | None = None) -> dict[str, Any]:
    data = items_doc_read(store, instance_id, BIOGRAPHY_FILE, strict=True)
    item = {"id": random_id("bio"), "text": item_text_checked(text), "created_at": utc_now(),
            "source": source, "character_id": main_character(store, instance_id)}
    items = data["items"]
    items.insert(len(items) if position is None else min(max(position, 0), len(items)), item)
    store.memory_json_write(instance_id, BIOGRAPHY_FILE, data)
    return item


def biography_update(store: FileStore, *, instance_id: str, item_id: str,
                     text: str) -> dict[str, Any]:
    return item_update(store, instance_id, BIOGRAPHY_FILE, item_id, text)


def biography_remove(store: FileStore, *, instance_id: str, item_id: str) -> dict[str, Any]:
    return item_remove(store, instance_id, BIOGRAPHY_FILE, item_id)


def biography_reorder(store: FileStore, *, instance_id: str, item_id: str,
                      new_index: int) -> list[dict[str, Any]]:
    return item_reorder(store, instance_id, BIOGRAPHY_FILE, item_id, new_index)


def biography_from_persona(store: FileStore, *, instance_id: str) -> list[dict[str, Any]]:
    """Keep the current evolved persona as biography paragraphs (one item per paragraph)."""
    persona = store.character_state_read(instance_id).get("evolved_persona", "")
    paragraphs = [part.strip() for part in re.split(r"\n\s*\n|\n", persona) if part.strip()]
    if not paragraphs:
        raise MemoryActionError(gettext("The evolved persona is still empty: there are no "
                                        "paragraphs to keep in the biography."), code="empty",
                                status=409)
    data = items_doc_read(store, instance_id, BIOGRAPHY_FILE, strict=True)
    now = utc_now()
    character_id = main_character(store, instance_id)
    added = [{"id": random_id("bio"), "text": text, "created_at": now, "source": "persona",
              "character_id": character_id} for text in paragraphs]
    data["items"].extend(added)
    store.memory_json_write(instance_id, BIOGRAPHY_FILE, data)
    return added
