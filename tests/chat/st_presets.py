"""A SillyTavern Chat Completion preset, written from SillyTavern's documented format
(`prompts` + `prompt_order`), as the prompt-manager tests import it."""

from __future__ import annotations


def _marker(identifier: str) -> dict:
    return {"identifier": identifier, "name": identifier, "system_prompt": True, "marker": True}


def st_preset(**extra) -> dict:
    """SillyTavern's built-in prompts and markers, two prompts of the user's (one injected at
    depth 1), the `prompt_order` lists, and `extra` fields."""
    prompts = [
        {"identifier": "main", "name": "Main Prompt", "system_prompt": True, "role": "system",
         "content": "Write {{char}}'s next reply in a fictional chat with {{user}}."},
        {"identifier": "nsfw", "name": "Auxiliary Prompt", "system_prompt": True,
         "role": "system", "content": "Keep the tone grim."},
        {"identifier": "jailbreak", "name": "Post-History Instructions", "system_prompt": True,
         "role": "system", "content": "Reply in two paragraphs at most."},
        {"identifier": "enhanceDefinitions", "name": "Enhance Definitions", "role": "system",
         "content": "Add to {{char}}'s lore.", "system_prompt": True, "marker": False},
        {"identifier": "b5f1", "name": "Whisper", "role": "user", "content": "(OOC: be brief)",
         "system_prompt": False, "marker": False, "injection_position": 1,
         "injection_depth": 1},
        {"identifier": "c7a2", "name": "Tail note", "role": "system",
         "content": "Remember the storm.", "system_prompt": False, "marker": False,
         "injection_position": 0},
        *[_marker(m) for m in ("chatHistory", "dialogueExamples", "worldInfoBefore",
                               "worldInfoAfter", "charDescription", "charPersonality",
                               "scenario", "personaDescription")],
    ]
    order = [{"identifier": name, "enabled": enabled} for name, enabled in (
        ("main", True), ("worldInfoBefore", True), ("personaDescription", True),
        ("charDescription", True), ("charPersonality", False), ("scenario", True),
        ("enhanceDefinitions", False), ("nsfw", True), ("worldInfoAfter", True),
        ("dialogueExamples", True), ("b5f1", True), ("chatHistory", True), ("c7a2", True),
        ("jailbreak", True))]
    return {"temperature": 0.7, "openai_max_tokens": 300, "prompts": prompts,
            "prompt_order": [{"character_id": 100000, "order": order[:3]},
                             {"character_id": 100001, "order": order}],
            "impersonation_prompt": "[Write your next reply from the point of view of {{user}}]",
            **extra}
