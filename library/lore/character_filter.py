"""A world-info entry's character filter judged against the character who answers, as
SillyTavern's checkWorldInfo does (public/scripts/world-info.js): the names and the tags are
two checks, each must let the entry through; a tag check asks whether any of the speaker's
tags is in the filter, and `isExclude` turns "only for" into "not for".

SillyTavern keeps a tag filter as its tags' ids; here a speaker's tags are names, so an id is
judged by the name that stands right after it in the filter (library/lore/st_tags.py writes
`[id, "fantasy"]`). An id with no name after it might be any of the speaker's tags: when the
filter's names do not decide alone, the check is unsure and is left unapplied, and the reason
says so (docs/decisions/st-tag-ids.md).
"""

from __future__ import annotations

import re
from typing import Any

from library.lore.keys import setting

# SillyTavern's editor keeps a tag filter as its tags' ids (a uuid, or an older timestamp),
# names only its own settings.json holds; a world file brings the ids alone. The pattern is
# fixed and bounded, so stdlib re (3x faster here than regex, read per id up to 10,000 a page).
ST_TAG_ID = re.compile(r"\d{10,16}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
IDS_SHOWN_CHARS = 120


def filter_texts(value: Any) -> list[str]:
    """A list of names or tags as written in a file: one text is a list of it; anything
    else than text or a list of it is none."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(item) for item in items if isinstance(item, (str, int)) and str(item).strip()]


def character_filter(entry: dict[str, Any]) -> dict[str, Any]:
    value = setting(entry, "character_filter", "character_filter", None, "characterFilter")
    return value if isinstance(value, dict) else {}


def tag_filter_split(tags: list[str]) -> tuple[list[str], list[str]]:
    """(the filter's tag names, its SillyTavern tag ids with no name after them). An id that
    a name follows is judged by that name, so it is in neither list."""
    names, unnamed = [], []
    is_id = [ST_TAG_ID.fullmatch(tag) is not None for tag in tags]  # once each: 10,000 ids
    for index, tag in enumerate(tags):
        if not is_id[index]:
            names.append(tag)
        elif index + 1 == len(tags) or is_id[index + 1]:
            unnamed.append(tag)
    return names, unnamed


def _tag_check(rule: dict[str, Any], speaker: dict[str, Any]) -> tuple[list[str], bool, list[str]]:
    """(the filter's tags, whether the speaker surely has one of them, the unnamed ids that
    make the answer unsure: none when a name decided or the speaker has no tags at all)."""
    tags = filter_texts(rule.get("tags"))
    names, unnamed = tag_filter_split(tags)
    own = {str(t).casefold() for t in speaker.get("tags") or []}
    tagged = any(name.casefold() in own for name in names)
    return tags, tagged, unnamed if own and not tagged else []


def character_filter_note(entry: dict[str, Any], speaker: dict[str, Any] | None) -> str:
    """What a fired entry's reason adds when its tag check was unsure (the speaker has none
    of the filter's named tags, and an id with no name might be one of its tags): the check
    is left unapplied rather than guessed either way."""
    rule = character_filter(entry)
    if speaker is None or not rule:
        return ""
    tags, _, unsure = _tag_check(rule, speaker)
    if not unsure:
        return ""
    which = "not for" if rule.get("isExclude") else "only for"
    return (f" (character filter {which} tags {', '.join(tags)[:IDS_SHOWN_CHARS]}: unsure, not "
            f"applied: its SillyTavern tag ids {', '.join(unsure)[:IDS_SHOWN_CHARS]} have no "
            "name here and may be among the speaker's tags; name them on the book's page from "
            "SillyTavern's settings.json)")


def _avatar_of(speaker: dict[str, Any], entry: dict[str, Any]) -> str:
    """The speaker's avatar file as `entry` may judge it: another account's character's only
    in its author's books (`avatar_books`, chat/prompt/world_info.py `lore_speaker`)."""
    books = speaker.get("avatar_books")
    if books is not None and entry.get("lorebook_id") not in books:
        return ""
    return str(speaker.get("avatar") or "")


def _name_of(speaker: dict[str, Any], avatar: str) -> str:
    """The speaker's name, unless its card came in SillyTavern's numbered file of that name
    ("Pia1" for a second "Pia"): a filter naming "Pia" means the first one's file there."""
    name = str(speaker.get("name") or "")
    numbered = avatar[len(name):] if avatar.casefold().startswith(name.casefold()) else ""
    return "" if name and numbered.isascii() and numbered.isdigit() else name


def character_filter_reason(entry: dict[str, Any], speaker: dict[str, Any] | None) -> str:
    """Why the character filter keeps `entry` out for `speaker` ('' when it does not)."""
    rule = character_filter(entry)
    if speaker is None or not rule:
        return ""
    exclude = bool(rule.get("isExclude"))
    who = str(speaker.get("name") or speaker.get("id") or "?")
    names = filter_texts(rule.get("names"))
    if names:
        # SillyTavern lists characters by their avatar file ("Seraphina1", "default_Seraphina"
        # for its own Seraphina), whose name is the character's unless another had it first.
        avatar = _avatar_of(speaker, entry)
        own = {str(n).casefold() for n in (_name_of(speaker, avatar), speaker.get("id"), avatar)
               if n}
        listed = any(name.casefold() in own for name in names)
        if listed == exclude:
            return (f"character filter: {'not for' if exclude else 'only for'} "
                    f"{', '.join(names)}; the speaker is {who}")
    tags, tagged, unsure = _tag_check(rule, speaker)
    if tags and not unsure and tagged == exclude:
        return (f"character filter: {'not for' if exclude else 'only for'} tags "
                f"{', '.join(tags)}; the speaker {who} has "
                f"{', '.join(speaker.get('tags') or []) or 'no tags'}")
    return ""
