"""The file store: the one way every app reads and writes the data folder.

Framework-free on purpose: the files are the truth, Django only indexes them.
Layout (SPEC §2):

    config.json
    characters/{character_id}/definition.json
    backgrounds/{background_id}/background.json
    lorebooks/{lorebook_id}/lorebook.json
    instances/{instance_id}/instance_state.json
    instances/{instance_id}/character_state.json
    instances/{instance_id}/sessions/{session_id}.jsonl
    instances/{instance_id}/memory/...            text ledgers
    instances/{instance_id}/traces/{trace_id}.json
    event_library/chroma_db/
    prompt_templates/{locale}.json (+ {locale}.user.json)
    modules/{module}.json
"""

from __future__ import annotations

import codecs
import contextlib
import copy
import itertools
import hashlib
import json
import os
import re
import shutil
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from personalab.lib.ids import next_numbered_id, validate_id
from personalab.lib.jsontext import json_loads, json_loads_for, surrogates_replace
from personalab.lib.line_index import (ASSISTANT, BAD, BLANK, MESSAGE_KINDS, METADATA, NOTE,
                                       SHOWN_KINDS, SUMMARY, USER, LineIndex, Unindexable, index_path,
                                       line_index_cut, line_index_read)
from personalab.lib.atomic import fsync_dir, write_bytes_atomic
from personalab.lib.session_tail import (file_fingerprint, journal_path, tail_recover,
                                         tail_replace)
from personalab.lib.lines import line_parse, session_line_problem
from personalab.lib.store_errors import (  # noqa: F401 — the store's errors, re-exported
    CorruptFile, IdTaken, InstanceBusy, MissingFile, StoreError)
from personalab.lib.locks import FlockLock, LockFactory, flock_factory, held_lock
from personalab.lib.locks import InstanceLock as LockProtocol

MAX_JSON_FILE_BYTES = 50 * 1024 * 1024

DEFAULT_CONFIG: dict[str, Any] = {
    "thresholds": {"rag_fallback_threshold": 3, "summary_last_n_turns": 5},
    "limits": {
        "max_total_tokens": 100000,
        "middle_section_warning_tokens": 20000,
        "conversation_max_tokens": 100000,
    },
    "preferences": {"summary_order": "summary_first", "conversation_load_all": True},
}

DEFAULT_MODULES: dict[str, dict[str, Any]] = {
    "director": {"enabled": True, "rag_fallback_threshold": 3},
    "memory": {
        "recall_enabled": True,
        "recall_related_conversations": False,
        "recaps_enabled": None,  # None: on when a model is configured (chat.selectors)
        "recap_every_n_rounds": 5,
        "recap_stack_every_rounds": 10,
        "recap_max_entries": 20,
        "update_memory_last_n_turns": 20,
    },
    "history": {
        "undo_window_seconds": 8,  # reachable with a thumb (issue 33)
        "page_size": 100,
        "backups_keep": 50,
        "trim_max_messages": 10,
        "trim_max_chars": 4000,
        "asides_keep": False,
    },
    "llm": {"base_url": "", "model": ""},
    "prompt": {"locale": "auto", "user_name": "User", "section_budgets": {}},
}

STREAMING_PREFIX_KEY = "streaming"
STREAM_SEGMENT_KEYS = {"content": "+content", "reasoning": "+reasoning"}
_SEGMENT_FIELDS = {key: field for field, key in STREAM_SEGMENT_KEYS.items()}
_SEGMENT_START = re.compile(r',"(\+content|\+reasoning)":"')


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class LineProblem:
    path: str
    line_number: int
    reason: str

    def describe(self) -> str:
        return f"{self.path}:{self.line_number}: {self.reason} (line skipped, left in the file)"


@dataclass
class SessionRead:
    """A session file as read: its whole lines, the lines that could not be read, and an
    unfinished assistant line (a reply still streaming, or cut by a crash)."""

    path: Path
    metadata: dict[str, Any]
    lines: list[dict[str, Any]]
    problems: list[LineProblem] = field(default_factory=list)
    partial: dict[str, Any] | None = None
    size_bytes: int = 0
    # The highest message turn, worked out while reading (None: count it from `lines`).
    turn_max: int | None = None
    # False for a tail read (read_session_tail): `lines` holds only the newest lines.
    complete: bool = True
    # A stretch read (read_session_stretch): the position of lines[0] among all the lines, and
    # of the session's last user or assistant line (None: work it out from `lines`).
    first_index: int = 0
    last_message_index: int | None = None
    # read_session_recent: what the lines before the stretch hold (None: nothing left out).
    lines_before: LinesBefore | None = None
    # read_session_recent: the tokens of the messages read, by text, as the line index counted
    # them (a prompt then need not count them again).
    token_counts: dict[str, int] = field(default_factory=dict)
    # A stretch read: the line index's kind (line_index.USER, ...) of each of the session's lines.
    line_kinds: np.ndarray | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("role") in ("user", "assistant")]

    @property
    def messages_shown_to_model(self) -> list[dict[str, Any]]:
        """The messages without those the player hid (`hidden`: SillyTavern's ghosted ones)."""
        return [line for line in self.messages if not line.get("hidden")]

    @property
    def summaries(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == "summary"]

    @property
    def last_turn(self) -> int:
        turn = self.turn_max if self.turn_max is not None else _turn_max(self.lines)
        if self.partial and isinstance(self.partial.get("turn"), int):
            turn = max(turn, self.partial["turn"])
        return turn


def _turn_max(records: list[dict[str, Any]]) -> int:
    turns = [r["turn"] for r in records
             if r.get("role") in ("user", "assistant") and isinstance(r.get("turn"), int)]
    return max(turns, default=0)


# --- low-level helpers -------------------------------------------------------


def write_json_atomic(path: Path, data: Any) -> None:
    """Temp file in the same folder, fsync, rename: a crash leaves the old or the new file."""
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def json_keys_per_line(data: dict[str, Any]) -> str:
    """A JSON object with one top-level key per line and each value on one line.

    Readable enough to open in an editor, and serialised by json's C encoder (an `indent`
    makes json fall back to its pure-Python encoder, ten times slower on a long trace)."""
    items = ",\n".join(
        f"  {json.dumps(str(key), ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"
        for key, value in data.items())
    return "{\n" + items + "\n}\n" if items else "{}\n"


def write_text_atomic(path: Path, payload: str, *, durable: bool = True) -> None:
    write_bytes_atomic(path, payload.encode("utf-8"), durable=durable)


