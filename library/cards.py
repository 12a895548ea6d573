"""Character Card V2/V3 import and export (PNG with `chara` / `ccv3` text chunks, or JSON).

Framework-free and without Pillow: PNG chunks are read and written with struct/zlib.
A parsed card is always V3-shaped: {"spec", "spec_version", "data": {...}, ...} with every
field the card had kept, known or not, so an exported card carries what was imported.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
import re
import struct
import zlib
from typing import Any

from library.agnai_card import (RENAMED as AGNAI_RENAMED, AgnaiCardInvalid,
                               agnai_character_to_card, is_agnai_character)
from library.lorebook import (MAX_DEPTH, MAX_PRIORITY, MAX_SCAN_DEPTH, MAX_TOKEN_BUDGET, MAX_UID,
                              LorebookError, lorebook_validate)
from library.worldinfo import DECORATOR_LINES
from personalab.lib.errors import AppError
from personalab.lib.nesting import TooDeep, json_loads_bounded

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = ("ccv3", "chara")  # preference order
TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt")
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
PERSONA_LABEL = re.compile(r"^\[(Description|Personality|Scenario)\][ \t]*\n?", re.MULTILINE)
GENERATED_SIZE = (256, 384)
# All card text chunks of one PNG together (a card with a big lorebook is a few MB).
MAX_CARD_TEXT_BYTES = 16 * 2**20


class CardError(AppError, ValueError):
    code = "invalid_card"

    def __init__(self, message: str, field: str = "file") -> None:
        super().__init__(message=message, fields={field: message})


# PNG chunks ---------------------------------------------------------------

def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    if not data.startswith(PNG_SIGNATURE):
        raise CardError("not a PNG file")
    chunks = []
    offset = len(PNG_SIGNATURE)
    while offset < len(data):
        if offset + 8 > len(data):
            raise CardError(f"PNG is truncated: chunk header at byte {offset} is cut off")
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        end = offset + 12 + length
        if end > len(data):
            raise CardError(f"PNG is truncated: chunk {kind!r} at byte {offset} runs past the end")
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:end])
        if zlib.crc32(kind + body) != crc:
            raise CardError(f"PNG is damaged: bad checksum in chunk {kind!r} at byte {offset}")
        chunks.append((kind, body))
        offset = end
        if kind == b"IEND":
            break
    return chunks


def _png_build(chunks: list[tuple[bytes, bytes]]) -> bytes:
    parts = [PNG_SIGNATURE]
    for kind, body in chunks:
        parts.append(struct.pack(">I4s", len(body), kind) + body
                     + struct.pack(">I", zlib.crc32(kind + body)))
    return b"".join(parts)


def _inflate(data: bytes, *, limit: int, what: str) -> bytes:
    """zlib-inflate at most `limit` bytes: a card-sized chunk can hide gigabytes (a zip bomb)."""
    inflater = zlib.decompressobj()
    text = inflater.decompress(data, limit)
    if inflater.unconsumed_tail or (len(text) == limit and not inflater.eof):
        raise CardError(f"PNG {what} inflates past the {MAX_CARD_TEXT_BYTES // 2**20} MB "
                        "limit for card text; refused")
    return text


def _text_chunk_read(kind: bytes, body: bytes, *, limit: int) -> tuple[str, str] | None:
    """(keyword, text) of a tEXt/zTXt/iTXt chunk, None when it cannot be read."""
    keyword, _, rest = body.partition(b"\x00")
    name = keyword.decode("latin-1").lower()
    what = f"{kind.decode('latin-1')} chunk '{name}'"
    try:
        if kind == b"tEXt":
            text = rest.decode("latin-1")
        elif kind == b"zTXt":
            text = _inflate(rest[1:], limit=limit, what=what).decode("latin-1")
        else:
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\x00")
            _translated, _, rest = rest.partition(b"\x00")
            raw = _inflate(rest, limit=limit, what=what) if compressed else rest
            text = raw.decode("utf-8")
    except (zlib.error, UnicodeDecodeError, IndexError):
        return None
    return name, text


def _png_card_texts(chunks: list[tuple[bytes, bytes]]) -> dict[str, str]:
    texts: dict[str, str] = {}
    budget = MAX_CARD_TEXT_BYTES
    for kind, body in chunks:
        if not _is_card_chunk(kind, body):
            continue  # other text chunks are never inflated: they are kept as they are
        found = _text_chunk_read(kind, body, limit=max(budget, 1))
        if found:
            texts.setdefault(found[0], found[1])
            budget -= len(found[1])
    return texts


def _is_card_chunk(kind: bytes, body: bytes) -> bool:
    if kind not in TEXT_CHUNKS:
        return False
    return body.partition(b"\x00")[0].decode("latin-1").lower() in CARD_KEYWORDS


def _png_solid(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return _png_build([(b"IHDR", header), (b"IDAT", zlib.compress(row * height, 9)),
                       (b"IEND", b"")])


def card_image(data: bytes) -> bytes | None:
    """The picture of a PNG card without its card chunks (to keep as the avatar), else None."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    chunks = _png_chunks(data)
    return _png_build([(kind, body) for kind, body in chunks if not _is_card_chunk(kind, body)])


