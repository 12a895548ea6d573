"""The file store: the one way every app reads and writes the data folder.

Framework-free on purpose: the files are the truth, Django only indexes them.
Layout (SPEC §2):

    config.json
    characters/{character_id}/definition.json
    backgrounds/{background_id}/background.json
    lorebooks/{lorebook_id}/lorebook.json
    instances/{instance_id}/instance_state.json
    instances/{instance_id}/character_state.json
    instances/{instance_id}/sessions/{session_id}.jsonl   (sessions.py)
    instances/{instance_id}/memory/...            text ledgers
    instances/{instance_id}/traces/{trace_id}.json
    instances/{instance_id}/outline_follow.json   an outline edit still to follow (outline_pending.py)
    event_library/chroma_db/
    prompt_templates/{locale}.json (+ {locale}.user.json)
    modules/{module}.json
    modules/{module}/accounts/{digest}.json    an account's record (account_modules.py)
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from personalab.lib.atomic import write_bytes_atomic
from personalab.lib.filestore.defaults import DEFAULT_CONFIG, DEFAULT_MODULES, deep_merge
from personalab.lib.filestore.jsonfile import (
    json_keys_per_line,
    read_json,
    write_json_atomic,
    write_json_keeping_previous,
    write_text_atomic,
)
from personalab.lib.filestore.jsonl import append_whole, line_dump, read_jsonl_records
from personalab.lib.filestore.outline_pending import NOTE_NAME, outline_follow_apply
from personalab.lib.filestore.sessions import SessionFiles
from personalab.lib.filestore.trash import (
    MARKERS,
    Kept,
    folder_live,
    kept_bring_back,
    kept_listed,
    kept_newest,
    kept_note,
    move_aside,
)
from personalab.lib.filestore.trash_index import trash_spent_before
from personalab.lib.ids import is_valid_id, validate_id
from personalab.lib.jsontext import json_loads
from personalab.lib.locks import FlockLock, LockFactory, flock_factory
from personalab.lib.locks import InstanceLock as LockProtocol
from personalab.lib.store_errors import CorruptFile, IdTaken, MissingFile, StoreError
from personalab.lib.trace_pack import trace_packed, trace_unpacked

InstanceLock = FlockLock  # the name older code imports


def _module_merged(module: str, stored: Any) -> dict[str, Any]:
    """A module's settings: what is stored over its defaults (the defaults when none are)."""
    defaults = DEFAULT_MODULES.get(module, {})
    return deep_merge(defaults, stored) if isinstance(stored, dict) else copy.deepcopy(defaults)


