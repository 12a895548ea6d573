"""Mira's V3 cards that several chat modules play, written from the documented format: one with
example dialogues (three blocks, the last without a speaker's line) and one with a character's
note at depth 2."""

from __future__ import annotations

EXAMPLES_CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "A field medic.", "personality": "calm",
    "scenario": "A clinic at night.", "first_mes": "Hold still, {{user}}.",
    "alternate_greetings": [],
    "mes_example": "<START>\n{{user}}: Does it hurt?\n{{char}}: Only when you talk.\n"
                   "{{char}}: *She smiles.*\n<START>\n{{char}}: Above the water.\n"
                   "<START>\nNo speaker here.",
    "system_prompt": "", "post_history_instructions": "", "tags": [], "extensions": {}}}

DEPTH_NOTE = {"prompt": "{{char}} whispers.", "depth": 2, "role": "system"}
NOTE_CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Mira", "description": "{{char}} is a field medic.", "personality": "Calm.",
    "scenario": "", "first_mes": "", "alternate_greetings": [],
    "mes_example": "<START>\n{{char}}: Hold still.", "system_prompt": "",
    "post_history_instructions": "", "tags": [], "extensions": {"depth_prompt": DEPTH_NOTE}}}