def read_json(path: Path, *, what: str) -> Any:
    try:
        if path.stat().st_size > MAX_JSON_FILE_BYTES:
            raise CorruptFile(path, "file is larger than 50 MB")
        return json_loads(path.read_bytes())
    except FileNotFoundError:
        raise MissingFile(path, what) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorruptFile(path, f"not valid JSON ({exc})") from None


def _dump_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def deep_merge(defaults: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


# --- locks -------------------------------------------------------------------


InstanceLock = FlockLock  # the name older code imports


# --- streaming assistant line ------------------------------------------------


class AssistantLineWriter:
    """Writes one assistant reply token by token, file first.

    While streaming, the line is an open JSON object whose last key is the content string:
    each token is appended already escaped, so the file grows by the token's bytes and a
    long reply is never rewritten per token. Reasoning that comes after the reply began
    closes that string and opens a `"+reasoning"` one (and more reply a `"+content"` one),
    so it is in the file as it streams, at the cost of a few bytes per switch.
    `finish()` replaces the line once with the final, whole JSON line of the seed's format.
    """

    def __init__(self, path: Path, *, turn: int, timestamp: str | None = None,
                 extra: dict[str, Any] | None = None, fence: Callable[[], None] | None = None,
                 replace: Callable[[bytes], int] | None = None):
        self.path = path
        # Regenerate / continue: the line takes the place of the lines `replace` removes, in
        # one tail change that writes the line's first bytes (returns where the line starts).
        self.replace = replace
        # The instance lock's check: a holder whose lease ran out must not write another byte.
        self.fence = fence or (lambda: None)
        self.record: dict[str, Any] = {
            "role": "assistant",
            "content": "",
            "turn": turn,
            "timestamp": timestamp or utc_now(),
        }
        self.extra = dict(extra or {})
        self._parts: list[str] = []
        self._reasoning: list[str] = []
        self._open_field = "content"  # the string the line ends in while streaming
        self._handle = None
        self._line_start = 0
        self.bytes_written = 0

    @property
    def content(self) -> str:
        return "".join(self._parts)

    def open(self, *, content: str = "") -> "AssistantLineWriter":
        """`content`: the reply's text so far (continue), written with the line's head."""
        if self.replace is not None:
            data = self._head_bytes() + json.dumps(content, ensure_ascii=False)[1:-1].encode()
            self.fence()
            self._line_start = self.replace(data)
            self.bytes_written += len(data)
            self._parts.extend([content] if content else [])
            self._handle = self.path.open("r+b")
            self._handle.seek(0, os.SEEK_END)
            return self
        handle = self.path.open("r+b")
        handle.seek(0, os.SEEK_END)
        self._line_start = handle.tell()
        self._handle = handle
        self._head_write()
        self.append(content)
        return self

    def _head_bytes(self) -> bytes:
        head = {k: v for k, v in self.record.items() if k != "content"}
        if self._reasoning:
            head["reasoning"] = "".join(self._reasoning)
        head.update(self.extra)
        head[STREAMING_PREFIX_KEY] = True
        return (_dump_line(head)[:-1] + ',"content":"').encode("utf-8")

    def _head_write(self) -> None:
        # Rewritten (from the line's start) while no content follows it yet, so reasoning
        # streamed before the reply is in the file too and survives a crash.
        data = self._head_bytes()
        self._handle.seek(self._line_start)
        self._handle.write(data)
        self._handle.truncate()
        self._handle.flush()
        self.bytes_written += len(data)

    def append(self, token: str) -> None:
        self.append_many([token])

    def append_many(self, tokens: list[str]) -> None:
        """Several tokens in one write (what arrived since the last push)."""
        text = "".join(tokens)
        if not text:
            return
        self.fence()
        self._stream_write("content", text)
        self._parts.append(text)

    def reasoning_append(self, text: str) -> None:
        """The model's reasoning: in the line's head while the reply has not begun (models
        reason first), after that as a segment of the streaming tail."""
        if not text:
            return
        self._reasoning.append(text)
        if self._handle is None:
            return
        self.fence()
        if self._parts:
            self._stream_write("reasoning", text)
        else:
            self._head_write()

    def _stream_write(self, field: str, text: str) -> None:
        separator = ""
        if field != self._open_field:
            separator, self._open_field = f'","{STREAM_SEGMENT_KEYS[field]}":"', field
        data = (separator + json.dumps(text, ensure_ascii=False)[1:-1]).encode("utf-8")
        self._handle.write(data)
        self._handle.flush()
        self.bytes_written += len(data)

    def finish(self, **flags: Any) -> dict[str, Any]:
        record = dict(self.record)
        record["content"] = self.content
        if self._reasoning:
            record["reasoning"] = "".join(self._reasoning)
        record.update(self.extra)
        record.update({k: v for k, v in flags.items() if v is not None})
        data = (_dump_line(record) + "\n").encode("utf-8")
        handle = self._handle
        try:
            self.fence()
            handle.seek(self._line_start)
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        finally:
            self.close_quietly()
        self.bytes_written += len(data)
        return record

    def close_quietly(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None


def parse_partial_line(text: str) -> dict[str, Any] | None:
    """Read an unfinished streaming line back: its head and the content written so far."""
    marker = '"content":"'
    if not text.startswith("{") or marker not in text:
        return None
    try:
        json.loads(text)
        return None  # a whole line that only lost its newline
    except json.JSONDecodeError:
        pass
    head, cut = _streaming_head(text, marker)
    if head is None:
        return None
    head.pop(STREAMING_PREFIX_KEY, None)
    texts = {"content": [], "reasoning": [head.pop("reasoning", "")]}
    for field, piece in _stream_segments(text[cut + len(marker) :]):
        texts[field].append(piece)
    record = {"role": head.pop("role", "assistant"), "content": "".join(texts["content"])}
    record.update(head)
    if reasoning := "".join(texts["reasoning"]):
        record["reasoning"] = reasoning
    return surrogates_replace(record)


def _streaming_head(text: str, marker: str) -> tuple[dict[str, Any] | None, int]:
    """The line's head and where its streaming content starts. The head may hold "content"
    keys of its own (a regenerate's earlier versions in `alternatives`), so the content that
    streams is the first marker the head before it parses at and is marked streaming."""
    cut = text.find(marker)
    while cut >= 0:
        try:
            head = json_loads(text[:cut].rstrip(",") + "}")
        except json.JSONDecodeError:
            head = None
        if isinstance(head, dict) and head.get(STREAMING_PREFIX_KEY) is True:
            return head, cut
        cut = text.find(marker, cut + 1)
    return None, -1


def _stream_segments(tail: str) -> Iterator[tuple[str, str]]:
    """The strings of a streaming line's tail, as (field, text): the content string, then
    any `"+reasoning"` / `"+content"` segments; a torn end keeps what decodes."""
    field, start = "content", 0
    while True:
        try:
            piece, end = json.decoder.scanstring(tail, start)
        except json.JSONDecodeError:
            yield field, _decode_json_fragment(tail[start:])
            return
        yield field, piece
        switch = _SEGMENT_START.match(tail, end)
        if switch is None:
            return
        field, start = _SEGMENT_FIELDS[switch.group(1)], switch.end()


def _decode_json_fragment(fragment: str) -> str:
    # A crash can cut an escape sequence in half; drop the unfinished tail, keep the rest.
    for trim in range(0, 7):
        candidate = fragment[: len(fragment) - trim] if trim else fragment
        try:
            return json.loads('"' + candidate + '"')
        except json.JSONDecodeError:
            continue
    return ""


@dataclass(frozen=True)
class TailChange:
    """A session tail change: its backup, where the bytes after the lines (`then`) start,
    and the file's fingerprint after it (session_tail.file_fingerprint)."""

    backup: Path
    then_start: int
    fingerprint: str


# --- the store ---------------------------------------------------------------


class FileStore:
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
        """The first candidate id whose folder under `kind` this call created. mkdir is
        atomic on a shared volume too, so two workers creating at once never get one id."""
        parent = self.root / kind
        parent.mkdir(parents=True, exist_ok=True)
        for candidate in itertools.islice(candidates, tries):
            try:
                (parent / validate_id(candidate)).mkdir()
                return candidate
            except FileExistsError:
                continue
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
            if child.is_dir() and (child / marker).is_file() and _safe_name(child.name)
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
        defaults = DEFAULT_MODULES.get(module, {})
        try:
            stored = read_json(self.module_path(module), what=f"modules/{module}.json")
        except StoreError:
            return copy.deepcopy(defaults)
        return deep_merge(defaults, stored) if isinstance(stored, dict) else copy.deepcopy(defaults)

    def module_write(self, module: str, settings: dict[str, Any]) -> None:
        write_json_atomic(self.module_path(module), settings)

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
        _move_aside(self.character_dir(character_id), self.root / "trash" / "characters")

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
        _move_aside(self.background_dir(background_id), self.root / "trash" / "backgrounds")

    def lorebook_ids(self) -> list[str]:
        return self._ids_in(self.root / "lorebooks", "lorebook.json")

    def lorebook_read(self, lorebook_id: str) -> dict[str, Any]:
        return read_json(self.lorebook_dir(lorebook_id) / "lorebook.json",
                         what=f"lorebook {lorebook_id}")

    def lorebook_write(self, lorebook_id: str, lorebook: dict[str, Any]) -> None:
        write_json_keeping_previous(self.lorebook_dir(lorebook_id) / "lorebook.json",
                                    {**lorebook, "lorebook_id": lorebook_id})

    def lorebook_delete(self, lorebook_id: str) -> None:
        _move_aside(self.lorebook_dir(lorebook_id), self.root / "trash" / "lorebooks")

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
        _move_aside(self.persona_dir(persona_id), self.root / "trash" / "personas")

    # instances ----------------------------------------------------------
    def instance_ids(self) -> list[str]:
        return self._ids_in(self.root / "instances", "instance_state.json")

    def instance_lock(self, instance_id: str) -> LockProtocol:
        return self.lock_factory(self.instance_dir(instance_id) / ".lock", instance_id)

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

    # sessions -----------------------------------------------------------
    def session_ids(self, instance_id: str) -> list[str]:
        folder = self.sessions_dir(instance_id)
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.jsonl") if _safe_name(p.stem))

    def session_next_id(self, instance_id: str) -> str:
        taken = set(self.session_ids(instance_id))
        archive = self.sessions_dir(instance_id) / "archive"
        if archive.is_dir():
            taken |= {p.name.split(".")[0] for p in archive.glob("*.jsonl")}
        return next_numbered_id("sess", taken)

    def session_create(self, instance_id: str, session_id: str, *,
                       continued_from: str | None = None,
                       lines: list[dict[str, Any]] | None = None,
                       created_at: str | None = None,
                       branched_from: dict[str, Any] | None = None,
                       imported: dict[str, Any] | None = None) -> dict[str, Any]:
        path = self.session_path(instance_id, session_id)
        if path.exists():
            raise StoreError(f"session {session_id} already exists in {instance_id}")
        metadata = {"type": "metadata", "instance_id": instance_id, "session_id": session_id,
                    "created_at": created_at or utc_now(), "continued_from": continued_from}
        if branched_from:
            metadata["branched_from"] = branched_from
        if imported:
            # The chat's own header, written back when the session is exported.
            metadata["imported"] = imported
        body = "".join(_dump_line(line) + "\n" for line in [metadata, *(lines or [])])
        path.parent.mkdir(parents=True, exist_ok=True)
        _session_write(path, body.encode("utf-8"))
        return metadata

    def session_read(self, instance_id: str, session_id: str, *,
                     cached: bool = False, newest: int | None = None,
                     shown: int | None = None, before: int | None = None,
                     usable: int | None = None, tokens: int | None = None,
                     overhead: int = 0,
                     pick: Callable[[np.ndarray], tuple[int, int]] | None = None
                     ) -> SessionRead:
        """The session as it is in the file now. `cached` parses only what was appended since
        the last cached read of this file (a rewrite is noticed and parsed again in full);
        its lines are shared with the cache, so the caller must not change them. `newest`
        parses only the newest lines holding that many messages (read_session_tail); `shown`
        only the stretch a chat page of that many lines before `before` needs
        (read_session_stretch); `usable` only the newest lines a prompt of that many messages
        needs, `tokens` those a prompt of that many tokens needs, the older ones tallied
        (read_session_recent); `pick` the lines it picks from the kinds of all of them
        (read_session_picked)."""
        path = self.session_path(instance_id, session_id)
        if pick is not None:
            return read_session_picked(path, pick=pick)
        if shown is not None:
            return read_session_stretch(path, shown=shown, before=before)
        if usable is not None or tokens is not None:
            return read_session_recent(path, usable=usable, tokens=tokens, overhead=overhead)
        if newest is not None:
            return read_session_tail(path, messages=newest)
        return SESSION_CACHE.read(path) if cached else read_session_file(path)

    def session_read_head(self, instance_id: str, session_id: str) -> SessionRead:
        """The metadata, problems and (`line_kinds`) what kind each line is, no line parsed:
        enough to list a session. A session the index cannot describe is read whole."""
        return self.session_read(instance_id, session_id, pick=_no_lines)

    def session_append(self, instance_id: str, session_id: str, record: dict[str, Any], *,
                       durable: bool = True) -> None:
        """Append one whole line. The caller holds the instance lock. `durable=False` leaves
        the fsync to the caller's next durable write to the file (a turn's reply line)."""
        path = self.session_path(instance_id, session_id)
        if not path.exists():
            raise MissingFile(path, f"session {session_id}")
        _append_whole(path, (_dump_line(record) + "\n").encode("utf-8"), durable=durable)

    def session_rewrite(self, instance_id: str, session_id: str,
                        lines: list[dict[str, Any]]) -> Path:
        """Replace a session file atomically, keeping the previous file as a backup copy
        under sessions/history/ (edits never lose the original)."""
        path = self.session_path(instance_id, session_id)
        backup = self._backup_path_new(instance_id, session_id)
        backup_dir = backup.parent
        backup_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, backup)
        _session_write(path, "".join(_dump_line(line) + "\n" for line in lines).encode("utf-8"))
        self._backups_prune(backup_dir, session_id)
        return backup

    def session_tail_replace(self, instance_id: str, session_id: str, *, first: int,
                             lines: list[dict[str, Any]], then: bytes = b"",
                             action: str = "") -> TailChange:
        """Replace the session's lines from position `first` (among SessionRead.lines) to the
        end with `lines`, then the bytes `then` (a reply's streaming head), touching only the
        file's tail (personalab/lib/session_tail.py: journaled, kill -9 safe); the lines
        replaced are kept as the change's backup under sessions/history/. The caller holds the
        instance lock and has repaired the file (no unfinished line). A file the line index
        cannot describe, or with an unreadable line among those replaced, is rewritten whole
        as before (session_rewrite), its unreadable lines dropped as then."""
        path = self.session_path(instance_id, session_id)
        data = _file_bytes(path)
        body = "".join(_dump_line(line) + "\n" for line in lines).encode("utf-8")
        try:
            index = line_index_read(path, data)
        except Unindexable:
            index = None
        positions = index.line_records() if index is not None else []
        if (index is None or index.covered != len(data) or not 0 <= first <= len(positions)
                or (first < len(positions) and (index.records["kind"][positions[first]:] == BAD).any())):
            return self._session_rewrite_whole(instance_id, session_id, first=first, lines=lines,
                                               then=then)
        kept = int(positions[first]) if first < len(positions) else len(index.records)
        offset = index.span(kept)[0] if kept < len(index.records) else index.covered
        return self._tail_change(instance_id, session_id, data, index, kept=kept,
                                 offset=offset, body=body, then=then,
                                 extra={"first_line": first, "action": action})

    def session_tail_pending(self, instance_id: str, session_id: str) -> bool:
        """Whether a tail change was cut short by a crash (session_repair finishes it)."""
        return journal_path(self.session_path(instance_id, session_id)).exists()

    def session_tail_restore(self, instance_id: str, session_id: str, *, offset: int,
                             tail: bytes, action: str = "undo") -> TailChange | None:
        """Put `tail` (a tail backup's lines) back in place of the file's bytes from `offset`
        (the start of a line) on, as a tail change with its own backup. None: the file has no
        line starting there (the caller restores another way)."""
        path = self.session_path(instance_id, session_id)
        data = _file_bytes(path)
        try:
            index = line_index_read(path, data)
        except Unindexable:
            return None
        ends = index.records["end"]
        kept = int(np.searchsorted(ends, offset, side="right"))
        if index.covered != len(data) or offset > len(data) or (
                kept and int(ends[kept - 1]) != offset):
            return None
        return self._tail_change(instance_id, session_id, data, index, kept=kept, offset=offset,
                                 body=tail, then=b"", extra={"action": action})

    def _tail_change(self, instance_id: str, session_id: str, data: bytes, index: LineIndex, *,
                     kept: int, offset: int, body: bytes, then: bytes,
                     extra: dict[str, Any]) -> TailChange:
        path = self.session_path(instance_id, session_id)
        backup = self._backup_path_new(instance_id, session_id)
        # The index's CRC of the file up to the last line kept: that of the bytes before offset.
        record = tail_replace(path, data, offset=offset, new=body + then, backup=backup,
                              extra={"session_id": session_id, **extra},
                              prefix_crc=int(index.records["crc"][kept - 1]) if kept else 0)
        line_index_cut(path, kept)
        kinds = index.records["kind"][:kept]
        SESSION_CACHE.cut(path, offset=offset, records=int(np.count_nonzero(
            (kinds != BLANK) & (kinds != BAD))))
        self._backups_prune(backup.parent, session_id)
        return TailChange(backup=backup, then_start=offset + len(body),
                          fingerprint=file_fingerprint(body + then, prefix_size=offset,
                                                       prefix_crc=record.prefix_crc))

    def _session_rewrite_whole(self, instance_id: str, session_id: str, *, first: int,
                               lines: list[dict[str, Any]], then: bytes) -> TailChange:
        whole = self.session_read(instance_id, session_id)
        backup = self.session_rewrite(instance_id, session_id,
                                      [whole.metadata, *whole.lines[:first], *lines])
        path = self.session_path(instance_id, session_id)
        start = path.stat().st_size
        if then:
            _append_whole(path, then)
        return TailChange(backup=backup, then_start=start,
                          fingerprint=file_fingerprint(_file_bytes(path)))

    def _backup_path_new(self, instance_id: str, session_id: str) -> Path:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        return self.sessions_dir(instance_id) / "history" / f"{session_id}.{stamp}.jsonl"

    def _backups_prune(self, backup_dir: Path, session_id: str) -> None:
        """Keep the newest `history.backups_keep` copies of a session: each edit copies the
        whole file, so an uncapped history grows by the session's size per edit."""
        keep = self.module_read("history").get("backups_keep")
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            keep = DEFAULT_MODULES["history"]["backups_keep"]
        for old in sorted(backup_dir.glob(f"{session_id}.*.jsonl"))[:-keep]:
            with contextlib.suppress(FileNotFoundError):
                old.unlink()

    def session_archive(self, instance_id: str, session_id: str) -> Path:
        path = self.session_path(instance_id, session_id)
        if not path.exists():
            raise MissingFile(path, f"session {session_id}")
        archive_dir = self.sessions_dir(instance_id) / "archive"
        archive_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        target = archive_dir / f"{session_id}.{stamp}.jsonl"
        os.replace(path, target)
        index_path(path).unlink(missing_ok=True)
        return target

    def session_repair(self, instance_id: str, session_id: str) -> dict[str, Any] | None:
        """Complete a line left unfinished by a crash, in the file itself (its text kept,
        marked interrupted), after a tail change a crash cut short (old or new tail, never a
        torn one). The caller holds the instance lock, so nothing is streaming."""
        path = self.session_path(instance_id, session_id)
        tail_recover(path, self._backup_path_new(instance_id, session_id))
        with path.open("r+b") as handle:
            start = _unfinished_tail_start(handle)
            if start is None:
                return None
            handle.seek(start)
            tail = _decode_tail(handle.read())
            record = parse_partial_line(tail)
            if record is None:
                try:
                    json.loads(tail)
                    fixed = tail
                    record = None
                except json.JSONDecodeError:
                    fixed = None
                if fixed is not None:
                    handle.seek(0, os.SEEK_END)
                    handle.write(b"\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                    return None
                # An unreadable half line is kept as text in a repair record, never dropped.
                record = {"type": "repaired_fragment", "raw": tail, "timestamp": utc_now()}
            else:
                record["interrupted"] = True
            handle.seek(start)
            handle.write((_dump_line(record) + "\n").encode("utf-8"))
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
            return record

    def session_repair_when_idle(self, instance_id: str, session_id: str, *,
                                 patience: float = 0.1) -> bool:
        """session_repair unless a turn is writing the session: True when it ran. Another
        reader's repair holds the instance lock for milliseconds and a streaming turn for the
        whole reply, so waiting `patience` seconds tells one from the other."""
        deadline = time.monotonic() + patience
        while True:
            try:
                with self.instance_lock(instance_id):
                    self.session_repair(instance_id, session_id)
                return True
            except InstanceBusy:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.02)

    def assistant_writer(self, instance_id: str, session_id: str, *, turn: int,
                         extra: dict[str, Any] | None = None,
                         replace_from: int | None = None,
                         action: str = "") -> AssistantLineWriter:
        """`replace_from`: the line replaces the session's lines from that position on
        (session_tail_replace), as a regenerate or continue replaces the last reply."""
        lock = held_lock(instance_id)
        replace = None
        if replace_from is not None:
            def replace(head: bytes) -> int:
                return self.session_tail_replace(instance_id, session_id, first=replace_from,
                                                 lines=[], then=head, action=action).then_start
        return AssistantLineWriter(self.session_path(instance_id, session_id), turn=turn,
                                   extra=extra, fence=lock.check if lock else None,
                                   replace=replace)

    # traces -------------------------------------------------------------
    def trace_write(self, instance_id: str, trace_id: str, trace: dict[str, Any]) -> None:
        # A trace holds every message sent, so it is serialised once, by the fast encoder. It
        # is a record of what was sent, not part of the story: not fsynced (a power cut may
        # lose the last turn's trace; the session line itself is fsynced).
        write_text_atomic(self.trace_path(instance_id, trace_id), json_keys_per_line(trace),
                          durable=False)

    def trace_read(self, instance_id: str, trace_id: str) -> dict[str, Any]:
        return read_json(self.trace_path(instance_id, trace_id), what=f"trace {trace_id}")

    def trace_ids(self, instance_id: str) -> list[str]:
        folder = self.traces_dir(instance_id)
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.json") if _safe_name(p.stem))

    # memory ledgers -----------------------------------------------------
    def ledger_append(self, instance_id: str, name: str, records: list[dict[str, Any]]) -> None:
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='ledger')}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        _append_whole(path, "".join(_dump_line(r) + "\n" for r in records).encode("utf-8"))

    def ledger_replace_session(self, instance_id: str, name: str, *, session_id: str,
                               records: list[dict[str, Any]]) -> None:
        """Write `records` in place of the ledger's records of `session_id`, in one atomic
        rewrite; every other line (unreadable ones too) is kept as it is."""
        path = self.memory_dir(instance_id) / f"{validate_id(name, kind='ledger')}.jsonl"
        kept = [line for line in _file_bytes_or_empty(path).splitlines(keepends=True)
                if line.strip() and _line_session(line) != session_id]
        if kept and not kept[-1].endswith(b"\n"):
            kept[-1] += b"\n"
        added = "".join(_dump_line(r) + "\n" for r in records).encode("utf-8")
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


