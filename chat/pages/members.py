"""The members card of the chat page drawer (an htmx partial): add a character, mute one or set
its talkativeness, move one up or down, remove one, choose who speaks next, how a group's cards
go into the prompt and the scenario every member reads in place of its card's (SillyTavern's
group chat scenario override). The actions are chat.services' instance_member_* and
instance_update."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from chat.groups.cards import card_join_settings
from chat.groups.members import members_of, members_title
from chat.pages.instance_access import instance_or_404
from chat.selectors import member_pictures
from chat.services.instance_settings import instance_update
from chat.services.members import (
    instance_member_add,
    instance_member_change,
    instance_member_move,
    instance_member_remove,
)
from library.character_labels import character_labels
from library.character_picker import CharacterChoices, character_choices_found
from library.selectors import ChatCharacters
from personalab.lib.errors import AppError
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import InstanceBusy
from personalab.storage import get_store


def members_context(store: FileStore, *, user, state: dict[str, Any],
                    characters: ChatCharacters | None = None,
                    find: str | None = None) -> dict[str, Any]:
    """`find`: the add-member picker's search field, sent without the page's script."""
    characters = characters or ChatCharacters(store, state=state)
    members = members_of(store, state, characters) or []
    taken = {m.character_id for m in members} | {state.get("character_id")}
    choices, find_error = _member_choices(user, taken=taken, find=find)
    return {"members": members, "members_title": members_title(members),
            "member_labels": character_labels(((m.character_id, m.name) for m in members),
                                              user=user),
            "member_pictures": member_pictures(characters, [m.character_id for m in members]),
            "reply_order": state.get("reply_order") or "natural",
            "allow_self_responses": state.get("allow_self_responses") is True,
            "reply_orders": reply_orders(), "card_join": card_join_settings(state),
            "scenario_override": override if isinstance(
                override := state.get("scenario_override"), str) else "",
            "generation_modes": list(GENERATION_MODE_LABELS.items()),
            "member_choices": choices, "member_find": find, "member_find_error": find_error}


def _member_choices(user, *, taken, find: str | None) -> tuple[CharacterChoices, str]:
    """The characters the add-member picker offers (others found by typing), those found for
    `find` first; and the refusal of a `find` that cannot be searched."""
    offered, find_error = character_choices_found(user=user, find=find)
    choices = CharacterChoices(c for c in offered if c.character_id not in taken)
    choices.more = offered.more
    return choices, find_error


def reply_orders() -> list[tuple[str, str]]:
    return list(REPLY_ORDER_LABELS.items())


# Named as SillyTavern's group reply strategies where one matches: its "List order" is every
# member once, stored here as "everyone"; the stored "list" (one reply per round) has no
# SillyTavern counterpart and is labelled for what it does. Stored values never change.
REPLY_ORDER_LABELS = {
    "natural": _("Natural order (who is named, then by talkativeness)"),
    "everyone": _("List order (everyone answers once, in list order)"),
    "list": _("Take turns (one reply per round, the next in the list)"),
    "manual": _("Manual (only the one you ask)"),
}


# SillyTavern's "Group generation handling mode" options, in its words.
GENERATION_MODE_LABELS = {
    "swap": _("Swap character cards"),
    "append": _("Join character cards (exclude muted)"),
    "append_muted": _("Join character cards (include muted)"),
}


def _order_changes(post) -> dict[str, Any]:
    """The order form's fields that were sent (the join fields with their own names)."""
    names = ("reply_order", "generation_mode", "generation_mode_join_prefix",
             "generation_mode_join_suffix", "scenario_override")
    return {name: post[name].replace("\r\n", "\n") for name in names if name in post}


def _talkativeness(raw: str) -> Any:
    raw = raw.strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        return raw  # refused by the service, naming the field


@login_required
@require_POST
def instance_members(request: HttpRequest, instance_id: str) -> HttpResponse:
    store = get_store()
    instance_or_404(request, instance_id)
    action = request.POST.get("action", "")
    character_id = request.POST.get("character_id", "")
    errors, status = {}, 200
    try:
        if action == "add":
            instance_member_add(store, user=request.user, instance_id=instance_id,
                                character_id=character_id)
        elif action == "remove":
            instance_member_remove(store, user=request.user, instance_id=instance_id,
                                   character_id=character_id)
        elif action in ("up", "down"):
            instance_member_move(store, user=request.user, instance_id=instance_id,
                                 character_id=character_id, up=action == "up")
        elif action == "change":
            instance_member_change(
                store, user=request.user, instance_id=instance_id, character_id=character_id,
                muted=request.POST.get("muted") == "on",
                talkativeness=_talkativeness(request.POST.get("talkativeness", "")))
        elif action == "order":
            instance_update(store, user=request.user, instance_id=instance_id,
                            allow_self_responses=request.POST.get("allow_self_responses") == "on",
                            **{"reply_order": "", **_order_changes(request.POST)})
        elif action == "scenario":  # a one-character chat's form: only the override
            instance_update(store, user=request.user, instance_id=instance_id,
                            scenario_override=request.POST.get("scenario_override", "")
                            .replace("\r\n", "\n"))
        else:
            errors, status = {
                "action": "must be add, remove, up, down, change, order or scenario"}, 400
    except InstanceBusy:
        errors, status = {"members": "a reply is streaming; try again when it ends"}, 409
    except AppError as error:
        errors, status = (error.fields or {"members": error.message}), error.status
    state = store.instance_state_read(instance_id)
    characters = ChatCharacters(store, state=state)
    # A refused change shows what was typed, beside its error, not the stored value.
    typed = ({"character_id": character_id,
              "talkativeness": request.POST.get("talkativeness", "")}
             if errors and action == "change" else {})
    shown = members_context(store, user=request.user, state=state, characters=characters)
    if errors and action in ("order", "scenario") and "scenario_override" in request.POST:
        shown["scenario_override"] = request.POST["scenario_override"]  # what was typed
    return render(request, "chat/_members.html", {
        "instance": {"instance_id": instance_id}, "member_errors": errors,
        "member_typed": typed, "state": state,
        "character": characters.optional(state.get("character_id")), **shown},
        status=status)
