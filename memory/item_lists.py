"""Editable item lists kept as memory JSON files (biography, recaps): read, edit, remove,
reorder one item. Readers fall back to empty on a damaged file; writers refuse it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from memory.errors import MemoryActionError
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import CorruptFile


def items_doc_read(store: FileStore, instance_id: str, name: str, *,
                   strict: bool) -> dict[str, Any]:
    """Readers fall back to empty on a damaged file (the chat goes on); writers refuse, so a
    damaged file is never overwritten."""
    try:
        data = store.memory_json_read(instance_id, name, {"items": []})
    except CorruptFile as exc:
        if strict:
            raise MemoryActionError(gettext("%(name)s.json is damaged; nothing was changed: "
                                            "%(error)s") % {"name": name, "error": exc}) from exc
        return {"items": []}
    if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
        if strict:
            raise MemoryActionError(gettext("%(name)s.json has the wrong shape (an items list is "
                                            "needed); nothing was changed.") % {"name": name})
        return {"items": []}
    data["items"] = [item for item in data.get("items", [])
                     if isinstance(item, dict) and isinstance(item.get("id"), str)]
    return data


def item_position(items: list[dict[str, Any]], item_id: str) -> int:
    for position, item in enumerate(items):
        if item["id"] == item_id:
            return position
    raise MemoryActionError(f"there is no item {value_shown(item_id)}", code="not_found",
                            status=404, fields={"item_id": "not found"})


# As the page's boxes say (maxlength) and a character's pinned prompt takes: a request's 12 MB
# went into the file whole, and into every later read of the memory page.
ITEM_MAX_CHARS = 20_000


def item_text_checked(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise MemoryActionError(gettext("The text must not be empty."), code="invalid", status=400,
                                fields={"text": "required"})
    text = text.strip()
    if len(text) > ITEM_MAX_CHARS:
        raise MemoryActionError(
            gettext("The text is %(count)s characters; at most %(limit)s fit.")
            % {"count": len(text), "limit": ITEM_MAX_CHARS}, code="too_long", status=400,
            fields={"text": f"at most {ITEM_MAX_CHARS} characters"})
    return text


def item_update(store: FileStore, instance_id: str, name: str, item_id: str,
                 text: str) -> dict[str, Any]:
    data = items_doc_read(store, instance_id, name, strict=True)
    item = data["items"][item_position(data["items"], item_id)]
    item.update(text=item_text_checked(text), updated_at=utc_now())
    # A text saved by hand answers a change of the turns it was written from.
    item.pop("source_changed", None)
    store.memory_json_write(instance_id, name, data)
    return item


def item_remove(store: FileStore, instance_id: str, name: str, item_id: str) -> dict[str, Any]:
    data = items_doc_read(store, instance_id, name, strict=True)
    removed = data["items"].pop(item_position(data["items"], item_id))
    store.memory_json_write(instance_id, name, data)
    return removed


def item_reorder(store: FileStore, instance_id: str, name: str, item_id: str,
                  new_index: int) -> list[dict[str, Any]]:
    data = items_doc_read(store, instance_id, name, strict=True)
    items = data["items"]
    item = items.pop(item_position(items, item_id))
    items.insert(min(max(new_index, 0), len(items)), item)
    store.memory_json_write(instance_id, name, data)
    return items