def _session_write(path: Path, data: bytes) -> None:
    """Write a whole session file and its line index, so that an imported or rewritten session
    is never indexed by the first reader (a page or a turn); the index is a cache, so failing to
    write it only leaves that to the next read."""
    write_bytes_atomic(path, data)
    with contextlib.suppress(Unindexable, OSError):
        line_index_read(path, data)


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


def _append_whole(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Append whole lines or nothing: a torn write (disk full) is cut back off."""
    with path.open("ab") as handle:
        size = handle.seek(0, os.SEEK_END)
        try:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(handle.fileno(), size)
            raise


def _decode_tail(data: bytes) -> str:
    """A torn write can cut a character in half: drop the unfinished character, keep the rest."""
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)


def _unfinished_tail_start(handle) -> int | None:
    """Offset of the last line when it lacks its newline, reading only the file's tail."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return None
    handle.seek(size - 1)
    if handle.read(1) == b"\n":
        return None
    block = 64 * 1024
    position = size
    while position > 0:
        position = max(0, position - block)
        handle.seek(position)
        chunk = handle.read(min(block, size - position))
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return position + cut + 1
    return 0


def _safe_name(name: str) -> bool:
    from personalab.lib.ids import is_valid_id

    return is_valid_id(name)


def keep_previous(path: Path) -> Path | None:
    """Copy a file about to be replaced into `history/` beside it (`definition.{stamp}.json`),
    as session edits do: a change to a definition never loses the previous one."""
    if not path.is_file():
        return None
    backup_dir = path.parent / "history"
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    backup = backup_dir / f"{path.stem}.{stamp}{path.suffix}"
    try:
        shutil.copy2(path, backup)
    except BaseException:
        backup.unlink(missing_ok=True)
        raise
    return backup


def write_json_keeping_previous(path: Path, data: Any) -> None:
    """write_json_atomic after keep_previous; a write that fails (a full disk) leaves no
    backup behind, so a refused change changes nothing."""
    backup = keep_previous(path)
    try:
        write_json_atomic(path, data)
    except BaseException:
        if backup is not None:
            backup.unlink(missing_ok=True)
        raise


def _move_aside(folder: Path, trash: Path) -> None:
    if not folder.exists():
        return
    trash.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    os.replace(folder, trash / f"{folder.name}.{stamp}")


def _lines_parse(data: bytes, path: Path, first_number: int,
                 check: Callable[[dict[str, Any]], str | None] | None = None
                 ) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """Parse whole lines (`data` ends at a newline); bad lines (and those `check` objects to)
    are reported and skipped."""
    records: list[dict[str, Any]] = []
    problems: list[LineProblem] = []
    loads = json_loads_for(data)
    for number, raw in enumerate(data.split(b"\n")[:-1], start=first_number):
        record, reason = line_parse(raw, check, loads=loads)
        if record is not None:
            records.append(record)
        elif reason is not None:
            problems.append(LineProblem(str(path), number, reason))
    return records, problems


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise MissingFile(path, path.name) from None


def line_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True)
class LinesSince:
    """The whole lines after a byte offset: `end` is the offset after the last of them and
    `tail_hash`/`tail_length` describe the whole line that ends at `end`."""

    records: list[dict[str, Any]]
    end: int
    tail_hash: str
    tail_length: int
    tail_hash_before: str  # of the `back` bytes before the offset


