"""Reads that decide whose memory a search may see: whether recall is on, whose conversations,
and within one conversation which lines a member witnessed (issue 15: each remembers only what
it saw)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from personalab.lib.filestore.store import FileStore
from personalab.lib.membership import Presence, member_changes_read, presence_of
from personalab.lib.participants import member_ids
from personalab.lib.store_errors import StoreError


def recall_enabled(store: FileStore) -> bool:
    """Recall's switch (the settings page): off, nothing is embedded or searched; the ledgers
    keep what the next sync indexes once it is on again."""
    return bool(store.module_read("memory").get("recall_enabled", True))


Story = tuple[str, str, frozenset[str]]  # owner, background_id, the characters taking part

# (instance_state.json path, its mtime_ns) -> the story it named: a director turn then stats
# every instance file but reads only the ones that changed (1,000 instances: ~150 ms -> ~10 ms).
_stories: dict[str, tuple[int, Story]] = {}
_stories_lock = threading.Lock()


def _story(state: dict[str, Any], left: tuple[str, ...] = ()) -> Story:
    return (str(state.get("owner") or ""), str(state.get("background_id") or ""),
            frozenset([*member_ids(state), *left]))


def _members_who_left(store: FileStore, instance_id: str) -> tuple[str, ...]:
    return tuple(str(r.get("character_id")) for r in member_changes_read(store, instance_id)
                 if r.get("action") == "remove" and r.get("character_id"))


def _story_of(store: FileStore, instance_id: str) -> Story | None:
    path = store.instance_dir(instance_id) / "instance_state.json"
    try:
        mtime = path.stat().st_mtime_ns
        with _stories_lock:
            cached = _stories.get(str(path))
        if cached is not None and cached[0] == mtime:
            return cached[1]
        # A member change always rewrites instance_state.json, so its mtime covers the journal.
        story = _story(store.instance_state_read(instance_id),
                       _members_who_left(store, instance_id))
    except (OSError, StoreError, ValueError):
        return None
    with _stories_lock:
        _stories[str(path)] = (mtime, story)
    return story


def reference_instance_ids(store: FileStore, *, instance_id: str, instance_state: dict[str, Any],
                           character_id: str | None = None) -> list[str]:
    """The other conversations whose events the director may cite for `instance_id`: the same
    owner's, with the same background, that `character_id` (the one answering; default the
    instance's character) took part in. Read from the instance files (the truth, and what
    `reindex` rebuilds from), so events Chroma stored before owners were checked are scoped as
    well. An instance without an owner has no references."""
    return character_conversation_ids(
        store, instance_state=instance_state,
        character_id=character_id or str(instance_state.get("character_id") or ""),
        exclude=instance_id)


def character_conversation_ids(store: FileStore, *, instance_state: dict[str, Any],
                               character_id: str, exclude: str = "") -> list[str]:
    """The owner's conversations in the background of `instance_state` that `character_id`
    took part in (a member now or before), `exclude` left out; what it may recall of them is
    what it witnessed there (recall_witnessed)."""
    owner, background, _ = _story(instance_state)
    if not owner or not character_id:
        return []
    found = []
    for other_id in store.instance_ids():
        story = _story_of(store, other_id)
        if other_id != exclude and story is not None and story[:2] == (owner, background) \
                and character_id in story[2]:
            found.append(other_id)
    return found


def member_presence(store: FileStore, *, instance_id: str, character_id: str) -> Presence:
    """When `character_id` was in the conversation, from its journal of member changes."""
    try:
        records = member_changes_read(store, instance_id)
    except (StoreError, ValueError):
        records = []
    return presence_of(records, character_id)


def recall_witnessed(store: FileStore, *,
                     character_id: str) -> Callable[[Mapping[str, Any]], bool]:
    """Whether `character_id` witnessed a recalled document (its metadata): a line said while
    it was in that conversation, or a summary of lines it spoke in (or, for a member there from
    the start, made while it was still there). A member absent from a conversation's start does
    not recall what was said before it joined, nor while it was away; muted members hear all."""
    presences: dict[str, Presence] = {}

    def witnessed(metadata: Mapping[str, Any]) -> bool:
        instance_id = str(metadata.get("instance_id") or "")
        if instance_id not in presences:
            presences[instance_id] = member_presence(store, instance_id=instance_id,
                                                     character_id=character_id)
        presence = presences[instance_id]
        if presence.spans == ((None, None),):
            return True
        if "role" in metadata and "turn" in metadata:
            return presence.saw(timestamp=str(metadata.get("timestamp") or ""),
                                session_id=str(metadata.get("session_id") or ""),
                                turn=metadata.get("turn"))
        if character_id in str(metadata.get("speakers") or "").split("|"):
            return True
        return presence.from_start and presence.saw(
            timestamp=str(metadata.get("created_at") or ""))
    return witnessed


# A recap covering more turns than this is checked at its two ends only.
RECAP_TURNS_CHECKED = 1000
# How many branchings back recall_on_timeline follows a session's sources.
BRANCHES_FOLLOWED = 100


def recaps_witnessed(store: FileStore, *, instance_id: str, character_id: str,
                     items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recaps `character_id` may be given: those of turns all said while it was in the
    conversation. A member that joined later, or was away for part of a recap, is not told what
    it did not hear (as recall_witnessed keeps the recalled lines)."""
    presence = member_presence(store, instance_id=instance_id, character_id=character_id)
    if presence.spans == ((None, None),):
        return items
    return [item for item in items if _recap_heard(item, presence)]


def _recap_heard(item: dict[str, Any], presence: Presence) -> bool:
    first, last = item.get("from_turn"), item.get("to_turn")
    made = str(item.get("created_at") or "")
    session = str(item.get("session_id") or "")
    if not (isinstance(first, int) and isinstance(last, int)):
        return presence.from_start and presence.saw(timestamp=made)
    first_session = str(item.get("from_session_id") or session)
    turns = (range(first, last + 1) if first_session == session
             and 0 <= last - first <= RECAP_TURNS_CHECKED else ())
    return (presence.saw(timestamp=made, session_id=first_session, turn=first)
            and presence.saw(timestamp=made, session_id=session, turn=last)
            and all(presence.saw(timestamp=made, session_id=session, turn=turn) for turn in turns))


def recall_on_timeline(store: FileStore, *, instance_id: str,
                       session_id: str) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a recalled document is on the timeline of `session_id`. A branch holds copies of
    its source's lines up to the branch point, and the source's later lines are the future the
    branch turned away from: no line of a session it branched from (or they from) is recalled.
    Their summaries still are: a summary does not say which turns it covers."""
    sources: list[set[str]] = []  # read at the first document asked about: most turns recall none

    def on_timeline(metadata: Mapping[str, Any]) -> bool:
        if not sources:
            sources.append(_branched_from(store, instance_id, session_id))
        return not ("role" in metadata and str(metadata.get("instance_id")) == instance_id
                    and str(metadata.get("session_id")) in sources[0])
    return on_timeline


def _branched_from(store: FileStore, instance_id: str, session_id: str) -> set[str]:
    sources: set[str] = set()
    current = session_id
    while len(sources) < BRANCHES_FOLLOWED:
        try:
            origin = store.session_read_head(instance_id, current).metadata.get("branched_from")
        except (StoreError, OSError, ValueError):
            break
        source = origin.get("session_id") if isinstance(origin, dict) else None
        if not isinstance(source, str) or source in sources or source == session_id:
            break
        sources.add(source)
        current = source
    return sources
