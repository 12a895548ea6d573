"""Character cards the library tests import, edit and export: a SillyTavern V2 card with its
book and fields the specs do not know, and a V3 card with every field, long."""

from __future__ import annotations


def v2_card() -> dict:
    """Victor as a SillyTavern V2 card with V1 mirror fields, a book, and fields no spec names."""
    return {
        "spec": "chara_card_v2", "spec_version": "2.0",
        "name": "维克多", "description": "old v1 mirror",  # V1 mirror fields, as some apps write
        "data": {
            "name": "维克多", "description": "北区的前黑帮头目。", "personality": "多疑，重情义。",
            "scenario": "废土。", "first_mes": "你来了。", "mes_example": "<START>\n{{char}}: 嗯。",
            "creator_notes": "", "system_prompt": "Stay in character.",
            "post_history_instructions": "Be terse.", "alternate_greetings": ["又是你。"],
            "tags": ["废土", "黑帮"], "creator": "someone", "character_version": "1.2",
            "extensions": {"talkativeness": "0.5", "fav": False, "depth_prompt": {"depth": 4}},
            "unknown_data_field": {"kept": [1, 2, 3]},
            "character_book": {
                "name": "北区", "scan_depth": 3, "token_budget": 500,
                "extensions": {"book_ext": True}, "book_unknown": "yes",
                "entries": [
                    {"id": 5, "keys": ["黑鸦帮"], "secondary_keys": ["叛徒"], "selective": True,
                     "content": "黑鸦帮控制北区。", "enabled": True, "insertion_order": 80,
                     "case_sensitive": False, "constant": False, "position": "after_char",
                     "name": "gang", "priority": 3, "entry_unknown": 42,
                     "extensions": {"selectiveLogic": 2, "probability": 100, "group": "g"}},
                    {"id": 6, "keys": ["北区"], "content": "北区是工业废墟。", "enabled": True,
                     "insertion_order": 10, "position": "before_char",
                     "extensions": {"position": 4, "depth": 2, "role": 1}},
                ],
            },
        },
    }


def big_card() -> dict:
    """Mira as a V3 card with every field, a 100,000-character description, 36 tags (one with a
    comma, one with spaces) and fields of other apps."""
    tags = [f"tag{n}" for n in range(34)] + ["sci-fi, noir", " spaced "]
    return {
        "spec": "chara_card_v3", "spec_version": "3.0", "x_other_app": {"rating": 5},
        "data": {
            "name": "Mira", "description": "A field medic.\n" + "d" * 100_000,
            "personality": "calm\nwry", "scenario": "The flood.",
            "first_mes": "Hold still, {{user}}.\n\n*She smiles.*",
            "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hello.",
            "system_prompt": "You are {{char}}. {{original}}",
            "post_history_instructions": "Stay brief.", "creator_notes": "Made by hand.",
            "alternate_greetings": ["You're awake.", "Again?"], "tags": tags,
            "creator": "someone", "character_version": "2", "nickname": "M",
            "group_only_greetings": [],
            "extensions": {"depth_prompt": {"prompt": "She limps.", "depth": 4, "role": "system"},
                           "other_app": {"keep": [1, 2, 3]}, "talkativeness": "0.5"},
        },
    }
