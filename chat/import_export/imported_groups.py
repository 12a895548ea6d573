"""Who took part in an imported chat, and whether those characters can go on as a group here.

A group chat exported from here lists its members (`chat_metadata.personalab_group`: ids and
names), its reply order, whether the last speaker may answer again, and its generation mode
(chat/groups/cards.py; a SillyTavern chat file has none of them: its group keeps them in the
group's own file). A SillyTavern group chat only names its speakers: they are looked up by name
among the conversation's members and the player's own characters (case aside); a name none of
them has, or two share, is not guessed. The header is the uploaded file's: anything else than
these shapes lists nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from chat.groups.cards import card_join_changes
from library.character_picker import characters_labelled
from library.models import Character
from library.selectors import character_for_use, characters_visible_to
from personalab.lib.errors import AppError
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.participants import member_ids
from personalab.lib.store_errors import StoreError

SAME_NAME_LOOKED_UP = 50  # characters of one name the player sees, read to find a member
NAME_SHOWN_CHARS = 80  # of a name an uploaded file gives, in an import report's note
MAX_NAME = 200  # a character's name in the library


@dataclass(frozen=True)
class ChatGroup:
    members: list[dict[str, Any]]  # {"character_id"?, "name"}, in the chat's order
    reply_order: Any = None
    # generation_mode and its join prefix / suffix, those the export gives that are right
    card_join: dict[str, str] = field(default_factory=dict)
    allow_self_responses: bool = False


@dataclass(frozen=True)
class GroupFound:
    usable: list[str]  # ids of the members the player may use, once each, in order
    absent: list[str]  # names of the others
    missing: list[str]  # names of the members the conversation lacks (absent ones too)
    # Each member looked up, as a report names it: the chat's name, and the id after it when
    # the player sees two characters of that name (as the pickers show them).
    names: list[str]


def _listed(header: Any) -> ChatGroup | None:
    metadata = header.get("chat_metadata") if isinstance(header, dict) else None
    group = metadata.get("personalab_group") if isinstance(metadata, dict) else None
    listed = group.get("members") if isinstance(group, dict) else None
    if not isinstance(listed, list):
        return None
    return ChatGroup([m for m in listed if isinstance(m, dict)], group.get("reply_order"),
                     card_join_changes(group)[0],
                     allow_self_responses=group.get("allow_self_responses") is True)


def chat_group(header: Any, lines: list[dict[str, Any]]) -> ChatGroup:
    """The members an export lists, else the names of the chat's speakers when there are two
    or more (a chat with one character is no group)."""
    listed = _listed(header)
    if listed is not None:
        return listed
    names: dict[str, str] = {}
    for line in lines:
        name = line.get("name")
        if line.get("role") == "assistant" and isinstance(name, str) and name.strip():
            names.setdefault(name.strip().casefold(), name.strip())
    return ChatGroup([{"name": name} for name in names.values()] if len(names) > 1 else [])


def member_name(member: dict[str, Any]) -> str:
    return str(member.get("name") or member.get("character_id"))[:NAME_SHOWN_CHARS]


def _resolved(store: FileStore, user, member: dict[str, Any], here: set[str]) -> str | None:
    """The member's character: by id, or by a name one of the conversation's own members has
    (a card imported twice, as JSON and PNG, is two characters of one name; the
    conversation's is the one meant), else only one of the player's own characters (or the
    site's) has. Never another account's shared character by its name alone: anyone may name
    one after a member of the chats others import."""
    if "character_id" not in member:
        name = member.get("name")
        if not isinstance(name, str) or len(name) > MAX_NAME:
            return None
        found = list(characters_visible_to(user=user).filter(name__iexact=name)
                     .values_list("character_id", "owner_id")[:SAME_NAME_LOOKED_UP])
        members = [character_id for character_id, _ in found if character_id in here]
        if len(members) == 1:
            return members[0]
        ours = [character_id for character_id, owner in found if owner in (user.pk, None)]
        return ours[0] if len(ours) == 1 else None
    character_id = member["character_id"]
    if not (isinstance(character_id, str) and is_valid_id(character_id)):
        return None
    try:
        character_for_use(store, user=user, character_id=character_id)
    except (AppError, StoreError):
        return None
    return character_id


def group_found(store: FileStore, *, user, group: ChatGroup, state: dict[str, Any],
                limit: int) -> GroupFound:
    """The group's members as characters of the library, against who is in `state`'s
    conversation; at most `limit` + 1 members are looked up."""
    here = set(member_ids(state))
    usable: list[str] = []
    absent: list[str] = []
    missing: list[str] = []
    names: list[str] = []
    looked_up = group.members[:limit + 1]
    ids = [_resolved(store, user, member, here) if user is not None else None
           for member in looked_up]
    shown = _labels_of([i for i in ids if i is not None], user=user) if user is not None else {}
    for member, character_id in zip(looked_up, ids, strict=True):
        name = shown.get(character_id) or member_name(member)
        names.append(name)
        if character_id is None:
            absent.append(name)
        elif character_id not in usable:
            usable.append(character_id)
        if character_id is None or character_id not in here:
            missing.append(name)
    return GroupFound(usable=usable, absent=absent, missing=missing[:20], names=names)


def _labels_of(ids: list[str], *, user) -> dict[str, str]:
    """{id: label} of the members found, as the player's pickers name them: the character's
    own name (not the file's, which a member listed by id may give as any other's), whose it
    is when it is another account's, and what tells it apart from a same-named one."""
    if not ids:
        return {}
    rows = list(Character.objects.filter(character_id__in=ids).select_related("owner"))
    characters_labelled(rows, user=user)
    labels: dict[str, str] = {}
    for row in rows:
        label = row.label
        whose = _("by %(owner)s") % {"owner": row.owner.get_username()} if (
            row.owner is not None and row.owner_id != user.pk) else ""
        labels[row.character_id] = (f"{label} · {whose}" if whose and whose not in label
                                    else label)
    return labels
