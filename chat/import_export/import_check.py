"""Before a chat file becomes a new chat: does it look like a chat with the character(s) and the
persona the author picked? A mismatch is asked about before anything is made (Megumin's lines
in a Seraphina chat are rarely meant), so the file waits on the server, under a token, until
the author goes on, picks other characters, or cancels (the file is then deleted; one nobody
comes back for is deleted after PENDING_KEEP_SECONDS, whoever uploads next). The page proposes
a character for each of the file's speakers, matched by name."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from chat.import_export.chat_formats import ChatImport, chat_import
from chat.import_export.imported_groups import NAME_SHOWN_CHARS
from library.selectors import character_for_use, persona_effective
from personalab.lib.atomic import write_bytes_atomic
from personalab.lib.busy import busy_slot
from personalab.lib.errors import NotFound
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError

PENDING_KEEP_SECONDS = 3600  # a file left waiting longer than this is chosen again
PENDING_PER_ACCOUNT = 3  # files waiting at once per account; the oldest goes first
# Names a chat file gives its player when it knows none (RisuAI writes "User"): no mismatch.
GENERIC_PLAYER_NAMES = {"user", "you", "player", ""}
NAMES_SHOWN = 5
SPEAKERS_MATCHED = 8  # rows of the check page's who-is-who; a larger cast is picked in the chat


def _folded(name: str) -> str:
    return " ".join(str(name).split()).casefold()


def _names(names: list[str]) -> str:
    shown = [str(name)[:NAME_SHOWN_CHARS] for name in names[:NAMES_SHOWN]]
    more = len(names) - len(shown)
    if more > 0:
        shown.append(gettext("%(count)d more") % {"count": more})
    if len(shown) == 1:
        return shown[0]
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(shown[:-1]), "last": shown[-1]}


def import_speakers(imported: ChatImport) -> list[str]:
    """The file's characters: its replies' names, else its header's character."""
    speakers = [s for s in imported.report()["speakers"] if str(s).strip()]
    if not speakers and str(imported.header.get("character_name") or "").strip():
        speakers = [str(imported.header["character_name"])]
    return speakers


def import_players(imported: ChatImport) -> list[str]:
    """The file's player by name: its player lines' names, else its header's, leaving out
    the names that name nobody ("User", "You")."""
    players = [p for p in imported.report()["players"] if _folded(p) not in GENERIC_PLAYER_NAMES]
    if not players and _folded(imported.header.get("user_name") or "") not in GENERIC_PLAYER_NAMES:
        players = [str(imported.header["user_name"])]
    return players


def import_mismatches(imported: ChatImport, *, character_names: list[str],
                      persona_name: str, name_asked: bool = False) -> list[str]:
    """Sentences naming both sides when the file's characters (its replies' names, else its
    header's character) are not the picked characters; then also when its player is not the
    persona, unless the check page asks the newcomer's name (offering the player's). None
    when nothing is picked yet. A player's name alone never stops an import: most SillyTavern
    chats were played under a persona this account does not have, and the lines keep their
    names either way."""
    speakers = import_speakers(imported)
    picked = {_folded(name) for name in character_names}
    strangers = [s for s in speakers if _folded(s) not in picked] if picked else []
    warnings = []
    if strangers:
        warnings.append(gettext("This chat's replies are by %(speakers)s, but you picked "
                                "%(picked)s.") % {"speakers": _names(strangers),
                                                  "picked": _names(character_names)})
    others = [p for p in import_players(imported) if _folded(p) != _folded(persona_name)]
    if strangers and others and not name_asked:
        warnings.append(gettext("In this chat you are %(players)s, but your persona is "
                                "%(persona)s.") % {"players": _names(others),
                                                   "persona": persona_name[:NAME_SHOWN_CHARS]})
    return warnings


def chat_import_check(store: FileStore, *, user, character_names: list[str],
                      data: bytes, name_asked: bool = False) -> tuple[ChatImport, list[str]]:
    """The file read (in one of the account's import slots) and what does not match."""
    with busy_slot(store.root / "busy", account=user.get_username(), action="import",
                   slots=settings.PERSONALAB_IMPORTS_PER_ACCOUNT, what="imports"):
        imported = chat_import(data)
    persona = persona_effective(store, owner=user.get_username(), persona_id=None)
    return imported, import_mismatches(imported, character_names=character_names,
                                       persona_name=str(persona["name"]), name_asked=name_asked)


