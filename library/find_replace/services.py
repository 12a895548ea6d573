"""An account's own regex scripts (SillyTavern's global scripts): they run in every chat of
the account, before the scripts of the chat's character. Kept in
data/modules/regex_scripts/accounts/, one file per account, as generation defaults are.

A card's own scripts (`extensions.regex_scripts`) run only once the account playing it has
allowed them, as SillyTavern asks before it runs an imported card's scripts: a card is someone
else's file, and its scripts rewrite what the player and the model see. The account keeps a
fingerprint of the scripts it allowed, so a card whose scripts change later asks again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from library.errors import LibraryError
from library.find_replace.scripts import card_scripts, scripts_checked
from personalab.lib.filestore.account_modules import account_module_read, account_module_update
from personalab.lib.filestore.store import FileStore

MODULE = "regex_scripts"
ALLOWED = "allowed_cards"  # {character_id: fingerprint of the scripts allowed}
KEYS = ("accounts", ALLOWED)  # the account's scripts, the cards it allowed
# One account's scripts as stored, in characters. One file held every account's and was read
# whole by every turn and chat page of every account: 12 MB of one account's scripts (200 of
# them, any keys they carry kept) slowed all, and past 50 MB the file read as empty for all,
# the next save writing everyone's scripts away (red team, twelfth pass). Each account's are
# in a file of their own now; the cap still bounds what one account's turns read.
ACCOUNT_SCRIPTS_MAX_CHARS = 1_000_000


def regex_scripts_account_read(store: FileStore, *, username: str | None) -> list[dict[str, Any]]:
    """The account's scripts as stored (SillyTavern's shape); [] for none."""
    found = regex_scripts_account_record(store, username=username).get("accounts")
    return list(found) if isinstance(found, list) else []


def regex_scripts_account_save(store: FileStore, *, user, scripts: Any) -> list[dict[str, Any]]:
    """Replace the account's scripts with `scripts`, each checked first (LibraryError with a
    sentence beside each field that cannot be used; nothing is written then)."""
    checked = scripts_checked(scripts)
    size = len(json.dumps(checked, ensure_ascii=False, separators=(",", ":")))
    if size > ACCOUNT_SCRIPTS_MAX_CHARS:
        raise LibraryError(f"regex_scripts: at most {ACCOUNT_SCRIPTS_MAX_CHARS:,} characters of "
                           f"scripts are kept for one account; these come to {size:,}",
                           {"regex_scripts": f"at most {ACCOUNT_SCRIPTS_MAX_CHARS:,} characters "
                                             "in all"})

    account_module_update(store, module=MODULE, username=user.get_username(), keys=KEYS,
                          change=lambda record: {**record, "accounts": checked})
    return checked


def regex_scripts_account_record(store: FileStore, *, username: str | None) -> dict[str, Any]:
    """The account's record of this module: its scripts and the cards it allowed."""
    return account_module_read(store, module=MODULE, username=username, keys=KEYS)


def scripts_fingerprint(scripts: Any) -> str:
    """The same text for the same scripts, whatever order their keys were written in."""
    text = json.dumps(scripts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def card_scripts_count(character: Mapping[str, Any]) -> int:
    """How many regex scripts the character's card carries."""
    scripts = card_scripts(character.get("card"))
    return len(scripts) if isinstance(scripts, list) else 0


def _allowed_by(record: Mapping[str, Any]) -> dict[str, str]:
    found = record.get(ALLOWED)
    return dict(found) if isinstance(found, dict) else {}


def card_scripts_allowed_in(record: Mapping[str, Any], *, username: str | None,
                            character: Mapping[str, Any]) -> bool:
    """Whether `username` allowed the character's scripts as they are now (`record`: the
    account's record of this module as read)."""
    scripts = card_scripts(character.get("card"))
    if not isinstance(scripts, list) or not scripts or not username:
        return False
    fingerprint = _allowed_by(record).get(str(character.get("character_id") or ""))
    return fingerprint == scripts_fingerprint(scripts)


def card_scripts_allowed(store: FileStore, *, username: str | None,
                         character: Mapping[str, Any]) -> bool:
    return card_scripts_allowed_in(regex_scripts_account_record(store, username=username),
                                   username=username, character=character)


def card_scripts_allow(store: FileStore, *, username: str, character: Mapping[str, Any],
                       allowed: bool) -> None:
    """Allow (or keep off) the character's scripts, as they are now, in `username`'s chats."""
    character_id = str(character.get("character_id") or "")
    scripts = card_scripts(character.get("card"))

    def changed(record: dict[str, Any]) -> dict[str, Any] | None:
        mine = _allowed_by(record)
        if allowed and isinstance(scripts, list) and scripts:
            mine[character_id] = scripts_fingerprint(scripts)
        elif character_id not in mine:
            return None
        else:
            mine.pop(character_id, None)
        return {**record, ALLOWED: mine}

    account_module_update(store, module=MODULE, username=username, keys=KEYS, change=changed)


def regex_scripts_for_chat(store: FileStore, *, username: str | None,
                           character: Mapping[str, Any]) -> tuple[Any, Any]:
    """(the account's scripts, the card's scripts or None when not allowed), read at once."""
    record = regex_scripts_account_record(store, username=username)
    own = record.get("accounts")
    allowed = card_scripts_allowed_in(record, username=username, character=character)
    return own, card_scripts(character.get("card")) if allowed else None