def jsonl_lines_since(path: Path, offset: int, *, back: int = 0,
                      check: Callable[[dict[str, Any]], str | None] | None = None) -> LinesSince:
    """Parse the whole lines of a JSONL file from byte `offset` on (an unfinished last line is
    left for later); bad lines are skipped as in every read. `back` bytes before the offset
    are read too and hashed, so the caller can tell whether the line it stopped at is still
    there."""
    back = min(back, offset)
    with path.open("rb") as handle:
        handle.seek(offset - back)
        data = handle.read()
    before = data[:back]
    cut = data.rfind(b"\n") + 1
    if cut <= back:
        return LinesSince([], offset, line_hash(before), back, line_hash(before))
    records, _ = _lines_parse(data[back:cut], path, 1, check)
    start = data.rfind(b"\n", 0, cut - 1) + 1
    return LinesSince(records, offset - back + cut, line_hash(data[start:cut]), cut - start,
                      line_hash(before))


def read_jsonl_records(path: Path) -> tuple[list[dict[str, Any]], list[LineProblem], str]:
    """Whole lines parsed, bad lines reported and skipped, and the unterminated tail."""
    data = _file_bytes(path)
    cut = data.rfind(b"\n") + 1
    records, problems = _lines_parse(data[:cut], path, 1)
    return records, problems, _decode_tail(data[cut:])


