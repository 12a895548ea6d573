"""The chats that play a library item, read for library/chat_use.py (registered by
chat/apps.py): a delete refused while chats use it, copies kept for other accounts' chats."""

from __future__ import annotations

from chat.groups.members import members_of
from chat.models import ConversationParticipant, Instance
from library.chat_use import ChatRow
from library.selectors import ChatCharacters
from personalab.lib.store_errors import StoreError
from personalab.storage import get_store

SHOWN_CHARS = 60


def chats_playing(*, kind: str, item_id: str, as_member: bool) -> list[ChatRow]:
    rows = Instance.objects.filter(**{f"{kind}_id": item_id})
    if as_member and kind == "character":
        rows = rows | Instance.objects.filter(
            instance_id__in=ConversationParticipant.objects.filter(
                participant_id=item_id).values("instance_id"))
    values = rows.values_list("instance_id", "owner_id", "owner__username", "owner__is_staff")
    return [ChatRow(instance_id, owner_id, username, bool(staff))
            for instance_id, owner_id, username, staff in values.distinct()]


def characters_played(*, user_id: int, limit: int) -> list[str]:
    """The characters (and group members) of the account's `limit` newest chats, newest
    chat first (library/character_picker.py offers them before other shared ones)."""
    recent = list(Instance.objects.filter(owner_id=user_id).order_by("-created_at", "instance_id")
                  .values_list("instance_id", "character_id")[:limit])
    members: dict[str, list[str]] = {}
    for instance_id, participant_id in ConversationParticipant.objects.filter(
            instance_id__in=[instance_id for instance_id, _ in recent]).exclude(
            participant_id__startswith="player:").values_list("instance_id", "participant_id"):
        members.setdefault(instance_id, []).append(participant_id)
    played = (character_id for instance_id, first in recent
              for character_id in [first, *members.get(instance_id, [])] if character_id)
    return list(dict.fromkeys(played))


def chats_titled(instance_ids: list[str]) -> dict[str, str]:
    """A chat as its player knows it: the name they gave it and its characters, or its
    characters and the day it started (a delete refused for these chats names them so)."""
    store = get_store()
    titles = {}
    for instance_id in instance_ids:
        try:
            state = store.instance_state_read(instance_id)
        except StoreError:
            continue  # a broken chat is named by its id
        characters = ChatCharacters(store, state=state)
        who = " & ".join(m.name for m in members_of(store, state, characters))[:SHOWN_CHARS]
        name = str(state.get("name") or "").strip()[:SHOWN_CHARS]
        started = str(state.get("created_at") or "")[:10]
        titles[instance_id] = (f"\"{name}\" with {who}" if name else
                               f"the chat with {who}" + (f" started {started}" if started else ""))
    return titles