class FileStore(SessionFiles):
    def __init__(self, root: Path | str, *, lock_factory: LockFactory = flock_factory):
        self.root = Path(root)
        self.lock_factory = lock_factory

    # paths ---------------------------------------------------------------
    @property
    def config_path(self) -> Path:
        return self.root / "config.json"

    def module_path(self, module: str) -> Path:
        return self.root / "modules" / f"{validate_id(module, kind='module')}.json"

    def character_dir(self, character_id: str) -> Path:
        return self.root / "characters" / validate_id(character_id, kind="character id")

    def background_dir(self, background_id: str) -> Path:
        return self.root / "backgrounds" / validate_id(background_id, kind="background id")

    def lorebook_dir(self, lorebook_id: str) -> Path:
        return self.root / "lorebooks" / validate_id(lorebook_id, kind="lorebook id")

    def persona_dir(self, persona_id: str) -> Path:
        return self.root / "personas" / validate_id(persona_id, kind="persona id")

    def instance_dir(self, instance_id: str) -> Path:
        return self.root / "instances" / validate_id(instance_id, kind="instance id")

    def sessions_dir(self, instance_id: str) -> Path:
        return self.instance_dir(instance_id) / "sessions"

    def session_path(self, instance_id: str, session_id: str) -> Path:
        return self.sessions_dir(instance_id) / f"{validate_id(session_id, kind='session id')}.jsonl"

    def memory_dir(self, instance_id: str) -> Path:
        return self.instance_dir(instance_id) / "memory"

    def traces_dir(self, instance_id: str) -> Path:
        return self.instance_dir(instance_id) / "traces"

    def trace_path(self, instance_id: str, trace_id: str) -> Path:
        return self.traces_dir(instance_id) / f"{validate_id(trace_id, kind='trace id')}.json"

    @property
    def chroma_dir(self) -> Path:
        return self.root / "event_library" / "chroma_db"

    @property
    def templates_dir(self) -> Path:
        return self.root / "prompt_templates"

    def dir_claim(self, kind: str, candidates: Iterable[str], *, tries: int = 1000) -> str:
        """The first candidate id whose folder under `kind` this call created and that no
        deleted item had. mkdir is atomic on a shared volume too, so two workers creating at
        once never get one id."""
        parent = self.root / kind
        parent.mkdir(parents=True, exist_ok=True)
        trash = self.root / "trash" / kind
        for candidate in itertools.islice(candidates, tries):
            try:
                (parent / validate_id(candidate)).mkdir()
            except FileExistsError:
                continue
            # An item deleted before its folder was kept (trash.py `move_aside`): the folder
            # just made stays as that id's claim, and the id is never given again.
            if candidate in trash_spent_before(trash):
                continue
            return candidate
        raise IdTaken(f"no free {kind} id after {tries} tries")

    def dir_release(self, kind: str, item_id: str) -> None:
        """Give back a claimed folder that stayed empty (the create was refused)."""
        with contextlib.suppress(OSError):
            (self.root / kind / validate_id(item_id)).rmdir()

    def _ids_in(self, folder: Path, marker: str) -> list[str]:
        if not folder.is_dir():
            return []
        return sorted(
            child.name for child in folder.iterdir()
            if child.is_dir() and (child / marker).is_file() and is_valid_id(child.name)
        )

    # config and modules -------------------------------------------------
    def config_read(self) -> dict[str, Any]:
        """Optional file (flow step 2): missing or unreadable falls back to defaults."""
        try:
            stored = read_json(self.config_path, what="config.json")
        except StoreError:
            return copy.deepcopy(DEFAULT_CONFIG)
        if not isinstance(stored, dict):
            return copy.deepcopy(DEFAULT_CONFIG)
        return deep_merge(DEFAULT_CONFIG, stored)

    def config_write(self, config: dict[str, Any]) -> None:
        write_json_atomic(self.config_path, config)

    def module_read(self, module: str) -> dict[str, Any]:
        try:
            stored = read_json(self.module_path(module), what=f"modules/{module}.json")
        except StoreError:
            stored = None
        return _module_merged(module, stored)

    def module_write(self, module: str, settings: dict[str, Any]) -> None:
        write_json_atomic(self.module_path(module), settings)

    def module_update(self, module: str,
                      change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> dict[str, Any]:
        """Read the module, apply `change` (the new settings, or None to write nothing) and
        write it, under the module's lock: a file shared by all accounts (their defaults,
        allow lists) is read and written whole, so two saves at the same moment would
        otherwise each write over the other's. A file that cannot be read is never written
        over (CorruptFile). Returns the settings as they now are."""
        path = self.module_path(module)
        lock = self.lock_factory(path.with_name(f".{path.stem}.lock"), f"module-{path.stem}")
        with lock.acquire(blocking=True):
            # A file there that cannot be read (damaged, past 50 MB) raises CorruptFile: read
            # as the defaults, it was written over with them and one account's change,
            # every other account's part gone.
            try:
                stored = read_json(path, what=f"modules/{module}.json")
            except MissingFile:
                stored = None
            current = _module_merged(module, stored)
            updated = change(current)
            if updated is None:
                return current
            self.module_write(module, updated)
            return updated

    # library ------------------------------------------------------------
    def character_ids(self) -> list[str]:
        return self._ids_in(self.root / "characters", "definition.json")

    def character_read(self, character_id: str) -> dict[str, Any]:
        return read_json(self.character_dir(character_id) / "definition.json",
                         what=f"character {character_id}")

    def character_write(self, character_id: str, definition: dict[str, Any]) -> None:
        write_json_keeping_previous(self.character_dir(character_id) / "definition.json",
                                    {**definition, "character_id": character_id})

    def character_delete(self, character_id: str) -> None:
        self._trash("characters", self.character_dir(character_id))

    def background_ids(self) -> list[str]:
        return self._ids_in(self.root / "backgrounds", "background.json")

    def background_read(self, background_id: str) -> dict[str, Any]:
        return read_json(self.background_dir(background_id) / "background.json",
                         what=f"background {background_id}")

    def background_read_optional(self, background_id: str | None) -> dict[str, Any]:
        """Optional file (flow step 2): an empty background when missing or unreadable."""
        empty = {"background_id": background_id, "name": "", "world_setting": "",
                 "story_outline": []}
        if not background_id:
            return empty
        try:
            background = self.background_read(background_id)
        except (StoreError, ValueError):
            return empty
        return background if isinstance(background, dict) else empty

    def background_write(self, background_id: str, background: dict[str, Any]) -> None:
        outline = [
            {"index": position, "content": point["content"]}
            for position, point in enumerate(background.get("story_outline", []), start=1)
        ]
        write_json_keeping_previous(
            self.background_dir(background_id) / "background.json",
            {**background, "background_id": background_id, "story_outline": outline},
        )

    def background_delete(self, background_id: str) -> None:
        self._trash("backgrounds", self.background_dir(background_id))

    def lorebook_ids(self) -> list[str]:
        return self._ids_in(self.root / "lorebooks", "lorebook.json")

    def lorebook_read(self, lorebook_id: str) -> dict[str, Any]:
        return read_json(self.lorebook_dir(lorebook_id) / "lorebook.json",
                         what=f"lorebook {lorebook_id}")

    def lorebook_write(self, lorebook_id: str, lorebook: dict[str, Any]) -> None:
        write_json_keeping_previous(self.lorebook_dir(lorebook_id) / "lorebook.json",
                                    {**lorebook, "lorebook_id": lorebook_id})

    def lorebook_delete(self, lorebook_id: str) -> None:
        self._trash("lorebooks", self.lorebook_dir(lorebook_id))

    # personas (the player's side of the conversation) --------------------
    def persona_ids(self) -> list[str]:
        return self._ids_in(self.root / "personas", "persona.json")

    def persona_read(self, persona_id: str) -> dict[str, Any]:
        return read_json(self.persona_dir(persona_id) / "persona.json",
                         what=f"persona {persona_id}")

    def persona_write(self, persona_id: str, persona: dict[str, Any]) -> None:
        write_json_atomic(self.persona_dir(persona_id) / "persona.json",
                          {**persona, "persona_id": persona_id})

    def persona_delete(self, persona_id: str) -> None:
        self._trash("personas", self.persona_dir(persona_id))

    # the trash (trash.py) -------------------------------------------------
    def item_dir(self, kind: str, item_id: str) -> Path:
        """The folder of a library item; `kind` as its folder is named ("characters")."""
        return self.root / _library_kind(kind) / validate_id(item_id, kind=f"{kind[:-1]} id")

    def _trash(self, kind: str, folder: Path) -> None:
        move_aside(folder, self.root / "trash" / kind, marker=MARKERS[kind])

    def trash_kept(self, kind: str, item_id: str) -> Path | None:
        """The newest copy a delete kept of the item (whatever stands in its folder now)."""
        self.item_dir(kind, item_id)
        return kept_newest(self.root / "trash" / kind, item_id)

    def trash_listed(self, kind: str, *, keep: Callable[[str], bool] | None = None,
                     limit: int | None = None) -> list[Kept]:
        """The deleted items of `kind` that can come back (and `keep` keeps), the latest
        deleted first, at most `limit`."""
        return kept_listed(self.root / "trash" / _library_kind(kind), self.root / kind,
                           keep=keep, limit=limit)

    def trash_note(self, kind: str, kept: Path | str) -> dict[str, Any]:
        return kept_note(kept, MARKERS[kind])

    def trash_item_read(self, kind: str, kept: Path) -> dict[str, Any]:
        return read_json(kept / MARKERS[kind], what=f"deleted {kind[:-1]} {kept.name}")

    def item_live(self, kind: str, item_id: str) -> bool:
        return folder_live(self.item_dir(kind, item_id))

    def trash_restore(self, kind: str, kept: Path) -> bool:
        """The kept copy's files back in the item's folder; False when another restore took it
        first or something stands in the folder again."""
        item_id = kept.name.partition(".")[0]
        return kept_bring_back(kept, self.item_dir(kind, item_id))

    # instances ----------------------------------------------------------
    def instance_ids(self) -> list[str]:
        return self._ids_in(self.root / "instances", "instance_state.json")

    def instance_lock(self, instance_id: str) -> LockProtocol:
        folder = self.instance_dir(instance_id)
        lock = self.lock_factory(folder / ".lock", instance_id)
        note = os.path.join(folder, NOTE_NAME)  # a str: each lock taken looks for it
        lock.on_hold = lambda: outline_follow_apply(self, instance_id, note=note)
        return lock

    def instance_state_read(self, instance_id: str) -> dict[str, Any]:
        state = read_json(self.instance_dir(instance_id) / "instance_state.json",
                          what=f"instance_state.json of {instance_id}")
        if not isinstance(state, dict) or "current_session_id" not in state:
            raise CorruptFile(self.instance_dir(instance_id) / "instance_state.json",
                              "current_session_id is missing")
        state.setdefault("plot_state", {"current_plot_index": 1, "current_status": "pending",
                                        "no_update_count": 0})
        state.setdefault("instance_id", instance_id)  # readers of its kept copies need it
        return state

    def instance_state_write(self, instance_id: str, state: dict[str, Any]) -> None:
        write_json_atomic(self.instance_dir(instance_id) / "instance_state.json", state)

    def kept_copy_path(self, instance_id: str, kind: str, item_id: str) -> Path:
        if kind not in ("character", "background"):
            raise ValueError(f"no kept copy of a {kind}")
        return (self.instance_dir(instance_id) / "kept" / f"{kind}s"
                / f"{validate_id(item_id, kind=f'{kind} id')}.json")

    def kept_copy_read(self, instance_id: str, kind: str, item_id: str) -> dict[str, Any] | None:
        """The copy of another author's character/background this instance kept when it was
        made private or deleted; None when there is none (or it is unreadable)."""
        try:
            copy_ = read_json(self.kept_copy_path(instance_id, kind, item_id),
                              what=f"kept {kind} {item_id} of {instance_id}")
        except (StoreError, ValueError):
            return None
        return copy_ if isinstance(copy_, dict) else None

    def kept_copy_write(self, instance_id: str, kind: str, item_id: str,
                        definition: dict[str, Any]) -> None:
        write_json_atomic(self.kept_copy_path(instance_id, kind, item_id), definition)

    def character_state_read(self, instance_id: str) -> dict[str, Any]:
        state = read_json(self.instance_dir(instance_id) / "character_state.json",
                          what=f"character_state.json of {instance_id}")
        if not isinstance(state, dict):
            raise CorruptFile(self.instance_dir(instance_id) / "character_state.json",
                              "not a JSON object")
        state.setdefault("base_persona", "")
        state.setdefault("evolved_persona", "")
        return state

    def character_state_write(self, instance_id: str, state: dict[str, Any]) -> None:
        write_json_atomic(self.instance_dir(instance_id) / "character_state.json", state)

    # traces -------------------------------------------------------------
    def trace_write(self, instance_id: str, trace_id: str, trace: dict[str, Any]) -> None:
        # A trace holds every message sent, so it is serialised once, by the fast encoder. It
        # is a record of what was sent, not part of the story: not fsynced (a power cut may
        # lose the last turn's trace; the session line itself is fsynced).
        write_text_atomic(self.trace_path(instance_id, trace_id),
                          json_keys_per_line(trace_packed(trace)), durable=False)

    def trace_read(self, instance_id: str, trace_id: str) -> dict[str, Any]:
        return trace_unpacked(read_json(self.trace_path(instance_id, trace_id),
                                        what=f"trace {trace_id}"))

    def trace_ids(self, instance_id: str) -> list[str]:
        folder = self.traces_dir(instance_id)
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.json") if is_valid_id(p.stem))

    # memory ledgers -----------------------------------------------------
    def ledger_append(self, instance_id: str, name: str, records: list[dict[str, Any]]) -> None:
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='ledger')}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        append_whole(path, "".join(line_dump(r) + "\n" for r in records).encode("utf-8"))

    def ledger_replace_session(self, instance_id: str, name: str, *, session_id: str,
                               records: list[dict[str, Any]]) -> None:
        """Write `records` in place of the ledger's records of `session_id`, in one atomic
        rewrite; every other line (unreadable ones too) is kept as it is."""
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='ledger')}.jsonl"
        kept = [line for line in _file_bytes_or_empty(path).splitlines(keepends=True)
                if line.strip() and _line_session(line) != session_id]
        if kept and not kept[-1].endswith(b"\n"):
            kept[-1] += b"\n"
        added = "".join(line_dump(r) + "\n" for r in records).encode("utf-8")
        write_bytes_atomic(path, b"".join(kept) + added)

    def ledger_read(self, instance_id: str, name: str) -> list[dict[str, Any]]:
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='ledger')}.jsonl"
        if not path.exists():
            return []
        return read_jsonl_records(path)[0]

    def memory_json_read(self, instance_id: str, name: str, default: Any) -> Any:
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='memory file')}.json"
        try:
            return read_json(path, what=name)
        except MissingFile:
            return copy.deepcopy(default)

    def memory_json_write(self, instance_id: str, name: str, data: Any) -> None:
        write_json_atomic(
            self.memory_dir(instance_id) / f"{validate_id(name, kind='memory file')}.json", data)



def _file_bytes_or_empty(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def _line_session(line: bytes) -> str | None:
    try:
        record = json_loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return record.get("session_id") if isinstance(record, dict) else None


def _library_kind(kind: str) -> str:
    if kind not in MARKERS:
        raise ValueError(f"no library items of kind {kind}")
    return kind


@contextlib.contextmanager
def locked(store: FileStore, instance_id: str, *,
           blocking: bool = False) -> Iterator[LockProtocol]:
    lock = store.instance_lock(instance_id).acquire(blocking=blocking)
    try:
        yield lock
    finally:
        lock.release()
