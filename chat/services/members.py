"""The members of a conversation with several characters: add, remove, move, mute, talkativeness.
Every change is journaled (personalab.lib.membership) before it is applied."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from chat.groups.conversations import ledger_add
from chat.groups.members import first_member_hand_over, first_member_swap, participant_entry
from chat.services.errors import InstanceUpdateError, NotFound
from chat.services.index import instance_index
from chat.services.instance_settings import UNSET
from chat.services.instances import MAX_MEMBERS, instance_for_user
from library.selectors import character_for_chat_optional, character_for_use
from personalab.lib.errors import Invalid, naming_field
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import validate_id
from personalab.lib.membership import member_change_apply, member_change_recover
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import StoreError


def instance_member_add(store: FileStore, *, user, instance_id: str, character_id: Any,
                        muted: Any = False, talkativeness: Any = None) -> dict[str, Any]:
    """A character (one the user may use) joins the conversation from the next round on. Its
    own state starts from its card; a character that was a member before gets its state back.
    Every member change is journaled (personalab.lib.membership) before it is applied."""
    instance_for_user(user, instance_id)
    if not isinstance(character_id, str):
        raise Invalid("name a character", field="character_id")
    character_id = validate_id(character_id, kind="character id")
    with naming_field("character_id"):
        definition = character_for_use(store, user=user, character_id=character_id)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        if character_id in [p["character_id"] for p in participants]:
            raise Invalid(gettext("%(name)s is already a member")
                          % {"name": definition.get("name") or character_id},
                          field="character_id")
        if len(participants) >= MAX_MEMBERS:
            raise Invalid(f"at most {MAX_MEMBERS} characters in one chat", field="character_id")
        entry = participant_entry({**definition, "character_id": character_id}, first=False)
        entry.update(_member_settings(muted=muted, talkativeness=talkativeness))
        after = {**before, "participants": [*participants, entry]}
        if len(participants) == 1:
            # the story's lines so far carry no speaker: they stay this character's
            after.setdefault("solo_character_id", participants[0]["character_id"])
        after.setdefault("reply_order", "natural")
        files = {} if (store.instance_dir(instance_id) / entry["state_file"]).exists() else {
            entry["state_file"]: {"base_persona": definition.get("base_persona", ""),
                                  "evolved_persona": ""}}
        member_change_apply(store, instance_id, before=before, after=after, action="add",
                            character_id=character_id, files=files)
    _members_indexed(store, instance_id, after)
    return after


def instance_member_remove(store: FileStore, *, user, instance_id: str,
                           character_id: str) -> dict[str, Any]:
    """The character leaves; its lines stay in the story and its state file stays on disk (a
    later add restores it). When the first member leaves, the next one becomes the instance's
    character (chat.groups.members.first_member_hand_over); the last one cannot leave."""
    instance_for_user(user, instance_id)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        index = _member_index(participants, character_id)
        if len(participants) == 1:
            raise Invalid("a conversation needs a character: the last one "
                                          "cannot leave", field="character_id")
        if index == 0:
            hand_over = first_member_hand_over(store, instance_id,
                                               {**before, "participants": participants})
            after, files, remove = hand_over.state, hand_over.files, hand_over.remove
        else:
            after = {**before, "participants": participants[:index] + participants[index + 1:]}
            files, remove = {}, []
        member_change_apply(store, instance_id, before=before, after=after, action="remove",
                            character_id=character_id, files=files, remove=remove)
    _members_indexed(store, instance_id, after)
    return after


def instance_member_change(store: FileStore, *, user, instance_id: str, character_id: str,
                           muted: Any = UNSET, talkativeness: Any = UNSET) -> dict[str, Any]:
    """Mute a member (it answers only when the player picks it) or set how talkative it is."""
    instance_for_user(user, instance_id)
    changes = _member_settings(muted=muted, talkativeness=talkativeness)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        entry = participants[_member_index(participants, character_id)]
        changes = {key: value for key, value in changes.items() if entry.get(key) != value}
        if not changes:
            return before
        entry.update(changes)
        after = {**before, "participants": participants}
        member_change_apply(store, instance_id, before=before, after=after, action="change",
                            character_id=character_id, changes=changes)
    return after


def instance_member_move(store: FileStore, *, user, instance_id: str, character_id: str,
                         up: bool) -> dict[str, Any]:
    """Move a member one place up or down the list ("list order" answers in it). Moving into
    or out of the first place hands the story's character role (the instance's character and
    its state file) to the new first member, as when the first member leaves."""
    instance_for_user(user, instance_id)
    with store.instance_lock(instance_id):
        before = _member_state_read(store, instance_id)
        participants = _participants_complete(store, before)
        index = _member_index(participants, character_id)
        target = index - 1 if up else index + 1
        if not 0 <= target < len(participants):
            raise Invalid(gettext("%(name)s is already %(place)s") % {
                "name": _member_name(store, character_id),
                "place": gettext("first") if up else gettext("last")}, field="members")
        files: dict[str, dict[str, Any]] = {}
        remove: list[str] = []
        if 0 in (index, target):
            hand_over = first_member_swap(store, instance_id,
                                          {**before, "participants": participants})
            after, files, remove = hand_over.state, hand_over.files, hand_over.remove
        else:
            participants[index], participants[target] = participants[target], participants[index]
            after = {**before, "participants": participants}
        member_change_apply(store, instance_id, before=before, after=after, action="change",
                            character_id=character_id, changes={"place": target},
                            files=files, remove=remove)
    _members_indexed(store, instance_id, after)
    return after


def _member_name(store: FileStore, character_id: str) -> str:
    """A character's name for a message the author reads (its id only when it is unreadable)."""
    try:
        return str(store.character_read(character_id).get("name") or character_id)
    except (StoreError, ValueError, OSError):
        return character_id


