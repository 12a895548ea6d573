"""Starting an instance (one character or a group, with its greetings) and finding the
instances a user may open."""

from __future__ import annotations

from typing import Any

from chat.groups.conversations import ledger_add
from chat.groups.members import participant_entry
from chat.groups.speakers import STRATEGIES
from chat.models import Instance
from chat.play.regex_scripts import greetings_regexed
from chat.play.variables import greeting_variables_run
from chat.services.account_presets import account_prompt_manager_for_chat
from chat.services.errors import NotFound
from chat.services.index import instance_index
from chat.services.quotas import instance_room_check, instance_room_kept
from library.selectors import background_for_use, character_for_use, persona_for_user
from personalab.lib.errors import Invalid, naming_field
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import numbered_candidates, validate_id
from personalab.lib.participants import member_state_write
from personalab.lib.shown import value_shown
from personalab.lib.store_errors import IdTaken

INITIAL_PLOT_STATE = {"current_plot_index": 1, "current_status": "pending", "no_update_count": 0}


def instance_create(store: FileStore, *, owner, character_id: str | None = None,
                    background_id: str | None = None, instance_id: str | None = None,
                    persona_id: str | None = None, character_ids: list[str] | None = None,
                    reply_order: str | None = None,
                    card_join: dict[str, str] | None = None,
                    allow_self_responses: bool = False) -> str:
    """`owner` may start instances only of characters and backgrounds it can see; None (the
    system) any. `character_ids`: the members of a conversation with several characters, the
    first one also `character_id`; `card_join`: their generation mode settings, checked
    (chat/groups/cards.py card_join_changes)."""
    members = _members_validated(character_ids or ([character_id] if character_id else []),
                                 reply_order)
    character_id = members[0]
    with naming_field("character_ids" if character_ids else "character_id"):
        definitions = [character_for_use(store, user=owner, character_id=c) if owner is not None
                       else store.character_read(c) for c in members]
    definition = definitions[0]
    if background_id:
        with naming_field("background_id"):
            if owner is not None:
                background_for_use(store, user=owner, background_id=background_id)
            else:
                store.background_read(background_id)
    if persona_id and owner is not None:
        with naming_field("persona_id"):
            persona_for_user(user=owner, persona_id=persona_id)
    instance_room_check(owner=owner)
    try:
        instance_id = store.dir_claim("instances", [instance_id] if instance_id else
                                      numbered_candidates("inst", store.instance_ids()))
    except IdTaken:
        raise IdTaken(f"instance {instance_id} already exists") from None
    session_id = "sess_001"
    state = {
        "instance_id": instance_id,
        "character_id": character_id,
        "background_id": background_id or None,
        "current_session_id": session_id,
        "created_at": utc_now(),
        "plot_state": dict(INITIAL_PLOT_STATE),
        "participants": [{"character_id": character_id, "state_file": "character_state.json"}],
        "owner": owner.get_username() if owner else None,
        "persona_id": persona_id or None,
    }
    if manager := account_prompt_manager_for_chat(store, username=state["owner"]):
        state["prompt_manager"] = manager  # the account's default blocks: SillyTavern's preset
    if len(members) > 1:
        state["participants"] = [participant_entry({**d, "character_id": c}, first=i == 0)
                                 for i, (c, d) in enumerate(zip(members, definitions))]
        state["reply_order"] = reply_order or "natural"
        state.update(card_join or {})
        if allow_self_responses:
            state["allow_self_responses"] = True
    lines = greetings_regexed(store, state=state, definitions=dict(zip(members, definitions)),
                              lines=greeting_lines(definition) if len(members) == 1
                              else _group_greeting_lines(members, definitions))
    for member, member_definition in zip(members, definitions):
        member_state_write(store, instance_id, state, member, {
            "base_persona": member_definition.get("base_persona", ""), "evolved_persona": ""})
    store.session_create(instance_id, session_id, lines=lines)
    store.instance_state_write(instance_id, state)
    instance_index(store, instance_id)
    instance_room_kept(store, owner=owner, instance_id=instance_id)
    # after the second look: a start it undoes must not leave what its greeting set
    greeting_variables_run(store, instance_id=instance_id, session_id=session_id, lines=lines,
                           owner=state["owner"])
    ledger_add(store, instance_id, state)
    return instance_id


MAX_MEMBERS = 16


def _members_validated(character_ids: list[str], reply_order: str | None) -> list[str]:
    if not isinstance(character_ids, list) or not character_ids:
        raise Invalid("name at least one character", field="character_ids")
    members = list(dict.fromkeys(validate_id(c, kind="character id") for c in character_ids))
    if len(members) > MAX_MEMBERS:
        raise Invalid(f"at most {MAX_MEMBERS} characters in one chat", field="character_ids")
    if reply_order is not None and reply_order not in STRATEGIES:
        raise Invalid(f"reply_order must be one of {', '.join(STRATEGIES)}", field="reply_order")
    return members


def _group_greeting_lines(members: list[str], definitions: list[dict[str, Any]]
                          ) -> list[dict[str, Any]]:
    """Every member's first message, each marked with who says it (SillyTavern does the same)."""
    lines = []
    for character_id, definition in zip(members, definitions):
        for line in greeting_lines(definition, group=True):
            lines.append({**line, "speaker": character_id,
                          "name": definition.get("name") or character_id})
    return lines


def greeting_lines(definition: dict[str, Any], *, group: bool = False) -> list[dict[str, Any]]:
    """The first message; a card's alternate greetings are its swipes (the first shown), and in
    a group scene its V3 `group_only_greetings` too, as SillyTavern offers them there."""
    greeting = definition.get("greeting", "")
    data = (definition.get("card") or {}).get("data") or {}
    fields = ("alternate_greetings", "group_only_greetings") if group else ("alternate_greetings",)
    alternates = [g for field in fields for g in _texts(data.get(field)) if g.strip()]
    if not greeting and alternates:
        greeting, alternates = alternates[0], alternates[1:]
    if not greeting:
        return []
    line = {"role": "assistant", "content": greeting, "turn": 0, "timestamp": utc_now(),
            "greeting": True}
    if alternates:
        line.update(alternatives=[{"content": g} for g in alternates], alternative_position=0)
    return [line]


def _texts(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def instances_visible_to(user):
    rows = Instance.objects.select_related("character", "background", "owner")
    return rows if user.is_staff else rows.filter(owner=user)


def instance_for_user(user, instance_id: str) -> Instance:
    """Unknown and not-yours look the same: both are 404."""
    try:
        validate_id(instance_id, kind="instance id")
        return instances_visible_to(user).get(instance_id=instance_id)
    except (Instance.DoesNotExist, ValueError):
        raise NotFound(f"instance {value_shown(instance_id)} not found") from None