# parsing ------------------------------------------------------------------

def _json_decode(raw: bytes | str, where: str) -> Any:
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise CardError(f"card JSON is invalid: {where} is not UTF-8 text") from None
    try:
        return json_loads_bounded(text)
    except (json.JSONDecodeError, TooDeep) as exc:
        raise CardError(f"card JSON is invalid: {where}: {exc}") from None


def _card_text_decode(keyword: str, text: str) -> Any:
    text = "".join(text.split())
    if text.startswith("{"):
        return _json_decode(text, f"'{keyword}' chunk")
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise CardError(f"PNG '{keyword}' text chunk is not valid base64") from None
    return _json_decode(raw, f"'{keyword}' chunk")


def _png_card(data: bytes) -> dict[str, Any]:
    """The card of the first chunk that reads, ccv3 before chara: a card whose `ccv3` chunk
    cannot be read still imports from its `chara` copy; with neither, the ccv3 error."""
    texts = _png_card_texts(_png_chunks(data))
    refused: CardError | None = None
    for keyword in CARD_KEYWORDS:
        if keyword in texts:
            try:
                return card_normalize(_card_text_decode(keyword, texts[keyword]))
            except CardError as exc:
                refused = refused or exc
    if refused is not None:
        raise refused
    raise CardError("PNG has no 'chara' or 'ccv3' text chunk (it is a picture, not a card)")


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


