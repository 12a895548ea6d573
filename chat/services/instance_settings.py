"""An instance's own settings: name, archived, generation, persona, lorebooks, reply
order, a group's generation mode (chat/groups/cards.py), playing as an imported chat's player,
switching the background."""

from __future__ import annotations

from typing import Any

from chat.groups.cards import card_join_changes
from chat.groups.speakers import STRATEGIES
from chat.services.errors import InstanceUpdateError
from chat.services.index import instance_index
from chat.services.instances import instance_for_user
from director.services import director_hold_set, director_plot_set, instance_switch_background
from library.fields import lorebook_ids_checked
from library.personas.services import persona_create
from library.selectors import background_for_use, persona_for_user, persona_owned_named
from personalab.lib.errors import AppError, Forbidden, Invalid, naming_field
from personalab.lib.filestore.store import FileStore
from personalab.lib.generation import GenerationError, generation_update
from personalab.lib.ids import validate_id

UNSET: Any = object()
MAX_INSTANCE_NAME = 200
MAX_PERSONA_NAME = 200  # as the persona form's
MAX_SCENARIO_OVERRIDE = 20_000


def _same(value: Any) -> Any:
    return value


# The fields checked on their own: (valid, the refusal, what is kept).
PLAIN_FIELDS: dict[str, tuple[Any, str, Any]] = {
    "scenario_override": (lambda value: isinstance(value, str)
                          and len(value) <= MAX_SCENARIO_OVERRIDE,
                          f"must be text of at most {MAX_SCENARIO_OVERRIDE} characters", str.strip),
    "allow_self_responses": (lambda value: isinstance(value, bool), "must be true or false", _same),
    "reply_order": (lambda value: value in STRATEGIES, f"must be one of {', '.join(STRATEGIES)}",
                    _same),
    "name": (lambda value: isinstance(value, str) and len(value.strip()) <= MAX_INSTANCE_NAME,
             f"must be text of at most {MAX_INSTANCE_NAME} characters", str.strip),
    "archived": (lambda value: isinstance(value, bool), "must be true or false", _same),
}


def _instance_changes(store: FileStore, state: dict[str, Any], *, user, name: Any, archived: Any,
                      generation: Any, persona_id: Any, lorebook_ids: Any,
                      reply_order: Any, allow_self_responses: Any,
                      scenario_override: Any, card_join: dict[str, Any]) -> dict[str, Any]:
    changes, problems = card_join_changes(card_join)
    plain = {"scenario_override": scenario_override, "allow_self_responses": allow_self_responses,
             "reply_order": reply_order, "name": name, "archived": archived}
    for field, value in plain.items():
        if value is UNSET:
            continue
        valid, problem, kept = PLAIN_FIELDS[field]
        if valid(value):
            changes[field] = kept(value)
        else:
            problems[field] = problem
    if generation is not UNSET:
        try:
            changes["generation"] = generation_update(state.get("generation") or {}, generation)
        except GenerationError as error:
            problems.update({f"generation.{k}": v for k, v in error.fields.items()})
    if persona_id is not UNSET:
        try:
            if persona_id is not None:
                persona_for_user(user=user, persona_id=persona_id)
            changes["persona_id"] = persona_id or None
        except AppError as error:
            problems["persona_id"] = error.message
    if lorebook_ids is not UNSET:
        try:
            # null detaches every book; books attached earlier stay allowed (see the check)
            changes["lorebook_ids"] = lorebook_ids_checked(
                store, [] if lorebook_ids is None else lorebook_ids, user=user,
                linked=state.get("lorebook_ids"))
        except AppError as error:
            problems.update(error.fields or {"lorebook_ids": error.message})
    if problems:
        raise InstanceUpdateError(problems)
    return changes


