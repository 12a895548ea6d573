"""The regex scripts box of the character editor: the card's scripts as JSON text, as
SillyTavern exports them (library/find_replace/scripts.py checks what is saved)."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext

from library.errors import LibraryError
from library.find_replace.scripts import card_scripts, find_regex_words


def regex_scripts_posted(text: str) -> Any:
    """The box's text read as a list of scripts (empty: none)."""
    if not text.strip():
        return []
    try:
        return json.loads(text)
    except ValueError as exc:
        raise LibraryError(f"regex_scripts: not valid JSON ({exc})",
                           {"regex_scripts": f"not valid JSON: {exc}"}) from None
    except RecursionError:  # "[" nested 50,000 deep: the page answered 500, the box was lost
        raise LibraryError("regex_scripts: not valid JSON (it nests too deep)",
                           {"regex_scripts": "not valid JSON: it nests too deep"}) from None


def regex_scripts_shown(card_data: dict[str, Any], posted: Any) -> str:
    """The box: as posted when the save was refused (nothing typed is lost), else as stored."""
    if posted is not None and "regex_scripts" in posted:
        return posted["regex_scripts"]
    scripts = card_scripts({"data": card_data})
    return json.dumps(scripts, ensure_ascii=False, indent=2) if scripts else ""


def regex_error(field_errors: dict[str, str]) -> str:
    """The sentences about the scripts, shown beside the box."""
    return "; ".join(f"{name}: {text}" if name != "regex_scripts" else text
                     for name, text in field_errors.items()
                     if name.startswith("regex_scripts"))


def regex_scripts_not_working(scripts: Any) -> str:
    """The stored scripts whose find regex cannot run, each with why (a card's import keeps
    them, as SillyTavern keeps them and skips them), shown beside the box; "" when all run."""
    said = []
    for index, raw in enumerate(scripts if isinstance(scripts, list) else []):
        find = raw.get("findRegex") if isinstance(raw, dict) else None
        why = find_regex_words(find) if isinstance(find, str) and find else None
        if why:
            said.append(f"“{str(raw.get('scriptName') or '') or f'#{index + 1}'}”: {why}")
    if not said:
        return ""
    return gettext("Not running, as SillyTavern skips them too: %(scripts)s") % {
        "scripts": "; ".join(said)}


def card_regex_not_working(card_data: dict[str, Any]) -> str:
    return regex_scripts_not_working(card_scripts({"data": card_data}))
