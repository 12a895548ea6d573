"""Checking what an author sends for a library item: text lengths, tags, card-only fields
(alternate greetings, the Character's Note), lorebook links, owner and visibility. A refusal is a
LibraryError naming the field; nothing is written here."""

from __future__ import annotations

import copy
import re
from typing import Any

from library.card_formats.extensions import extension_edits_of, extensions_applied
from library.errors import LibraryError
from library.selectors import lorebooks_visible_to, visibility_of
from personalab.lib.filestore.store import FileStore
from personalab.lib.shown import value_shown

MAX_TEXT = 20000
# Card text is generous: real cards carry 30-100 KB descriptions and dozens of tags.
MAX_CARD_TEXT = 1_000_000
MAX_TAGS = 1000
MAX_TAG_CHARS = 200
# Tag separators in a text (or items in a list) past which it surely holds more than MAX_TAGS:
# refused before it is split.
TAG_PARTS_MAX = 10 * MAX_TAGS
MAX_NAME_CHARS = 200  # a name written here (a character's, a lorebook's)
# Card fields the character editor shows besides name, persona and greeting.
CARD_TEXT_FIELDS = ("system_prompt", "post_history_instructions", "mes_example",
                    "creator_notes")

def clean_text(value: Any, *, field: str, required: bool = False, limit: int = MAX_TEXT) -> str:
    if value is not None and not isinstance(value, str):
        raise LibraryError(f"{field} must be text", {field: "must be a string"})
    text = "" if value is None else value.strip()
    if required and not text:
        raise LibraryError(f"{field} is required", {field: "required"})
    if len(text) > limit:
        raise LibraryError(f"{field} is longer than {limit} characters",
                           {field: f"at most {limit} characters"})
    return text


def as_written(value: Any, *, field: str, limit: int = MAX_CARD_TEXT) -> str:
    """Card text as the author wrote it (browsers send CRLF; cards store LF)."""
    if value is not None and not isinstance(value, str):
        raise LibraryError(f"{field} must be text", {field: "must be text"})
    text = (value or "").replace("\r\n", "\n")
    if len(text) > limit:
        raise LibraryError(f"{field} is longer than {limit} characters",
                           {field: f"at most {limit} characters"})
    return text


def clean_tags(value: Any) -> list[str]:
    """Tags kept as given; a string is split on commas (one tag per line if it has lines)."""
    if value is None:
        return []
    problem = f"at most {MAX_TAGS} tags of at most {MAX_TAG_CHARS} characters each"
    if isinstance(value, str) and value.count("\n" if "\n" in value else ",") >= TAG_PARTS_MAX:
        raise LibraryError(f"tags: {problem}", {"tags": problem})  # never split
    if isinstance(value, str):
        value = value.splitlines() if "\n" in value else value.split(",")
        value = [tag.strip() for tag in value]
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise LibraryError("tags must be a list of text", {"tags": "must be a list of text"})
    tags = [tag for tag in value if tag.strip()]
    if len(tags) > MAX_TAGS or any(len(tag) > MAX_TAG_CHARS for tag in tags):
        raise LibraryError(f"tags: {problem}", {"tags": problem})
    return tags


# "1. ", "2) ", "3、", "4．": a point's own number typed in the outline box. Anchored and bounded.
POINT_NUMBER = re.compile(r"^\s*\d{1,3}(?:[.)]\s+|[、．）:：]\s*)")


def outline_points(text: str) -> list[str]:
    """The story outline typed one point per line; when every point starts with its own
    number ("1. Arrive…"), the numbers go: the outline numbers its points itself and showed
    "1. 1. Arrive…". A list where only some lines start with a number is kept as typed."""
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and all(POINT_NUMBER.match(line) for line in lines):
        return [POINT_NUMBER.sub("", line, count=1) for line in lines]
    return lines


def same_text(new: str, old: Any) -> bool:
    # The form strips nothing but the browser may; trailing whitespace alone is no edit.
    return isinstance(old, str) and new.strip() == old.strip()


