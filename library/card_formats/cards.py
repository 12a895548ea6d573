"""Character Card V2/V3 import and export (PNG with `chara` / `ccv3` text chunks, or JSON).

Framework-free and without Pillow: PNG chunks are read and written with struct/zlib
(library/card_formats/png.py); a card's character_book becomes a lorebook and back in
library/card_formats/character_book.py. A parsed card is always V3-shaped: {"spec", "spec_version",
"data": {...}, ...} with every field the card had kept, known or not, so an exported card
carries what was imported.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
from typing import Any

from library.card_formats.agnai import RENAMED as AGNAI_RENAMED
from library.card_formats.agnai import AgnaiCardInvalid, agnai_character_to_card, is_agnai_character
from library.card_formats.character_book import (
    character_book_to_lorebook,
    lorebook_to_character_book,
)
from library.card_formats.png import (
    CARD_KEYWORDS,
    PNG_SIGNATURE,
    card_text_chunk,
    is_card_chunk,
    placeholder_image,
    png_build,
    png_card_texts,
    png_chunks,
)
from library.card_formats.values import (
    card_object_or_none,
    card_tags_imported,
    card_text,
    card_text_list,
)
from library.errors import CardError, PictureNotCard
from library.lore.activation import DECORATOR_LINES
from personalab.lib.nesting import JsonRefused, json_loads_bounded

SPECS = {"v2": ("chara_card_v2", "2.0"), "v3": ("chara_card_v3", "3.0")}
TEXT_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example",
               "creator_notes", "system_prompt", "post_history_instructions", "creator",
               "character_version")
LIST_FIELDS = ("alternate_greetings", "tags", "group_only_greetings")
# Fields the V3 spec added to `data`; a V2 card has none of them.
V3_ONLY_FIELDS = ("assets", "nickname", "creator_notes_multilingual", "source",
                  "group_only_greetings", "creation_date", "modification_date")
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
# The Pygmalion / Gradio character JSON, which SillyTavern also imports.
PYGMALION_FIELDS = {"char_name": "name", "char_persona": "description",
                    "world_scenario": "scenario", "char_greeting": "first_mes",
                    "example_dialogue": "mes_example"}
PERSONA_SECTIONS = (("description", "Description"), ("personality", "Personality"),
                    ("scenario", "Scenario"))
_WHITESPACE_DROPPED = str.maketrans("", "", " \t\r\n\f\v")  # base64 wrapped in lines
PERSONA_LABEL = re.compile(r"^\[(Description|Personality|Scenario)\][ \t]*\n?", re.MULTILINE)


# parsing ------------------------------------------------------------------

def _json_decode(raw: bytes | str, where: str) -> Any:
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise CardError(f"card JSON is invalid: {where} is not UTF-8 text") from None
    try:
        return json_loads_bounded(text)
    except json.JSONDecodeError as exc:  # where, not the parser's words
        placed = "" if where == "file" else f"{where}: "
        raise CardError(f"card JSON is invalid: {placed}a mistake at line {exc.lineno}, "
                        f"column {exc.colno}") from None
    except JsonRefused as exc:
        raise CardError(f"card JSON is invalid: {where}: {exc}") from None


def _card_text_decode(keyword: str, text: str) -> Any:
    if text.lstrip().startswith("{"):  # as written: its texts keep their spaces
        return _json_decode(text, f"'{keyword}' chunk")
    # translate, not split: "QUJD " * 3 million split into as many strings (200 MB).
    text = text.translate(_WHITESPACE_DROPPED)
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise CardError(f"PNG '{keyword}' text chunk is not valid base64") from None
    return _json_decode(raw, f"'{keyword}' chunk")


def _png_card(data: bytes) -> dict[str, Any]:
    """The card of the first chunk that reads, ccv3 before chara: a card whose `ccv3` chunk
    cannot be read still imports from its `chara` copy; with neither, the ccv3 error."""
    texts = png_card_texts(png_chunks(data))
    refused: CardError | None = None
    for keyword in CARD_KEYWORDS:
        if keyword in texts:
            try:
                return card_normalize(_card_text_decode(keyword, texts[keyword]))
            except CardError as exc:
                refused = refused or exc
    if refused is not None:
        raise refused
    raise PictureNotCard("PNG has no 'chara' or 'ccv3' text chunk (it is a picture, not a card)")


def card_parse(data: bytes, filename: str = "") -> dict[str, Any]:
    """Read a card from PNG or JSON bytes; ccv3 is preferred over chara."""
    if data.startswith(PNG_SIGNATURE):
        return _png_card(data)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") or filename.lower().endswith(".json"):
        return card_normalize(_json_decode(data, "file"))
    raise CardError("not a PNG file or card JSON")


def _spec_of(raw: dict[str, Any]) -> str:
    if raw.get("type") in ("risuChat", "risuAllChats"):
        raise CardError("this file is a RisuAI chat, not a character card; import it on the "
                        "chat page")
    spec = raw.get("spec")
    if isinstance(spec, str) and spec not in ("chara_card_v2", "chara_card_v3"):
        raise CardError(f"unsupported card spec {spec[:80]!r} "
                        "(PersonaLab reads chara_card_v2, chara_card_v3 and V1 cards)", "spec")
    if isinstance(raw.get("data"), dict):
        return "chara_card_v2"
    if is_agnai_character(raw):
        return "agnai"
    _other_file_refuse(raw)
    # SillyTavern reads each field of a card whose `data` is not an object from the V1 copy.
    if raw.get("name") is not None:
        return "v1"
    if raw.get("char_name") is not None:
        return "pygmalion"
    if raw.get("data") is not None:
        raise CardError("card JSON is invalid: 'data' must be an object", "data")
    raise CardError("card JSON is invalid: no 'spec', no 'data' and no character name "
                    "('name' or 'char_name')")


# Keys of the files people upload as a card by mistake, and what each file is.
OTHER_FILES = (("entries", "a lorebook (world info); import it under Lorebooks"),
               ("messages", "a chat; import it on the chat page"),
               ("chat_metadata", "a chat; import it on the chat page"),
               ("mes", "a chat; import it on the chat page"))


def _other_file_refuse(raw: dict[str, Any]) -> None:
    """A lorebook or a chat is not read as a card without text (a world-info file has a name,
    and a V1 card is little more than one)."""
    if any(name in raw for name in V1_FIELDS[1:]):
        return
    for key, what in OTHER_FILES:
        if key in raw:
            raise CardError(f"this file is {what}, not a character card")


def _data_normalize(data: dict[str, Any]) -> dict[str, Any]:
    for name in TEXT_FIELDS:
        data[name] = card_text(data.get(name), name)
    for name in LIST_FIELDS:
        data[name] = card_text_list(data.get(name), name)
    data["extensions"] = card_object_or_none(data.get("extensions"), "extensions",
                                         "field 'extensions' must be an object") or {}
    book = card_object_or_none(data.get("character_book"), "character_book",
                           "'character_book' must be an object with entries")
    if book is None:
        data.pop("character_book", None)
        return data
    entries = book.get("entries")
    if isinstance(entries, dict):  # a world-info file's entries, pasted into a card
        book["entries"] = list(entries.values())
    elif entries is None or entries in ([], "", False):
        book["entries"] = []
    elif not isinstance(entries, list):
        raise CardError("card JSON is invalid: 'character_book.entries' must be a list",
                        "data.character_book.entries")
    return data


def card_normalize(raw: Any) -> dict[str, Any]:
    """Any V1/V2/V3 card as a V3-shaped dict; unknown fields are kept where they were."""
    if not isinstance(raw, dict):
        raise CardError("card JSON is invalid: expected a JSON object")
    card = copy.deepcopy(raw)
    spec = _spec_of(card)
    if spec == "agnai":
        return _agnai_normalize(card)
    if spec == "v1":
        # SillyTavern's V1 import keeps `tags` too, and of a card whose `data` is missing it
        # keeps the root as it is, whose `tags` its importTags gives the character (text
        # ones: other values only fail its tag step, never the import).
        card["data"] = {name: card.get(name) for name in V1_FIELDS}
        tags = card.get("tags")
        card["data"]["tags"] = tags if isinstance(tags, str) else [
            tag for tag in tags if isinstance(tag, str)] if isinstance(tags, list) else []
    elif spec == "pygmalion":
        card["data"] = {name: card.get(field) for field, name in PYGMALION_FIELDS.items()}
    card["spec"], card["spec_version"] = SPECS["v3"]
    card["data"] = _data_normalize(card["data"])
    return card


def _agnai_normalize(raw: dict[str, Any]) -> dict[str, Any]:
    """Agnai's character JSON; a refusal names Agnai's field, as the file has it."""
    try:
        return card_normalize(agnai_character_to_card(raw))
    except AgnaiCardInvalid as exc:
        raise CardError(str(exc), exc.field) from None
    except CardError as exc:
        by_card_name = {f"data.{card}": agnai for agnai, card in AGNAI_RENAMED.items()}
        exc.fields = {by_card_name.get(field, field): message
                      for field, message in exc.fields.items()}
        raise


# persona text ---------------------------------------------------------------

def persona_build(data: dict[str, Any]) -> str:
    """base_persona from a card: description, personality and scenario, each labelled."""
    parts = [f"[{label}]\n{data.get(name, '').strip()}"
             for name, label in PERSONA_SECTIONS if (data.get(name) or "").strip()]
    return "\n\n".join(parts)


def persona_split(text: str) -> dict[str, str]:
    """The inverse of persona_build; text before any label belongs to the description."""
    pieces = PERSONA_LABEL.split(text)
    sections = {name: "" for name, _ in PERSONA_SECTIONS}
    sections["description"] = pieces[0].strip()
    by_label = {label: name for name, label in PERSONA_SECTIONS}
    for label, body in zip(pieces[1::2], pieces[2::2]):
        name = by_label[label]
        sections[name] = "\n\n".join(part for part in (sections[name], body.strip()) if part)
    return sections

# definition <-> card ---------------------------------------------------------

def card_to_definition(card: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(PersonaLab character definition, lorebook or None). The definition keeps the whole
    card under "card" except character_book, which lives on as the returned lorebook."""
    card = card_normalize(card)
    data = card["data"]
    name = data["name"].strip()
    if not name:
        raise CardError("card has no character name", "data.name")
    lorebook = None
    book = data.pop("character_book", None)
    if book is not None:
        lorebook = character_book_to_lorebook(book, fallback_name=f"{name} lorebook",
                                              id_order=True)
    definition = {
        "name": name,
        "base_persona": persona_build(data),
        "greeting": data["first_mes"],
        "tags": card_tags_imported(data["tags"]),
        "card": card,
    }
    return definition, lorebook


