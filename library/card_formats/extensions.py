"""The card extensions the character editor shows: SillyTavern's Character's Note
(`extensions.depth_prompt` = {prompt, depth, role}), talkativeness (`extensions.talkativeness`)
and regex scripts (`extensions.regex_scripts`, library/find_replace/scripts.py).

An edit that means what is stored already keeps the stored form (SillyTavern writes
talkativeness as the string "0.5"), so saving an unchanged page leaves the card as it was.
"""

from __future__ import annotations

from typing import Any

from library.errors import LibraryError
from library.find_replace.scripts import card_scripts, scripts_checked, scripts_import_check
from personalab.lib.config_schema import digits_int

DEPTH_PROMPT_DEFAULT_DEPTH = 4
DEPTH_PROMPT_MAX_DEPTH = 999
DEPTH_PROMPT_MAX_CHARS = 100_000
ROLES = ("system", "user", "assistant")
DEFAULT_TALKATIVENESS = 0.5


class Removed:
    """An edit that takes the extension out of the card."""


REMOVED = Removed()


def depth_prompt_read(extensions: Any) -> dict[str, Any] | None:
    """The Character's Note as the prompt uses it (odd depth or role: SillyTavern's defaults),
    or None when the card has no note text."""
    raw = extensions.get("depth_prompt") if isinstance(extensions, dict) else None
    if not isinstance(raw, dict) or not isinstance(raw.get("prompt"), str) \
            or not raw["prompt"].strip():
        return None
    depth = raw.get("depth")
    if not _whole(depth) or depth < 0:
        depth = DEPTH_PROMPT_DEFAULT_DEPTH
    role = raw.get("role") if raw.get("role") in ROLES else "system"
    return {"prompt": raw["prompt"], "depth": depth, "role": role}


def talkativeness_read(extensions: Any) -> float | None:
    """The card's own talkativeness as a number, None when it has none (or an unreadable one)."""
    raw = extensions.get("talkativeness") if isinstance(extensions, dict) else None
    try:
        number = _number(raw)
    except ValueError:
        return None
    return number if number is not None and 0 <= number <= 1 else None


def depth_prompt_edited(extensions: Any, posted: Any) -> dict[str, Any] | Removed | None:
    """The note after an edit: None when it means what is stored, REMOVED when its text is
    emptied (or `posted` is None), else the new {prompt, depth, role}. Depth and role left out
    keep the stored ones."""
    current = depth_prompt_read(extensions)
    if posted is None:
        return REMOVED if current else None
    if not isinstance(posted, dict):
        raise LibraryError("depth_prompt must be an object {prompt, depth, role}",
                           {"depth_prompt": "must be an object {prompt, depth, role}"})
    prompt = _note_text(posted.get("prompt"))
    depth = _note_depth(posted.get("depth", (current or {}).get("depth",
                                                               DEPTH_PROMPT_DEFAULT_DEPTH)))
    role = _note_role(posted.get("role", (current or {}).get("role", "system")))
    if not prompt.strip():
        return REMOVED if current else None
    edited = {"prompt": prompt, "depth": depth, "role": role}
    if current and current["prompt"].strip() == prompt.strip() \
            and (current["depth"], current["role"]) == (depth, role):
        return None
    return edited


def talkativeness_edited(extensions: Any, posted: Any) -> float | Removed | None:
    """Talkativeness after an edit: None when unchanged, REMOVED when emptied (SillyTavern's
    0.5 then applies), else the new number."""
    try:
        number = _number(posted)
    except ValueError:
        number = -1.0
    if number is not None and not 0 <= number <= 1:
        raise LibraryError("talkativeness must be a number from 0 to 1",
                           {"talkativeness": "a number from 0 to 1"})
    current = talkativeness_read(extensions)
    if number is None:  # an unreadable stored value shows as empty: that is no edit
        return REMOVED if current is not None else None
    return None if current == number else number


def extension_edits_of(card: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The Character's Note, talkativeness and regex scripts as edited, only where they
    changed."""
    extensions = ((card or {}).get("data") or {}).get("extensions")
    if isinstance(data.get("card"), dict):  # a whole card sent is checked as an import is
        scripts_import_check(card_scripts(data["card"]))
    edited = {}
    if "depth_prompt" in data:
        edited["depth_prompt"] = depth_prompt_edited(extensions, data["depth_prompt"])
    if "talkativeness" in data:
        edited["talkativeness"] = talkativeness_edited(extensions, data["talkativeness"])
    if "regex_scripts" in data:
        edited["regex_scripts"] = regex_scripts_edited(extensions, data["regex_scripts"])
    return {name: value for name, value in edited.items() if value is not None}


def regex_scripts_edited(extensions: Any, posted: Any) -> list[dict[str, Any]] | Removed | None:
    """The card's regex scripts after an edit: None when unchanged (so scripts imported as
    they came are not checked again), REMOVED when emptied, else the checked list."""
    current = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    if posted == current or (posted in (None, []) and not current):
        return None
    if posted in (None, []):
        return REMOVED
    return scripts_checked(posted)


def extensions_applied(extensions: Any, edits: dict[str, Any]) -> dict[str, Any]:
    """`extensions` with the edits laid over it (REMOVED takes the key out)."""
    result = dict(extensions) if isinstance(extensions, dict) else {}
    for name, value in edits.items():
        if value is REMOVED:
            result.pop(name, None)
        else:
            result[name] = value
    return result


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> float | None:
    """A number, a numeric string (a form, SillyTavern's "0.5"), or None for empty."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        number = float(value.strip())  # ValueError for text
    else:
        raise ValueError("not a number")
    if number != number:  # NaN
        raise ValueError("not a number")
    return number


def _note_text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LibraryError("depth_prompt.prompt must be text",
                           {"depth_prompt.prompt": "must be text"})
    if len(value) > DEPTH_PROMPT_MAX_CHARS:
        raise LibraryError(f"depth_prompt.prompt is longer than {DEPTH_PROMPT_MAX_CHARS} "
                           "characters",
                           {"depth_prompt.prompt": f"at most {DEPTH_PROMPT_MAX_CHARS} characters"})
    return value.replace("\r\n", "\n")


def _note_depth(value: Any) -> int:
    if isinstance(value, str) and digits_int(value) is not None:
        value = digits_int(value)  # the form sends text (isdigit() took "²": a 500)
    if not _whole(value) or not 0 <= value <= DEPTH_PROMPT_MAX_DEPTH:
        problem = f"a whole number from 0 to {DEPTH_PROMPT_MAX_DEPTH}"
        raise LibraryError(f"depth_prompt.depth (Character's Note depth) must be {problem}",
                           {"depth_prompt.depth": problem})
    return value


def _note_role(value: Any) -> str:
    if value not in ROLES:
        raise LibraryError("depth_prompt.role (Character's Note role) must be system, user or "
                           "assistant", {"depth_prompt.role": "system, user or assistant"})
    return value
