"""Reads that decide whose memory a search may see."""

from __future__ import annotations

import threading
from typing import Any

from personalab.lib.filestore import FileStore, StoreError

Story = tuple[str, str, str]  # owner, character_id, background_id

# (instance_state.json path, its mtime_ns) -> the story it named: a director turn then stats
# every instance file but reads only the ones that changed (1,000 instances: ~150 ms -> ~10 ms).
_stories: dict[str, tuple[int, Story]] = {}
_stories_lock = threading.Lock()


def _story(state: dict[str, Any]) -> Story:
    return (str(state.get("owner") or ""), str(state.get("character_id") or ""),
            str(state.get("background_id") or ""))


def _story_of(store: FileStore, instance_id: str) -> Story | None:
    path = store.instance_dir(instance_id) / "instance_state.json"
    try:
        mtime = path.stat().st_mtime_ns
        with _stories_lock:
            cached = _stories.get(str(path))
        if cached is not None and cached[0] == mtime:
            return cached[1]
        story = _story(store.instance_state_read(instance_id))
    except (OSError, StoreError, ValueError):
        return None
    with _stories_lock:
        _stories[str(path)] = (mtime, story)
    return story


def reference_instance_ids(store: FileStore, *, instance_id: str,
                           instance_state: dict[str, Any]) -> list[str]:
    """The other instances whose events the director may cite as reference for `instance_id`:
    the same owner's, with the same character and background. Read from the instance files
    (the truth, and what `reindex` rebuilds from), so events Chroma stored before owners were
    checked are scoped as well. An instance without an owner has no references."""
    story = _story(instance_state)
    if not story[0]:
        return []
    return [other_id for other_id in store.instance_ids()
            if other_id != instance_id and _story_of(store, other_id) == story]