def decorators_strip(content: str) -> str:
    """An entry's content without its leading V3 `@@` decorator lines (V2 has none)."""
    return DECORATOR_LINES.sub("", content, count=1)


def _as_v2(card: dict[str, Any]) -> None:
    """V3-only fields and decorators out; everything V2 has stays as it was."""
    data = card["data"]
    for name in V3_ONLY_FIELDS:
        data.pop(name, None)
    for entry in (data.get("character_book") or {}).get("entries") or []:
        if isinstance(entry, dict) and isinstance(entry.get("content"), str):
            entry["content"] = decorators_strip(entry["content"])


def _card_as(card: dict[str, Any], spec: str) -> dict[str, Any]:
    if spec not in SPECS:
        raise ValueError(f"spec must be 'v2' or 'v3', not {spec!r}")
    card = copy.deepcopy(card)
    card["spec"], card["spec_version"] = SPECS[spec]
    if spec == "v2":
        _as_v2(card)
    for name in V1_FIELDS + ("tags",):
        if name in card:  # V1 mirror fields at the top level, kept in step with data
            card[name] = copy.deepcopy(card["data"].get(name))
    return card


def _edited(value: Any, stored: str) -> bool:
    return isinstance(value, str) and value.strip() != stored.strip()


def definition_to_card(definition: dict[str, Any], lorebook: dict[str, Any] | None, *,
                       spec: str = "v3") -> dict[str, Any]:
    """Rebuild a card from a definition: its stored card with the edited fields laid over it.
    The character_book comes from `lorebook` only (None: the card has no character_book)."""
    card = card_normalize(definition.get("card") or {"spec": "chara_card_v3", "data": {}})
    data = card["data"]
    # The library strips whitespace on save; that alone is not an edit of the card's text.
    if _edited(definition.get("name"), data["name"]) and definition["name"].strip():
        data["name"] = definition["name"]
    if _edited(definition.get("base_persona"), persona_build(data)):
        data.update(persona_split(definition["base_persona"]))
    if _edited(definition.get("greeting"), data["first_mes"]):
        data["first_mes"] = definition["greeting"]
    # The card's own tags stay while the character's are what the import made of them.
    if definition.get("tags") is not None \
            and list(definition["tags"]) != card_tags_imported(data["tags"]):
        data["tags"] = list(definition["tags"])
    data.pop("character_book", None)
    if lorebook is not None:
        data["character_book"] = lorebook_to_character_book(lorebook)
    return _card_as(card, spec)


def card_to_json(card: dict[str, Any], spec: str = "v2") -> bytes:
    return json.dumps(_card_as(card_normalize(card), spec), ensure_ascii=False,
                      indent=2).encode("utf-8")

def card_to_png(card_v3: dict[str, Any], *, image: bytes | None = None) -> bytes:
    """A PNG holding the card twice: `chara` (V2, for older apps) and `ccv3` (V3). `image` is
    the picture to use (any card chunks in it are replaced); None makes a plain-colour one."""
    card = card_normalize(card_v3)
    picture = image if image is not None else placeholder_image(card["data"]["name"])
    chunks = [(k, b) for k, b in png_chunks(picture) if not is_card_chunk(k, b)]
    end = next((i for i, (kind, _) in enumerate(chunks) if kind == b"IEND"), None)
    if end is None:
        raise CardError("PNG is truncated: no IEND chunk")
    chunks[end:end] = [card_text_chunk("chara", _card_as(card, "v2")),
                       card_text_chunk("ccv3", _card_as(card, "v3"))]
    return png_build(chunks)