@dataclass(frozen=True)
class _ParsedLines:
    """The whole lines of a file as parsed, with the bytes they came from."""

    prefix: bytes
    line_count: int
    records: list[dict[str, Any]]
    problems: list[LineProblem]
    turn_max: int


def _parsed_extend(parsed: _ParsedLines | None, data: bytes, path: Path) -> _ParsedLines:
    """The whole lines of `data`, reusing `parsed` when `data` starts with its very bytes."""
    cut = data.rfind(b"\n") + 1
    if parsed is None or not data.startswith(parsed.prefix):
        records, problems = _lines_parse(data[:cut], path, 1, session_line_problem)
        return _ParsedLines(data[:cut], data.count(b"\n", 0, cut), records, problems,
                            _turn_max(records))
    if cut == len(parsed.prefix):
        return parsed
    added = data[len(parsed.prefix):cut]
    records, problems = _lines_parse(added, path, parsed.line_count + 1, session_line_problem)
    return _ParsedLines(data[:cut], parsed.line_count + added.count(b"\n"),
                        parsed.records + records, parsed.problems + problems,
                        max(parsed.turn_max, _turn_max(records)))


def _unfinished_take(path: Path, tail_bytes: bytes, line_number: int,
                     records: list[dict[str, Any]], problems: list[LineProblem]
                     ) -> dict[str, Any] | None:
    """The line without its newline: a reply streaming (returned as the partial), a whole
    line missing only its newline (added to `records`), or an unfinished one (a problem)."""
    tail = _decode_tail(tail_bytes)
    if not tail.strip():
        return None
    partial = parse_partial_line(tail)
    if partial is None:
        try:
            record = json_loads(tail)
            reason = session_line_problem(record) if isinstance(record, dict) else None
            if reason:
                problems.append(LineProblem(str(path), line_number, reason))
            elif isinstance(record, dict):
                records.append(record)
        except json.JSONDecodeError:
            problems.append(LineProblem(str(path), line_number, "unfinished line"))
    return partial


