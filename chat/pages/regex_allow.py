"""The chat page's question about a card's regex scripts: "This card has N regex scripts:
allow / keep off", as SillyTavern asks when a chat with such a card opens. The answer is the
account's (library/find_replace/services.py), for that character in all its chats."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from chat.services.instances import instance_for_user
from library.find_replace.services import (
    card_scripts_allow,
    card_scripts_allowed_in,
    card_scripts_count,
    regex_scripts_account_record,
)
from library.selectors import ChatCharacters
from personalab.lib.errors import Invalid, errors_back_to
from personalab.lib.filestore.store import FileStore
from personalab.storage import get_store


def _chat_character_ids(state: dict[str, Any]) -> list[str]:
    ids = [state.get("character_id")] + [
        entry.get("character_id") for entry in state.get("participants") or []
        if isinstance(entry, dict)]
    return list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))


def regex_asks(store: FileStore, *, username: str, state: dict[str, Any],
               characters: ChatCharacters) -> list[dict[str, Any]]:
    """The chat's characters whose card carries regex scripts: id, name, how many, allowed."""
    module = regex_scripts_account_record(store, username=username)
    asks = []
    for character_id in _chat_character_ids(state):
        character = characters.optional(character_id)
        count = card_scripts_count(character)
        if count:
            asks.append({"character_id": character_id, "name": character.get("name") or
                         character_id, "count": count,
                         "allowed": card_scripts_allowed_in(module, username=username,
                                                            character=character)})
    return asks


@errors_back_to("instance")
@login_required
@require_POST
def instance_regex_scripts(request: HttpRequest, instance_id: str) -> HttpResponse:
    """Allow or keep off one of the chat's cards' scripts, from the next turn on."""
    instance_for_user(request.user, instance_id)
    store = get_store()
    state = store.instance_state_read(instance_id)
    character_id = request.POST.get("character_id") or ""
    if character_id not in _chat_character_ids(state):
        raise Invalid("that character is not in this chat", field="character_id")
    allowed = request.POST.get("allowed") == "1"
    card_scripts_allow(store, username=request.user.get_username(), allowed=allowed,
                       character=ChatCharacters(store, state=state).optional(character_id))
    messages.info(request, gettext("From the next turn on this card's regex scripts run.")
                  if allowed else gettext("This card's regex scripts stay off. Messages already "
                                          "in the chat, its greeting too, keep their text."))
    return redirect("instance", instance_id=instance_id)
