"""Mira's V3 card imported and played in English through the real turn code, as the card-field
tests drive it: the stub server records what the model received, the trace what was sent."""

from __future__ import annotations

import asyncio
import json

from chat.play.turn import turn_run
from library.card_formats.card_import import character_import_card

SECRET_NOTE = "Creator's note: tested with model X, please rate"


def mira_card(**data) -> dict:
    """Mira's card, `data` over its fields."""
    fields = {
        "name": "Mira", "description": "A field medic in a drowned city.",
        "personality": "calm, dry humour", "scenario": "{{user}} wakes in her clinic.",
        "first_mes": "Hold still, {{user}}.", "alternate_greetings": [],
        "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you talk.\n"
                       "<START>\n{{user}}: Where are we?\n{{char}}: Above the water, for now.",
        "system_prompt": "", "post_history_instructions": "", "creator_notes": SECRET_NOTE,
        "tags": ["medic"], "extensions": {},
    }
    fields.update(data)
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": fields}


def mira_import(store, card: dict) -> str:
    return character_import_card(store, data=json.dumps(card).encode(), filename="mira.json")


def english_set(store, **defaults) -> None:
    """Prompts in English for the player Ann, with the English template's `defaults` if given."""
    store.module_write("prompt", {"locale": "en", "user_name": "Ann"})
    if defaults:
        store.templates_dir.mkdir(parents=True, exist_ok=True)
        (store.templates_dir / "en.json").write_text(json.dumps({"defaults": defaults}))


def card_turn_run(store, instance_id: str, text: str = "Hello?") -> str:
    """One turn of `text` run to its end: its trace's id."""
    async def emit(event):
        pass

    result = asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))
    return result.trace_id