def _session_from(path: Path, data: bytes, parsed: _ParsedLines) -> SessionRead:
    records, problems = list(parsed.records), list(parsed.problems)
    whole = len(records)
    partial = _unfinished_take(path, data[len(parsed.prefix):], parsed.line_count + 1,
                               records, problems)
    turn_max = max(parsed.turn_max, _turn_max(records[whole:]))
    metadata: dict[str, Any] = {}
    if records and records[0].get("type") == "metadata":
        metadata = records.pop(0)
    else:
        problems.append(LineProblem(str(path), 1, "first line is not the metadata line"))
    return SessionRead(path=path, metadata=metadata, lines=records, problems=problems,
                       partial=partial, size_bytes=len(data), turn_max=turn_max)


def read_session_file(path: Path) -> SessionRead:
    return read_session_bytes(path, _file_bytes(path))


def read_session_bytes(path: Path, data: bytes) -> SessionRead:
    """`data` read as the session file at `path` (an earlier state of it, say)."""
    return _session_from(path, data, _parsed_extend(None, data, path))


def read_session_tail(path: Path, *, messages: int) -> SessionRead:
    """The metadata line, the newest whole lines back to the `messages`-th newest user or
    assistant line, and the unfinished last line; nothing older is parsed, so the cost does
    not grow with the session. Bad lines in that stretch are reported and skipped exactly as
    read_session_file does (same line numbers); `complete` is False when older lines were left."""
    data = _file_bytes(path)
    cut = data.rfind(b"\n") + 1
    head_end = data.find(b"\n") + 1
    line_count = data.count(b"\n", 0, cut)
    picked: list[dict[str, Any]] = []
    problems: list[LineProblem] = []
    found = 0
    end = cut
    number = line_count
    # Walk back line by line from the last whole one, stopping above the metadata line.
    while end > head_end and found < messages:
        start = data.rfind(b"\n", 0, end - 1) + 1
        records, bad = _lines_parse(data[start:end], path, number, session_line_problem)
        picked.extend(records)
        problems.extend(bad)
        found += sum(1 for record in records if record.get("role") in ("user", "assistant"))
        end, number = start, number - 1
    picked.reverse()
    problems.reverse()
    head_records, head_problems = _lines_parse(data[:head_end], path, 1, session_line_problem)
    partial = _unfinished_take(path, data[cut:], line_count + 1, picked, problems)
    metadata: dict[str, Any] = {}
    if head_records and head_records[0].get("type") == "metadata":
        metadata = head_records[0]
    else:
        picked[:0] = head_records
        problems[:0] = [*head_problems,
                        LineProblem(str(path), 1, "first line is not the metadata line")]
    return SessionRead(path=path, metadata=metadata, lines=picked, problems=problems,
                       partial=partial, size_bytes=len(data), turn_max=_turn_max(picked),
                       complete=end <= head_end)


