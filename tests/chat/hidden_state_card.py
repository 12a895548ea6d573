"""A card whose prompt script hides a "<state>…</state>" block from the model (an MVU card's
"<UpdateVariable>" in small), and a chat of alice's with it: the regex-script tests of recall
and of the memory actions play it."""

from __future__ import annotations

import json

from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card
from library.find_replace.services import card_scripts_allow

HIDDEN = {"id": "hide-state", "scriptName": "hide the state block",
          "findRegex": "/<state>[\\s\\S]*?<\\/state>/g", "replaceString": "", "trimStrings": [],
          "placement": [2], "disabled": False, "markdownOnly": True, "promptOnly": True,
          "runOnEdit": True, "substituteRegex": 0, "minDepth": None, "maxDepth": None}
REPLY = "The brass key is under the blue mat. <state>gold=30 shame=12</state>"


def hidden_state_chat(store, alice, background_id: str | None = None) -> str:
    """A new chat of alice's with Mira, whose card carries HIDDEN, allowed to run."""
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Mira", "description": "An innkeeper.", "personality": "", "scenario": "",
        "first_mes": "", "mes_example": "", "alternate_greetings": [], "tags": [],
        "extensions": {"regex_scripts": [HIDDEN]}}}
    character_id = character_import_card(store, user=alice, filename="mira.json",
                                         data=json.dumps(card).encode())
    card_scripts_allow(store, username="alice", allowed=True,
                       character=store.character_read(character_id))
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background_id)
