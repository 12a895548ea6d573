"""Shared by the text-completion tests (tests/lib/test_text_completion.py,
tests/lib/test_context_templates.py, tests/chat/test_prompt_processing_text.py): a card
imported into a one-to-one or group conversation, and its turns run through the real turn
code against the stub, which records the prompt string the model received."""

from __future__ import annotations

import asyncio
import json

from chat.groups.round import conversation_turn
from chat.play.turn import TurnResult, turn_run
from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card


def english(store, *, user_name: str = "Ann") -> None:
    store.module_write("prompt", {"locale": "en", "user_name": user_name})


def card_import(store, card: dict, *, name: str | None = None, **fields) -> str:
    """`card` (a V3 card) imported, under another `name` and with other `fields` if given."""
    data = {**card["data"], **fields, **({"name": name} if name else {})}
    return character_import_card(store, data=json.dumps({**card, "data": data}).encode(),
                                 filename=f"{data['name'].lower()}.json")


def solo_create(store, owner, card: dict) -> str:
    return instance_create(store, owner=owner, character_id=card_import(store, card))


def group_create(store, owner, card: dict, *, second: str = "Rook", **second_fields) -> str:
    """`card`'s character and a second member made from the same card under another name
    (with no greeting unless `second_fields` give one), everyone answering each turn."""
    first = card_import(store, card)
    other = card_import(store, card, name=second, **{"first_mes": "", **second_fields})
    return instance_create(store, owner=owner, character_ids=[first, other],
                           reply_order="everyone")


async def _ignore(event) -> None:
    pass


def turn(store, instance_id: str, text: str = "Who are you?", **options) -> TurnResult:
    """One turn (`continue_reply=True`: the last reply continued)."""
    return asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=_ignore,
                                **options))


def group_turn(store, instance_id: str, text: str = "Hello both.") -> None:
    asyncio.run(conversation_turn(store, instance_id=instance_id, user_text=text,
                                  emit=_ignore))


def utility_set(store, instance_id: str, **utility) -> None:
    """The chat's prompt manager with no blocks and these utility prompts (the rest:
    SillyTavern's defaults)."""
    state = store.instance_state_read(instance_id)
    state["prompt_manager"] = {"blocks": [], "utility": utility}
    store.instance_state_write(instance_id, state)


def english_turn_sent(store, owner, card: dict, stub) -> list[dict]:
    """One English turn of a new one-to-one chat with `card`: the messages the model got."""
    english(store)
    turn(store, solo_create(store, owner, card))
    return stub.requests[-1]["messages"]


def text_turn_prompt(store, owner, card: dict, stub, settings) -> str:
    """The same through a text-completion backend (chatml): the prompt string it got."""
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    turn(store, solo_create(store, owner, card))
    return stub.requests[-1]["prompt"]