def _session_indexed(path: Path):
    """The file's bytes, its line index and the index's line records; None when the file
    cannot be indexed (the caller reads it whole)."""
    data = _file_bytes(path)
    try:
        index = line_index_read(path, data)
    except Unindexable:
        return None
    return data, index, index.line_records()


def read_session_stretch(path: Path, *, shown: int, before: int | None = None) -> SessionRead:
    """The lines from the (`shown` + 1)-th newest line the chat page shows before line position
    `before` (the end when None) up to `before`, found through the line index kept beside the
    file, so only those lines are parsed. Metadata, problems (every bad line of the file, same
    reasons and numbers), the unfinished last line and the highest turn are as
    read_session_file gives them; `first_index` says where the stretch starts."""
    indexed = _session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions = indexed
    end = len(positions) if before is None else max(0, min(before, len(positions)))
    shown_at = np.flatnonzero(np.isin(index.records["kind"][positions[:end]], SHOWN_KINDS))
    first = int(shown_at[-shown - 1]) if len(shown_at) > shown else 0
    return _stretch_read(path, data, index, positions, first, end, whole_end=before is None)


def _no_lines(kinds: np.ndarray) -> tuple[int, int]:
    return len(kinds), len(kinds)


def read_session_picked(path: Path, *,
                        pick: Callable[[np.ndarray], tuple[int, int]]) -> SessionRead:
    """The session's lines at positions [first, end) that `pick` chooses from the line index's
    kinds of all the lines (`line_kinds`), only those parsed; metadata, problems and the
    unfinished last line as read_session_file gives them. A session the index cannot describe
    whole (no index, a last line missing only its newline) is read whole, `line_kinds` None."""
    indexed = _session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions = indexed
    first, end = pick(index.records["kind"][positions])
    read = _stretch_read(path, data, index, positions, first, end, whole_end=False)
    return read if read.line_kinds is not None else read_session_file(path)


@dataclass
class LinesBefore:
    """What a prompt needs of the lines before a stretch, without parsing them: how many it
    could send, what the messages among them weigh, and the summaries (rendered each turn)."""

    usable: int
    messages: int
    message_tokens: int  # the messages' contents only, no per-message overhead
    summaries: list[dict[str, Any]]
    # The messages among them whose text may hold a macro (its bytes hold "{{", "<" or an
    # escape of either), parsed: what such a message costs once sent depends on the macros.
    macro_messages: list[dict[str, Any]] = field(default_factory=list)


# Bytes a message's line holds when its text may hold a macro (personalab.lib.macros): the
# characters that start one, as written or JSON-escaped.
_MAYBE_MACRO = re.compile(rb"\{\{|<|\\u00(?:3[cC]|7[bB])")


def read_session_recent(path: Path, *, usable: int | None = None, tokens: int | None = None,
                        overhead: int = 0) -> SessionRead:
    """The newest lines a prompt can use, through the line index, and the newest user line:
    `usable` lines a prompt may send, or (`tokens`) lines a prompt may send back to the first
    that takes their cost (content tokens + `overhead` each) over `tokens`; `lines_before`
    tallies the lines before them. When every line fits in `tokens`, the whole session is read
    through the session cache, so the next turn parses only what was appended."""
    indexed = _session_indexed(path)
    if indexed is None:
        return read_session_file(path)
    data, index, positions = indexed
    records = index.records[positions]
    first = _recent_first(records, usable=usable, tokens=tokens, overhead=overhead)
    if usable is None and first == 0:
        read = SESSION_CACHE.read(path, data=data)
        read.token_counts = _token_counts(read.lines, records)
        return read
    users = np.flatnonzero(records["kind"] == USER)
    if len(users):
        first = min(first, int(users[-1]))
    read = _stretch_read(path, data, index, positions, first, len(positions), whole_end=True)
    read.lines_before = _lines_before(data, index, positions, first)
    read.token_counts = _token_counts(read.lines, records[first:])
    return read


_MESSAGE_ROLES = {USER: "user", ASSISTANT: "assistant"}


def _token_counts(lines: list[dict[str, Any]], records: np.ndarray) -> dict[str, int]:
    """The index's token counts of the usable messages among `lines`, which are the lines of
    `records` (a last line missing its newline may follow them); nothing when they do not
    line up."""
    if len(lines) < len(records):
        return {}
    counts = {}
    kinds, usable, tokens = records["kind"].tolist(), records["usable"].tolist(), records["tokens"].tolist()
    for line, kind, sendable, count in zip(lines, kinds, usable, tokens):
        if sendable and (line.get("role") == _MESSAGE_ROLES.get(kind)
                         or (kind == NOTE and line.get("type") == "note")):
            counts[line["content"]] = count
    return counts


def _recent_first(records: np.ndarray, *, usable: int | None, tokens: int | None,
                  overhead: int) -> int:
    """The position of the oldest line a read of the newest lines needs."""
    usable_at = np.flatnonzero(records["usable"])
    if usable is not None:
        return int(usable_at[-usable]) if len(usable_at) >= usable else 0
    costs = records["tokens"][usable_at].astype(np.int64) + overhead
    over = np.flatnonzero(np.cumsum(costs[::-1]) > (tokens or 0))
    return int(usable_at[len(usable_at) - 1 - int(over[0])]) if len(over) else 0


def _lines_before(data: bytes, index: LineIndex, positions: np.ndarray,
                  first: int) -> LinesBefore:
    older = index.records[positions[:first]]
    usable_older = older["usable"].astype(bool)
    # A sendable narrator note weighs what a message does.
    is_message = usable_older & (older["kind"] != SUMMARY)
    messages = older[is_message]
    summaries = [_line_at(data, index, int(number))
                 for number in positions[:first][usable_older & (older["kind"] == SUMMARY)]]
    return LinesBefore(usable=int(usable_older.sum()), messages=len(messages),
                       message_tokens=int(messages["tokens"].sum()),
                       summaries=[line for line in summaries if line is not None],
                       macro_messages=_macro_messages(data, index, positions[:first][is_message]))


def _macro_messages(data: bytes, index: LineIndex, numbers: np.ndarray) -> list[dict[str, Any]]:
    """The lines at record `numbers` whose bytes may hold a macro, parsed."""
    if not len(numbers):
        return []
    stop = index.span(int(numbers[-1]))[1]
    if all(data.find(start, 0, stop) < 0 for start in (b"{{", b"<", b"\\u00")):
        return []  # bytes.find is a fast scan; the pattern below is not
    hits = [found.start() for found in _MAYBE_MACRO.finditer(data, 0, stop)]
    if not hits:
        return []
    at = np.unique(np.searchsorted(index.records["end"], np.array(hits, dtype=np.uint64),
                                   side="right"))
    lines = [_line_at(data, index, int(number)) for number in np.intersect1d(at, numbers)]
    return [line for line in lines if line is not None]