def _as_text(value: Any, field: str) -> str:
    """A card's text field: null is empty, a number or true/false is written as SillyTavern's
    JavaScript would write it, an object or a list is refused naming the field."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    raise CardError(f"card JSON is invalid: field '{field}' must be text", f"data.{field}")


def _as_text_list(value: Any, field: str) -> list[str]:
    """A list of text: an empty value of any type is none, one text is a list of it (tags
    are split on commas, as SillyTavern's tag box does), null items are dropped; a number or
    an object is refused naming the field."""
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",")] if field == "tags" else [value]
        return [part for part in parts if part.strip()]
    if not value and not isinstance(value, float):
        return []
    if not isinstance(value, list):
        raise CardError(f"card JSON is invalid: field '{field}' must be a list of text",
                        f"data.{field}")
    return [_as_text(item, f"{field}[{index}]") for index, item in enumerate(value)
            if item is not None]


def _object_or_none(value: Any, field: str, message: str) -> dict[str, Any] | None:
    """An object field: an empty value of another type ([], "", 0, false) is missing."""
    if isinstance(value, dict):
        return value
    if value is None or value in ([], "", False):
        return None
    raise CardError(f"card JSON is invalid: {message}", f"data.{field}")


def _data_normalize(data: dict[str, Any]) -> dict[str, Any]:
    for name in TEXT_FIELDS:
        data[name] = _as_text(data.get(name), name)
    for name in LIST_FIELDS:
        data[name] = _as_text_list(data.get(name), name)
    data["extensions"] = _object_or_none(data.get("extensions"), "extensions",
                                         "field 'extensions' must be an object") or {}
    book = _object_or_none(data.get("character_book"), "character_book",
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
        card["data"] = {name: card.get(name) for name in V1_FIELDS}
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


# character_book <-> lorebook -------------------------------------------------

BOOK_FIELDS = {"name", "description", "scan_depth", "token_budget", "recursive_scanning",
               "extensions", "entries"}
ENTRY_FIELDS = {"keys", "secondary_keys", "content", "enabled", "insertion_order",
                "case_sensitive", "constant", "selective", "position", "use_regex", "comment",
                "extensions"}
# SillyTavern's numbering in entry.extensions.
ST_LOGIC = {0: "and_any", 1: "not_all", 2: "not_any", 3: "and_all"}
ST_ROLE = {0: "system", 1: "user", 2: "assistant"}
ST_POSITION_DEPTH = 4
# Lorebook entry settings and their names in a card entry's extensions (SillyTavern's export).
ENTRY_EXTENSION_NAMES = {
    "match_whole_words": "match_whole_words", "scan_depth": "scan_depth",
    "probability": "probability", "use_probability": "useProbability", "group": "group",
    "group_override": "group_override", "group_weight": "group_weight", "sticky": "sticky",
    "cooldown": "cooldown", "delay": "delay", "exclude_recursion": "exclude_recursion",
    "prevent_recursion": "prevent_recursion", "delay_until_recursion": "delay_until_recursion",
    "use_group_scoring": "use_group_scoring", "outlet_name": "outlet_name",
    "character_filter": "character_filter", "vectorized": "vectorized",
    "ignore_budget": "ignore_budget", "match_persona_description": "match_persona_description",
    "match_character_description": "match_character_description",
    "match_character_personality": "match_character_personality",
    "match_character_depth_prompt": "match_character_depth_prompt",
    "match_scenario": "match_scenario", "match_creator_notes": "match_creator_notes",
}
ST_POSITIONS = {0: "before_char", 1: "after_char", 2: "an_top", 3: "an_bottom",
                ST_POSITION_DEPTH: "depth", 5: "em_top", 6: "em_bottom", 7: "outlet"}


def _st_position(entry: dict[str, Any], ext: dict[str, Any]) -> str:
    # SillyTavern reads its own number first; other numbers (author's note...) fall back.
    known = ST_POSITIONS
    position = ext.get("position")
    if isinstance(position, int) and position in known:
        return known[position]
    return "after_char" if entry.get("position") == "after_char" else "before_char"


def _int_or(value: Any, default: int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _int_in(value: Any, default: int | None, low: int, high: int) -> int | None:
    """A whole number of a lorebook setting: another type or a number below `low` is the
    default, a number past `high` is `high`."""
    number = _int_or(value, None)
    if number is None or number < low:
        return default
    return min(number, high)


def _keys_of(value: Any) -> list[str]:
    """Trigger keys as SillyTavern's box reads them: one text is split on commas, numbers
    are text, anything else is no key."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list):
        return []
    return [str(k) if not isinstance(k, str) else k for k in value
            if isinstance(k, str) or (isinstance(k, int) and not isinstance(k, bool))]


def _text_or_kept(value: Any, default: str = "") -> Any:
    """Entry or book text: a number or true/false is written as text; a list or an object
    is passed on for the lorebook's check to refuse by its field name."""
    if value is None or value is False or value in ("", [], {}):
        return default
    if isinstance(value, (list, dict)):
        return value
    return _as_text(value, "")


def _entry_from_card(raw: dict[str, Any], index: int) -> dict[str, Any]:
    ext = raw.get("extensions") if isinstance(raw.get("extensions"), dict) else {}
    extra = {key: value for key, value in raw.items() if key not in ENTRY_FIELDS}
    if "extensions" in raw and not isinstance(raw["extensions"], dict):
        extra["extensions"] = raw["extensions"]
    uid = _int_in(raw.get("id"), None, 0, MAX_UID + 1)
    secondary = _keys_of(raw.get("secondary_keys"))
    if secondary and not raw.get("selective"):
        extra["inactive_secondary_keys"] = secondary  # the card says they are ignored
        secondary = []
    return {
        "uid": uid if uid is not None and uid <= MAX_UID else index,
        "keys": _keys_of(raw.get("keys")),
        "secondary_keys": secondary,
        "selective_logic": ST_LOGIC.get(_int_or(ext.get("selectiveLogic"), 0), "and_any"),
        "use_regex": bool(raw.get("use_regex")),
        "case_sensitive": bool(raw.get("case_sensitive") or ext.get("case_sensitive")),
        "content": _text_or_kept(raw.get("content")),
        "enabled": raw.get("enabled", True) is not False,
        "constant": bool(raw.get("constant")),
        "priority": _int_in(raw.get("insertion_order"), 100, -MAX_PRIORITY, MAX_PRIORITY),
        "position": _st_position(raw, ext),
        "depth": _int_in(ext.get("depth"), 4, 0, MAX_DEPTH),
        "role": ST_ROLE.get(_int_or(ext.get("role"), 0), "system"),
        "comment": _text_or_kept(raw.get("comment"),
                                 raw["name"] if isinstance(raw.get("name"), str) else ""),
        "extensions": copy.deepcopy(ext),
        "card_extra": copy.deepcopy(extra),
    }


def _uids_unique(entries: list[dict[str, Any]]) -> None:
    seen: set[int] = set()
    next_uid = max((e["uid"] for e in entries), default=-1) + 1
    for entry in entries:
        if entry["uid"] in seen or entry["uid"] < 0:
            entry["uid"] = next_uid
            next_uid += 1
        seen.add(entry["uid"])


def character_book_to_lorebook(book: dict[str, Any], *, fallback_name: str) -> dict[str, Any]:
    """A card's character_book as a PersonaLab lorebook (without lorebook_id). A setting of
    the wrong type is its default; text that is an object or a list is refused by name."""
    entries = [_entry_from_card(raw, index)
               for index, raw in enumerate(book.get("entries") or []) if isinstance(raw, dict)]
    _uids_unique(entries)
    extensions = book.get("extensions")
    extra = {k: copy.deepcopy(v) for k, v in book.items() if k not in BOOK_FIELDS}
    if extensions is not None and not isinstance(extensions, dict):
        extra["extensions"] = copy.deepcopy(extensions)  # kept as it came, read as none
    lorebook = {
        "name": _text_or_kept(book.get("name"), fallback_name),
        "description": _text_or_kept(book.get("description")),
        "scan_depth": _int_in(book.get("scan_depth"), None, 0, MAX_SCAN_DEPTH),
        "token_budget": _int_in(book.get("token_budget"), None, 0, MAX_TOKEN_BUDGET),
        "recursive": (None if book.get("recursive_scanning") is None
                      else bool(book["recursive_scanning"])),
        "entries": entries,
        "extensions": copy.deepcopy(extensions) if isinstance(extensions, dict) else {},
        "card_extra": extra,
    }
    try:
        return lorebook_validate(lorebook)
    except LorebookError as exc:
        raise CardError(f"the card's character_book is invalid: {exc}") from None


def _ext_update(ext: dict[str, Any], entry: dict[str, Any], raw_position: str) -> dict[str, Any]:
    """Write SillyTavern's extension numbers only where their meaning changed, so values the
    lorebook cannot express (e.g. author's-note positions) survive an unchanged entry."""
    ext = copy.deepcopy(ext)
    if _st_position({"position": raw_position}, ext) != entry["position"]:
        ext["position"] = {v: k for k, v in ST_POSITIONS.items()}[entry["position"]]
    if entry["position"] == "depth" or "depth" in ext:
        if _int_or(ext.get("depth"), 4) != entry["depth"] or "depth" not in ext:
            ext["depth"] = entry["depth"]
    for name, card_name in ENTRY_EXTENSION_NAMES.items():
        if entry.get(name) is not None and ext.get(card_name) != entry[name]:
            ext[card_name] = entry[name]
    if ST_ROLE.get(_int_or(ext.get("role"), 0), "system") != entry["role"]:
        ext["role"] = {v: k for k, v in ST_ROLE.items()}[entry["role"]]
    if ST_LOGIC.get(_int_or(ext.get("selectiveLogic"), 0), "and_any") \
            != entry["selective_logic"]:
        ext["selectiveLogic"] = {v: k for k, v in ST_LOGIC.items()}[entry["selective_logic"]]
    return ext


def _entry_to_card(entry: dict[str, Any]) -> dict[str, Any]:
    extra = copy.deepcopy(entry.get("card_extra") or {})
    inactive = extra.pop("inactive_secondary_keys", [])
    raw_position = "after_char" if entry["position"] == "after_char" else "before_char"
    secondary = entry["secondary_keys"]
    return {
        **extra,
        "id": extra["id"] if isinstance(extra.get("id"), str) else entry["uid"],
        "keys": list(entry["keys"]),
        "secondary_keys": list(secondary or inactive),
        "selective": bool(secondary),
        "content": entry["content"],
        "enabled": entry["enabled"],
        "constant": entry["constant"],
        "insertion_order": entry["priority"],
        "case_sensitive": entry["case_sensitive"],
        "use_regex": entry["use_regex"],
        "position": raw_position,
        "comment": entry["comment"],
        "extensions": _ext_update(entry.get("extensions") or {}, entry, raw_position),
    }


def lorebook_to_character_book(lorebook: dict[str, Any]) -> dict[str, Any]:
    book = lorebook_validate(lorebook)
    card_book = {
        **copy.deepcopy(book.get("card_extra") or {}),
        "name": book["name"],
        "description": book["description"],
        "scan_depth": book["scan_depth"],
        "token_budget": book["token_budget"],
        "recursive_scanning": book["recursive"],
        "extensions": copy.deepcopy(book["extensions"]),
        "entries": [_entry_to_card(entry) for entry in book["entries"]],
    }
    for name in ("token_budget", "scan_depth", "recursive_scanning"):
        if card_book[name] is None:  # nothing added that the author did not set
            del card_book[name]
    return card_book


def lorebooks_to_character_book(lorebooks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """All of a character's books as one character_book, as SillyTavern exports a card: the
    first book's settings, every book's entries (uids renumbered where they collide)."""
    books = [lorebook_to_character_book(lorebook) for lorebook in lorebooks]
    if not books:
        return None
    merged = {**books[0], "entries": []}
    used: set[Any] = set()
    for book in books:
        for entry in book["entries"]:
            if entry.get("id") in used:
                entry = {**entry, "id": max((i for i in used if isinstance(i, int)),
                                            default=-1) + 1}
            used.add(entry.get("id"))
            merged["entries"].append(entry)
    return merged


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
        lorebook = character_book_to_lorebook(book, fallback_name=f"{name} lorebook")
    definition = {
        "name": name,
        "base_persona": persona_build(data),
        "greeting": data["first_mes"],
        "tags": list(data["tags"]),
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
    if definition.get("tags") is not None:
        data["tags"] = list(definition["tags"])
    data.pop("character_book", None)
    if lorebook is not None:
        data["character_book"] = lorebook_to_character_book(lorebook)
    return _card_as(card, spec)


def card_to_json(card: dict[str, Any], spec: str = "v2") -> bytes:
    return json.dumps(_card_as(card_normalize(card), spec), ensure_ascii=False,
                      indent=2).encode("utf-8")


def _text_chunk(keyword: str, card: dict[str, Any]) -> tuple[bytes, bytes]:
    payload = json.dumps(card, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"tEXt", keyword.encode("latin-1") + b"\x00" + base64.b64encode(payload)


def _placeholder_image(name: str) -> bytes:
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    rgb = (64 + digest[0] % 128, 64 + digest[1] % 128, 64 + digest[2] % 128)
    return _png_solid(*GENERATED_SIZE, rgb)


def card_to_png(card_v3: dict[str, Any], *, image: bytes | None = None) -> bytes:
    """A PNG holding the card twice: `chara` (V2, for older apps) and `ccv3` (V3). `image` is
    the picture to use (any card chunks in it are replaced); None makes a plain-colour one."""
    card = card_normalize(card_v3)
    picture = image if image is not None else _placeholder_image(card["data"]["name"])
    chunks = [(k, b) for k, b in _png_chunks(picture) if not _is_card_chunk(k, b)]
    end = next((i for i, (kind, _) in enumerate(chunks) if kind == b"IEND"), None)
    if end is None:
        raise CardError("PNG is truncated: no IEND chunk")
    chunks[end:end] = [_text_chunk("chara", _card_as(card, "v2")),
                       _text_chunk("ccv3", _card_as(card, "v3"))]
    return _png_build(chunks)
