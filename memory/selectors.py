"""Reads that decide whose memory a search may see."""

from __future__ import annotations

from typing import Any

from personalab.lib.filestore import FileStore, StoreError


def reference_instance_ids(store: FileStore, *, instance_id: str,
                           instance_state: dict[str, Any]) -> list[str]:
    """The other instances whose events the director may cite as reference for `instance_id`:
    the same owner's, with the same character and background. Read from the instance files
    (the truth, and what `reindex` rebuilds from), so events Chroma stored before owners were
    checked are scoped as well. An instance without an owner has no references."""
    owner = instance_state.get("owner")
    if not owner:
        return []
    story = (instance_state.get("character_id") or "", instance_state.get("background_id") or "")
    found = []
    for other_id in store.instance_ids():
        if other_id == instance_id:
            continue
        try:
            other = store.instance_state_read(other_id)
        except (StoreError, ValueError):
            continue
        if other.get("owner") == owner and (other.get("character_id") or "",
                                            other.get("background_id") or "") == story:
            found.append(other_id)
    return found