def name_choices(characters: Iterable[Any], *, user) -> list[tuple[str, str]]:
    """(id, name) of the characters a speaker's name may propose, in the picker's order: the
    player's own and the site's, never another account's shared one (anyone may name one
    after the speakers of the chats others import)."""
    return [(c.character_id, c.name) for c in characters if c.owner_id in (user.pk, None)]


def speakers_matched(imported: ChatImport, *, choices: list[tuple[str, str]],
                     picked: list[str]) -> list[dict[str, str]]:
    """One row per speaker of the file (at most SPEAKERS_MATCHED; one unnamed row for a file
    without any): `speaker` and the proposed `character_id` — the character of `choices`
    ((id, name), in the picker's order) with the speaker's name, else the first `picked`
    character no speaker has yet, else "" (not in the chat)."""
    by_name: dict[str, str] = {}
    for character_id, name in choices:
        by_name.setdefault(_folded(name), character_id)
    speakers = import_speakers(imported)[:SPEAKERS_MATCHED] or [""]
    matched = [by_name.get(_folded(speaker), "") if speaker else "" for speaker in speakers]
    spare = [c for c in picked if c not in matched]
    rows = []
    for speaker, character_id in zip(speakers, matched, strict=True):
        if not character_id and spare:
            character_id = spare.pop(0)
        rows.append({"speaker": speaker[:NAME_SHOWN_CHARS], "character_id": character_id})
    return rows


def pending_imports_sweep(store: FileStore) -> int:
    """Deletes every account's waiting files older than PENDING_KEEP_SECONDS; how many."""
    dropped = 0
    for old in (store.root / "pending_imports").glob("*/*"):
        try:
            if time.time() - old.stat().st_mtime > PENDING_KEEP_SECONDS:
                old.unlink()
                dropped += 1
        except OSError:
            continue  # another request swept it first
    return dropped


def pending_imports_dir(store: FileStore, *, username: str) -> Path:
    # The account's name hashed: any username is a safe folder name.
    account = hashlib.sha256(username.encode()).hexdigest()[:32]
    return store.root / "pending_imports" / account


def pending_import_save(store: FileStore, *, user, data: bytes, file_name: str) -> str:
    """The file kept until the author decides; a token that names it (only to this account)."""
    folder = pending_imports_dir(store, username=user.get_username())
    folder.mkdir(parents=True, exist_ok=True)
    waiting = sorted(folder.glob("*.chat"), key=lambda p: p.stat().st_mtime)
    for old in waiting[:max(0, len(waiting) - PENDING_PER_ACCOUNT + 1)]:
        old.unlink(missing_ok=True)
        old.with_suffix(".name").unlink(missing_ok=True)
    pending_imports_sweep(store)
    token = secrets.token_hex(16)
    write_bytes_atomic(folder / f"{token}.chat", data, durable=False)
    (folder / f"{token}.name").write_text(file_name[:200], encoding="utf-8")
    return token


def pending_import_read(store: FileStore, *, user, token: str) -> tuple[bytes, str]:
    """(the waiting file, its name); NotFound when it expired or the token is not this account's."""
    if not (len(token) == 32 and all(c in "0123456789abcdef" for c in token)):
        raise NotFound(gettext("the chat file is no longer waiting: choose it again"))
    path = pending_imports_dir(store, username=user.get_username()) / f"{token}.chat"
    try:
        if time.time() - path.stat().st_mtime > PENDING_KEEP_SECONDS:
            raise NotFound(gettext("the chat file is no longer waiting: choose it again"))
        name_path = path.with_suffix(".name")
        name = name_path.read_text(encoding="utf-8") if name_path.exists() else ""
        return path.read_bytes(), name
    except (OSError, StoreError):
        raise NotFound(gettext("the chat file is no longer waiting: choose it again")) from None


def pending_import_drop(store: FileStore, *, user, token: str) -> None:
    if len(token) == 32 and all(c in "0123456789abcdef" for c in token):
        folder = pending_imports_dir(store, username=user.get_username())
        for suffix in (".chat", ".name"):
            (folder / f"{token}{suffix}").unlink(missing_ok=True)


def characters_named(store: FileStore, *, user, character_ids: list[str]) -> list[str]:
    """The picked characters' names; NotFound for one this account may not use (its name
    is not told)."""
    return [str(character_for_use(store, user=user, character_id=character_id).get("name")
                or character_id) for character_id in character_ids]


def import_report_shown(imported: ChatImport) -> dict[str, Any]:
    """What the check page says of the file: how many lines, by whom."""
    report = imported.report()
    return {"messages": report["messages"], "speakers": report["speakers"][:NAMES_SHOWN],
            "players": report["players"][:NAMES_SHOWN]}