def _line_at(data: bytes, index: LineIndex, number: int) -> dict[str, Any] | None:
    start, stop = index.span(number)
    return line_parse(data[start:stop - 1], session_line_problem)[0]


def _stretch_read(path: Path, data: bytes, index: LineIndex, positions: np.ndarray, first: int,
                  end: int, *, whole_end: bool) -> SessionRead:
    """The session's lines at positions [first, end) as a SessionRead (the unfinished last line
    and a last line missing its newline added when the stretch reaches the end)."""
    total = len(positions)
    records, problems = _stretch_parse(path, data, index, positions[first:end])
    if len(records) != end - first:  # the index disagrees with the file: never trust it
        return read_session_file(path)
    tail: list[dict[str, Any]] = []
    partial = _unfinished_take(path, data[index.covered:], len(index.records) + 1, tail, problems)
    if not total and tail and tail[0].get("type") == "metadata":
        metadata = tail.pop(0)  # a session of one line, missing its newline
    else:
        metadata = _metadata_at(path, data, index, problems)
    if whole_end or end >= total:
        records.extend(tail)
    messages = np.flatnonzero(np.isin(index.records["kind"][positions], MESSAGE_KINDS))
    last_message = (total if tail and tail[-1].get("role") in ("user", "assistant")
                    else int(messages[-1]) if len(messages) else None)
    return SessionRead(path=path, metadata=metadata, lines=records, problems=problems,
                       partial=partial, size_bytes=len(data),
                       turn_max=max(index.turn_max(), _turn_max(tail)),
                       complete=first == 0 and end >= total, first_index=first,
                       last_message_index=last_message,
                       line_kinds=index.records["kind"][positions] if not tail else None)


def _stretch_parse(path: Path, data: bytes, index: LineIndex, picked: np.ndarray
                   ) -> tuple[list[dict[str, Any]], list[LineProblem]]:
    """The lines at record numbers `picked` (one run of the file), and every bad line of the
    whole file reported (in order), as a whole read reports them."""
    records: list[dict[str, Any]] = []
    if len(picked):
        start, _ = index.span(int(picked[0]))
        _, stop = index.span(int(picked[-1]))
        records = _lines_parse_checked(index, int(picked[0]), int(picked[-1]), data[start:stop])
        if records is None:
            records, _ = _lines_parse(data[start:stop], path, int(picked[0]) + 1,
                                      session_line_problem)
    problems = []
    for record in np.flatnonzero(index.records["kind"] == BAD):
        start, stop = index.span(int(record))
        _, reason = line_parse(data[start:stop - 1], session_line_problem)
        problems.append(LineProblem(str(path), int(record) + 1, reason or "unreadable line"))
    return records, problems


def _lines_parse_checked(index: LineIndex, first: int, last: int,
                         stretch: bytes) -> list[dict[str, Any]] | None:
    """The lines of records first..last in one parse, when the index (checked against these
    very bytes) found each of them a usable JSON object: each line is then a whole JSON value,
    so joined by commas they are an array of exactly those objects. None: parse line by line."""
    kinds = index.records["kind"][first:last + 1]
    if np.isin(kinds, (BLANK, BAD)).any():
        return None
    try:
        records = json_loads(b"[" + stretch[:-1].replace(b"\n", b",") + b"]")
    except (ValueError, UnicodeDecodeError):
        return None  # a line json reads alone but not inside an array (a byte-order mark)
    return records if len(records) == len(kinds) else None


def _metadata_at(path: Path, data: bytes, index: LineIndex,
                 problems: list[LineProblem]) -> dict[str, Any]:
    found = np.flatnonzero(index.records["kind"] == METADATA)
    if len(found):
        start, stop = index.span(int(found[0]))
        record, _ = line_parse(data[start:stop - 1])
        return record or {}
    problems.append(LineProblem(str(path), 1, "first line is not the metadata line"))
    return {}


SESSION_CACHE_FILES = 16
SESSION_CACHE_BYTES = 64 * 1024 * 1024


class SessionCache:
    """Session files as last parsed, so a turn parses only the lines appended since.

    Every read still reads the whole file: the cached lines are reused only when the file
    starts with exactly the bytes they were parsed from. An append (a user line, a finished
    reply) adds lines; anything else (an edit, an undo, a regenerate, a hand edit in place,
    even one that keeps size and mtime) changes those bytes and the file is parsed in full.
    The unfinished last line (a reply still streaming) is never cached, it is read every time.
    Least recently read files are dropped beyond SESSION_CACHE_FILES or SESSION_CACHE_BYTES.
    """

    def __init__(self, *, max_files: int = SESSION_CACHE_FILES,
                 max_bytes: int = SESSION_CACHE_BYTES):
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _ParsedLines] = OrderedDict()
        self._lock = threading.Lock()

    def read(self, path: Path, *, data: bytes | None = None) -> SessionRead:
        """`data`: the file's bytes, when the caller has just read them."""
        key = os.path.abspath(path)
        data = _file_bytes(path) if data is None else data
        with self._lock:
            before = self._entries.get(key)
        parsed = _parsed_extend(before, data, path)
        with self._lock:
            self._entries[key] = parsed
            self._entries.move_to_end(key)
            self._shrink()
        return _session_from(path, data, parsed)

    def cut(self, path: Path, *, offset: int, records: int) -> None:
        """The file was changed from byte `offset` (a line's start) on, and `records` parsed
        lines lie before it: keep those, so the next read parses only the new tail."""
        key = os.path.abspath(path)
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or len(entry.prefix) < offset or len(entry.records) < records:
                self._entries.pop(key, None)
                return
            lines = entry.prefix.count(b"\n", 0, offset)
            kept = entry.records[:records]
            self._entries[key] = _ParsedLines(
                entry.prefix[:offset], lines, kept,
                [problem for problem in entry.problems if problem.line_number <= lines],
                _turn_max(kept))

    def _shrink(self) -> None:
        total = sum(len(entry.prefix) for entry in self._entries.values())
        while len(self._entries) > 1 and (len(self._entries) > self.max_files
                                          or total > self.max_bytes):
            _, dropped = self._entries.popitem(last=False)
            total -= len(dropped.prefix)


SESSION_CACHE = SessionCache()


@contextlib.contextmanager
def locked(store: FileStore, instance_id: str, *,
           blocking: bool = False) -> Iterator[LockProtocol]:
    lock = store.instance_lock(instance_id).acquire(blocking=blocking)
    try:
        yield lock
    finally:
        lock.release()
