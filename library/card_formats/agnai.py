"""Agnai's own character JSON (its "Agnaistic" export) as a V2-shaped card. Framework-free.

Agnai writes the character object itself: {"kind": "character", "name", "persona": {"kind",
"attributes"}, "greeting", "scenario", "sampleChat", "description" (the creator's notes),
"alternateGreetings", "characterBook" (an Agnai memory book), "systemPrompt",
"postHistoryInstructions", "insert": {"depth", "prompt"}, "creator", "characterVersion",
"tags", "extensions", ...}. The persona becomes the card's description written the way Agnai
writes it into the prompt (W++, SBF, Boostyle or plain text), and the persona object itself is
kept under `extensions.agnai`, where Agnai's own card export keeps it, so a card exported from
here goes back into Agnai with its attributes.
"""

from __future__ import annotations

from typing import Any

from library.card_formats.app_books import other_app_book

# Agnai field -> card field, for the fields that only change their name.
RENAMED = {"name": "name", "greeting": "first_mes", "scenario": "scenario",
           "sampleChat": "mes_example", "description": "creator_notes",
           "systemPrompt": "system_prompt", "postHistoryInstructions": "post_history_instructions",
           "creator": "creator", "characterVersion": "character_version",
           "alternateGreetings": "alternate_greetings", "tags": "tags"}
# Agnai-only fields kept for the way back (account ids, dates and avatar URLs are not).
KEPT = ("persona", "voice", "appearance", "culture")
NATIVE_KEYS = ("name", "persona", "greeting", "scenario", "sampleChat")


class AgnaiCardInvalid(ValueError):
    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def is_agnai_character(raw: dict[str, Any]) -> bool:
    """Agnai's own test: its kind, or the five fields every Agnai character has."""
    return (raw.get("kind") in ("character", "library-character")
            or all(key in raw for key in NATIVE_KEYS))


def _values(values: Any, field: str) -> list[str]:
    if isinstance(values, str):
        return [values]
    if values is None or values in ([], "", False):
        return []
    if not isinstance(values, list) or not all(isinstance(v, (str, int, float)) for v in values):
        raise AgnaiCardInvalid(f"Agnai character: '{field}' must be a list of text", field)
    return [v if isinstance(v, str) else str(v) for v in values]


def _attributes(persona: dict[str, Any]) -> list[tuple[str, list[str]]]:
    attributes = persona.get("attributes")
    if attributes is None or attributes in ([], "", False):
        return []
    if not isinstance(attributes, dict):
        raise AgnaiCardInvalid("Agnai character: 'persona.attributes' must be an object",
                               "persona.attributes")
    return [(key, _values(values, f"persona.attributes.{key}"))
            for key, values in attributes.items()]


def _quoted(values: list[str]) -> list[str]:
    return [f'"{value}"' for value in values]


def persona_text(name: str, persona: Any) -> str:
    """The persona as Agnai writes it into the prompt (common/characters.ts formatCharacter).
    A kind Agnai has no writer for is written as one "attribute: values" line each."""
    if isinstance(persona, str):
        return persona
    if persona is None or persona in ([], "", False):
        return ""
    if not isinstance(persona, dict):
        raise AgnaiCardInvalid("Agnai character: 'persona' must be an object with 'kind' and "
                               "'attributes'", "persona")
    kind, attributes = persona.get("kind"), _attributes(persona)
    if kind == "text" or (kind is None and [key for key, _ in attributes] == ["text"]):
        return next((values[0] for key, values in attributes if key == "text" and values), "")
    if kind == "wpp":
        lines = [f"{key}({' + '.join(_quoted(values))})" for key, values in attributes]
        return "\n".join([f'[character("{name}") {{', *lines, "}]"])
    if kind == "sbf":
        parts = [f"{key}: {', '.join(_quoted(values))}" for key, values in attributes]
        return f'[ character: "{name}"; {"; ".join(parts)} ]'
    if kind == "boostyle":
        return " + ".join([name, *(value for _, values in attributes for value in values)])
    return "\n".join(f"{key}: {', '.join(values)}" for key, values in attributes)


def _depth_prompt(insert: Any) -> dict[str, Any] | None:
    """Agnai's `insert` is SillyTavern's Character's Note (a system block at a depth)."""
    if not isinstance(insert, dict) or not isinstance(insert.get("prompt"), str):
        return None
    if not insert["prompt"].strip():
        return None
    depth = insert.get("depth")
    return {"prompt": insert["prompt"], "role": "system",
            "depth": depth if isinstance(depth, int) and not isinstance(depth, bool) else 4}


def _book(book: Any) -> dict[str, Any] | None:
    if book is None or book in ([], "", False):
        return None
    if not isinstance(book, dict):
        raise AgnaiCardInvalid("Agnai character: 'characterBook' must be a memory book object",
                               "characterBook")
    return other_app_book({**book, "kind": "memory"}) if isinstance(
        book.get("entries"), list) else book


def agnai_character_to_card(raw: dict[str, Any]) -> dict[str, Any]:
    """A V2-shaped card; the caller's card reader checks and normalizes each field."""
    name = raw.get("name")
    name_text = name if isinstance(name, str) else ""
    data: dict[str, Any] = {card: raw.get(agnai) for agnai, card in RENAMED.items()}
    data["description"] = persona_text(name_text, raw.get("persona"))
    data["personality"] = ""
    extensions = raw.get("extensions")
    extensions = dict(extensions) if isinstance(extensions, dict) else {}
    extensions["agnai"] = {key: raw[key] for key in KEPT if key in raw}
    depth_prompt = _depth_prompt(raw.get("insert"))
    if depth_prompt is not None:
        extensions["depth_prompt"] = depth_prompt
    data["extensions"] = extensions
    book = _book(raw.get("characterBook"))
    if book is not None:
        data["character_book"] = book
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
