"""The conversation ledger's indexes (seed 003 §2.1, §3.6, §13): who took part in which
conversation (members who have left included). convKey = the sorted participant ids joined by
`|` (the participants now), the player as
`player:{username}` (usernames are what the instance files record, so the key survives a new
database). Two text files in the data folder are rebuilt by `reindex`; the DB rows mirror them.

    index/conversations_by_key.txt          {convKey}\t{instance_id}
    index/conversations_by_participant.txt  {participant_id}\t{instance_id}
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from django.utils.translation import gettext

from chat.models import ConversationParticipant, Instance
from library.character_labels import character_labels
from library.selectors import characters_visible_to
from personalab.lib.filestore.session_head import session_first_player_line
from personalab.lib.filestore.store import FileStore
from personalab.lib.membership import member_changes_read
from personalab.lib.participants import conv_key, participants_of, player_id
from personalab.lib.store_errors import StoreError

BY_KEY = "conversations_by_key.txt"
BY_PARTICIPANT = "conversations_by_participant.txt"


def took_part(store: FileStore, instance_id: str, instance_state: dict[str, Any]) -> list[str]:
    """Everyone who took part: the participants now, then the members who have left (from the
    journal of member changes). convKey is the set now; the participant index lists both."""
    participants = participants_of(instance_state)
    left = [r.get("character_id") for r in member_changes_read(store, instance_id)
            if r.get("action") == "remove"]
    return list(dict.fromkeys([*participants, *(c for c in left if isinstance(c, str) and c)]))


def conversation_index(store: FileStore, instance_id: str, instance_state: dict[str, Any]) -> None:
    """The DB rows of one conversation (called by instance_index)."""
    participants = took_part(store, instance_id, instance_state)
    key = conv_key(participants_of(instance_state))
    ConversationParticipant.objects.filter(instance_id=instance_id).exclude(
        participant_id__in=participants).delete()
    ConversationParticipant.objects.bulk_create(
        [ConversationParticipant(instance_id=instance_id, participant_id=participant,
                                 conv_key=key) for participant in participants],
        update_conflicts=True, unique_fields=["instance", "participant_id"],
        update_fields=["conv_key"])


def ledger_add(store: FileStore, instance_id: str, instance_state: dict[str, Any]) -> None:
    with _ledger_locked(store) as folder:
        by_key = [row for row in _rows(folder / BY_KEY) if row[1] != instance_id]
        by_participant = [row for row in _rows(folder / BY_PARTICIPANT) if row[1] != instance_id]
        by_key.append((conv_key(participants_of(instance_state)), instance_id))
        by_participant.extend((p, instance_id)
                              for p in took_part(store, instance_id, instance_state))
        _write(folder / BY_KEY, by_key)
        _write(folder / BY_PARTICIPANT, by_participant)


def ledger_rebuild(store: FileStore) -> int:
    """Both files again from every instance_state.json and journal of member changes (the
    truth)."""
    by_key, by_participant = [], []
    for instance_id in store.instance_ids():
        state = store.instance_state_read(instance_id)
        by_key.append((conv_key(participants_of(state)), instance_id))
        by_participant.extend((p, instance_id) for p in took_part(store, instance_id, state))
    with _ledger_locked(store) as folder:
        _write(folder / BY_KEY, by_key)
        _write(folder / BY_PARTICIPANT, by_participant)
    return len(by_key)


def ledger_read(store: FileStore) -> dict[str, list[tuple[str, str]]]:
    folder = store.root / "index"
    return {"by_key": _rows(folder / BY_KEY), "by_participant": _rows(folder / BY_PARTICIPANT)}


def conversations_with(*, user, participants: list[str]):
    """The user's own conversations whose participants are exactly `participants` (the user's
    player id is added when none is named: every conversation of theirs includes them)."""
    if not any(p.startswith("player:") for p in participants):
        participants = [*participants, player_id(user.get_username())]
    key = conv_key(participants)
    ids = ConversationParticipant.objects.filter(conv_key=key).values("instance_id")
    return _owned(user).filter(instance_id__in=ids)


def conversations_of(*, user, participant_id: str):
    ids = ConversationParticipant.objects.filter(participant_id=participant_id).values(
        "instance_id")
    return _owned(user).filter(instance_id__in=ids)


def participants_known(store: FileStore, *, user) -> list[dict[str, str]]:
    """Everyone who took part in one of the user's conversations, as {"id", "label"}: the
    characters by name, the player as "You"."""
    # The model's default ordering (instance first) would make DISTINCT keep one row per
    # conversation; ordered by the id alone it keeps one per participant.
    ids = (ConversationParticipant.objects.filter(instance__owner=user)
           .order_by("participant_id").values_list("participant_id", flat=True).distinct())
    names = _character_names(store, ids, user=user)
    labels = character_labels(names.items(), user=user)  # a player reads names, not ids
    known = [{"id": p, "label": gettext("You") if p.startswith("player:") else labels.get(p, p)}
             for p in ids]
    return sorted(known, key=lambda item: (item["id"].startswith("player:"), item["label"]))


def related_conversations(store: FileStore, *, user, participant_id: str) -> list[dict[str, Any]]:
    """The user's conversations that `participant_id` took part in (seed 003 §5 Tab4), newest
    first, each with its name and the names of its characters."""
    rows = list(conversations_of(user=user, participant_id=participant_id))
    members = {row.instance_id: [p.participant_id for p in row.participants.all()
                                 if not p.participant_id.startswith("player:")] for row in rows}
    names = _character_names(store, {c for ids in members.values() for c in ids}, user=user)
    found = []
    for row in rows:
        try:
            state = store.instance_state_read(row.instance_id)
        except (StoreError, ValueError):
            state = {}
        name = str(state.get("name") or "")
        found.append({"instance_id": row.instance_id, "name": name,
                      "first_line": "" if name else _first_line(store, row.instance_id, state),
                      "created_at": row.created_at,
                      "characters": [names.get(c, c) for c in members[row.instance_id]]})
    return found


def _first_line(store: FileStore, instance_id: str, state: dict[str, Any]) -> str:
    """How the player began the chat: untitled chats with one character are told apart by it."""
    try:
        path = store.session_path(instance_id, str(state.get("current_session_id") or ""))
    except ValueError:
        return ""
    return session_first_player_line(path)


def _character_names(store: FileStore, ids: Iterable[str], *, user) -> dict[str, str]:
    """Names as `user` may read them: the index for the characters they see, else the copy one
    of their chats kept when its author made it private (else the id stays)."""
    ids = list(ids)
    names = dict(characters_visible_to(user=user).filter(character_id__in=ids)
                 .values_list("character_id", "name"))
    for character_id in set(ids) - names.keys():
        chats = ConversationParticipant.objects.filter(
            instance__owner=user, participant_id=character_id).values_list("instance_id",
                                                                             flat=True)
        kept = next((copy for copy in (store.kept_copy_read(instance_id, "character",
                                                            character_id)
                                       for instance_id in chats) if copy and copy.get("name")),
                    None)
        if kept:
            names[character_id] = str(kept["name"])
    return names


def _owned(user):
    return Instance.objects.filter(owner=user).prefetch_related("participants")


@contextmanager
def _ledger_locked(store: FileStore) -> Iterator[Path]:
    folder = store.root / "index"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _rows(path: Path) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    rows = []
    for line in text.splitlines():
        left, tab, right = line.partition("\t")
        if tab and left and right:
            rows.append((left, right))
    return rows


def _write(path: Path, rows: list[tuple[str, str]]) -> None:
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.writelines(f"{left}\t{right}\n" for left, right in rows)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
