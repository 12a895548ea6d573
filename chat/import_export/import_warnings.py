"""What an imported chat's speakers say about where it came from: a chat made with another
character is imported all the same (as SillyTavern does), with a warning that names them."""

from __future__ import annotations

from typing import Any

from chat.groups.members import is_group, members_of
from chat.import_export.imported_groups import NAME_SHOWN_CHARS
from library.selectors import character_for_chat_optional
from personalab.lib.filestore.store import FileStore

NAMES_SHOWN = 5


def _names(names: list[str]) -> str:
    shown = [str(name)[:NAME_SHOWN_CHARS] for name in names[:NAMES_SHOWN]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def speakers_warned(store: FileStore, state: dict[str, Any],
                    report: dict[str, Any]) -> list[str]:
    """Sentences for the import report when the chat's replies are by names that are not this
    chat's character(s) (case and spaces aside)."""
    speakers = [name for name in report.get("speakers") or [] if str(name).strip()]
    if not speakers:
        return []
    if is_group(state):
        members = [m.name for m in members_of(store, state)]
        known = {name.strip().casefold() for name in members}
        strangers = [name for name in speakers if name.strip().casefold() not in known]
        if not strangers:
            return []
        return [(f"This chat has replies by {_names(strangers)}, who are not members of this "
                f"chat ({_names(members)}): their lines are kept under their own names.")]
    character = character_for_chat_optional(store, state=state,
                                             character_id=state.get("character_id"))
    name = str(character.get("name") or state.get("character_id") or "")
    strangers = [s for s in speakers if s.strip().casefold() != name.strip().casefold()]
    if not strangers:
        return []
    shown = name[:NAME_SHOWN_CHARS]
    return [(f"This chat's replies are by {_names(strangers)}, not {shown}: they were imported "
            f"under their own names, and {shown} replies from here on.")]