def _member_state_read(store: FileStore, instance_id: str) -> dict[str, Any]:
    """The instance state for a member change (the lock is held): a change a killed process
    left half done is finished first."""
    member_change_recover(store, instance_id)
    return store.instance_state_read(instance_id)


def _participants_complete(store: FileStore, state: dict[str, Any]) -> list[dict[str, Any]]:
    """The participants with every member setting written out (a one-character instance
    records only the character and its state file; its talkativeness comes from its card, as
    for a member named at creation)."""
    participants = [dict(p) for p in state.get("participants") or [] if isinstance(p, dict)]
    if not participants:
        participants = [{"character_id": state["character_id"],
                         "state_file": "character_state.json"}]
    for entry in participants:
        entry.setdefault("muted", False)
        if "talkativeness" not in entry:
            definition = character_for_chat_optional(store, state=state,
                                                     character_id=entry["character_id"])
            entry["talkativeness"] = participant_entry(
                {**definition, "character_id": entry["character_id"]},
                first=False)["talkativeness"]
    return participants


def _member_index(participants: list[dict[str, Any]], character_id: str) -> int:
    for index, entry in enumerate(participants):
        if entry.get("character_id") == character_id:
            return index
    raise NotFound(f"{value_shown(character_id)} is not a member of this conversation")


def _member_settings(*, muted: Any, talkativeness: Any) -> dict[str, Any]:
    settings, problems = {}, {}
    if muted is not UNSET:
        if not isinstance(muted, bool):
            problems["muted"] = "must be true or false"
        else:
            settings["muted"] = muted
    if talkativeness not in (UNSET, None):
        if isinstance(talkativeness, bool) or not isinstance(talkativeness, (int, float)) \
                or not 0 <= talkativeness <= 1:
            problems["talkativeness"] = "must be a number from 0 to 1"
        else:
            settings["talkativeness"] = float(talkativeness)
    if problems:
        raise InstanceUpdateError(problems)
    return settings


def _members_indexed(store: FileStore, instance_id: str, state: dict[str, Any]) -> None:
    ledger_add(store, instance_id, state)
    instance_index(store, instance_id)