def instance_update(store: FileStore, *, user, instance_id: str, name: Any = UNSET,
                    archived: Any = UNSET, generation: Any = UNSET,
                    persona_id: Any = UNSET, lorebook_ids: Any = UNSET,
                    reply_order: Any = UNSET,
                    allow_self_responses: Any = UNSET,
                    scenario_override: Any = UNSET, generation_mode: Any = UNSET,
                    generation_mode_join_prefix: Any = UNSET,
                    generation_mode_join_suffix: Any = UNSET) -> dict[str, Any]:
    """Change an instance's name, archived flag, generation settings, persona, attached
    lorebooks (read by every turn besides the characters' and background's own), who speaks
    next (and whether the one who spoke last may answer again), the scenario every member
    reads in place of its card's, or how a group's cards go into the prompt (SillyTavern's
    generation mode and its join prefix / suffix); every field is checked before anything is
    written. Returns the new instance state."""
    card_join = {key: value for key, value in (
        ("generation_mode", generation_mode),
        ("generation_mode_join_prefix", generation_mode_join_prefix),
        ("generation_mode_join_suffix", generation_mode_join_suffix)) if value is not UNSET}
    instance_for_user(user, instance_id)
    lock = store.instance_lock(instance_id).acquire()
    try:
        state = store.instance_state_read(instance_id)
        state.update(_instance_changes(store, state, user=user, name=name, archived=archived,
                                       generation=generation, persona_id=persona_id,
                                       lorebook_ids=lorebook_ids, reply_order=reply_order,
                                       allow_self_responses=allow_self_responses,
                                       scenario_override=scenario_override,
                                       card_join=card_join))
        store.instance_state_write(instance_id, state)
    finally:
        lock.release()
    return state


def instance_plot_set(store: FileStore, *, user, instance_id: str, index: Any,
                      status: Any = "in_progress") -> dict[str, Any]:
    """Skip to, go back to or finish a point of the chat's outline by hand (director); the
    new plot state. Under the instance lock: a turn's marker and this never interleave."""
    instance_for_user(user, instance_id)
    lock = store.instance_lock(instance_id).acquire()
    try:
        return director_plot_set(store, instance_id=instance_id, index=index, status=status)
    finally:
        lock.release()


def instance_plot_hold(store: FileStore, *, user, instance_id: str, held: Any) -> bool:
    """Hold the story at its current point, or let it move on again (director). Only the
    chat's owner: it is the player's wish about their evening, not staff's to change."""
    instance = instance_for_user(user, instance_id)
    if instance.owner_id != user.pk:
        raise Forbidden("only the chat's owner may hold or release its story")
    lock = store.instance_lock(instance_id).acquire()
    try:
        return director_hold_set(store, instance_id=instance_id, held=held)
    finally:
        lock.release()


def instance_play_as(store: FileStore, *, user, instance_id: str, name: Any) -> dict[str, Any]:
    """Go on as the player of an imported chat: the user's own persona of that name, else a
    new one of theirs; picked for this conversation."""
    instance_for_user(user, instance_id)
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_PERSONA_NAME:
        raise Invalid(f"must be a persona name of 1 to {MAX_PERSONA_NAME} characters", field="name")
    name = name.strip()
    found = persona_owned_named(user=user, name=name)
    persona_id = found.persona_id if found else persona_create(
        store, owner=user, data={"name": name, "description": ""}, first_is_default=False)
    instance_update(store, user=user, instance_id=instance_id, persona_id=persona_id)
    return {"persona_id": persona_id, "name": name, "created": found is None}


def instance_background_switch(store: FileStore, *, user, instance_id: str,
                               background_id: str | None) -> dict[str, Any]:
    """Play the instance on another background (one the user may use) or none; the story
    progress is kept (clamped to the new outline)."""
    if background_id is not None:
        validate_id(background_id, kind="background id")
        with naming_field("background_id"):
            background_for_use(store, user=user, background_id=background_id)
    with store.instance_lock(instance_id):
        result = instance_switch_background(store, instance_id=instance_id,
                                            background_id=background_id)
    instance_index(store, instance_id)
    return result