def card_with_fields(card: Any, data: dict[str, Any]) -> Any:
    """The stored card with the edited card-only fields laid over it; untouched otherwise."""
    edits = {}
    for name in CARD_TEXT_FIELDS:
        if name in data:
            text = as_written(data[name], field=name)
            current = ((card or {}).get("data") or {}).get(name, "")
            if not same_text(text, current):
                edits[name] = text
    if "alternate_greetings" in data:
        current = ((card or {}).get("data") or {}).get("alternate_greetings")
        greetings = _greetings_edited(current, data["alternate_greetings"])
        if greetings is not None:
            edits["alternate_greetings"] = greetings
    extension_edits = extension_edits_of(card, data)
    if not edits and not extension_edits:
        return card
    card = copy.deepcopy(card) if isinstance(card, dict) else {
        "spec": "chara_card_v3", "spec_version": "3.0", "data": {}}
    card.setdefault("data", {}).update(edits)
    if extension_edits:
        card["data"]["extensions"] = extensions_applied(card["data"].get("extensions"),
                                                        extension_edits)
    return card


def _greetings_edited(current: Any, posted: Any) -> list[Any] | None:
    """The card's alternate greetings after an edit (added, removed, reordered, changed), or
    None when nothing changed. A greeting whose text is unchanged keeps its stored form, so an
    unchanged or only reordered list loses nothing; an emptied one is removed."""
    if not isinstance(posted, list) or not all(isinstance(text, str) for text in posted):
        raise LibraryError("alternate_greetings must be a list of text",
                           {"alternate_greetings": "must be a list of text"})
    texts = [as_written(text, field="alternate_greetings") for text in posted]
    current = current if isinstance(current, list) else []
    if len(texts) == len(current) and all(same_text(new, old)
                                          for new, old in zip(texts, current)):
        return None
    unused = list(current)
    greetings: list[Any] = []
    for text in texts:
        if not text.strip():
            continue
        same = next((index for index, old in enumerate(unused) if same_text(text, old)), None)
        greetings.append(text if same is None else unused.pop(same))
    return greetings

def text_kept(new: str, old: Any) -> Any:
    return old if same_text(new, old) else new

def lorebook_ids_checked(store: FileStore, value: Any, *, user,
                        linked: Any = ()) -> list[str]:
    """A list of ids of existing lorebooks the author may use: anything else would make every
    instance using the item fail later. Ids already `linked` stay allowed, so an unrelated
    change is not refused over a link made earlier."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LibraryError("lorebook_ids must be a list of lorebook ids",
                           {"lorebook_ids": "must be a list of lorebook ids"})
    existing = set(store.lorebook_ids())
    usable = (existing if user is None else
              set(lorebooks_visible_to(user=user).values_list("lorebook_id", flat=True)))
    kept = set(linked) if isinstance(linked, list) else set()
    for lorebook_id in value:
        if lorebook_id not in kept and (lorebook_id not in existing or lorebook_id not in usable):
            raise LibraryError(f"lorebook_ids: no lorebook {value_shown(lorebook_id)}",
                               {"lorebook_ids": f"no lorebook {value_shown(lorebook_id)}"})
    return list(dict.fromkeys(value))


def ownership_of(data: dict[str, Any], existing: dict[str, Any], *, user) -> dict[str, Any]:
    """Owner and visibility of a saved item: a new item belongs to its creator (private unless
    asked otherwise); a change keeps the owner and may switch the visibility."""
    owner = existing.get("owner") if existing else (user.get_username() if user else None)
    visibility = data.get("visibility")
    if visibility in (None, ""):
        visibility = visibility_of(existing) if existing else ("private" if owner else "shared")
    if visibility not in ("private", "shared"):
        raise LibraryError("visibility must be private or shared",
                           {"visibility": "must be 'private' or 'shared'"})
    return {"owner": owner, "visibility": visibility}
