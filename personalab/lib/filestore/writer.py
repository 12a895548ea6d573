"""The streaming assistant line: written token by token, file first, and read back (its text
kept) when a crash left it unfinished."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from personalab.lib.file_trust import AppendWatch
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.jsonl import line_dump
from personalab.lib.jsontext import json_loads, surrogates_replace

STREAMING_PREFIX_KEY = "streaming"
STREAM_SEGMENT_KEYS = {"content": "+content", "reasoning": "+reasoning"}
_SEGMENT_FIELDS = {key: field for field, key in STREAM_SEGMENT_KEYS.items()}
_SEGMENT_START = re.compile(r',"(\+content|\+reasoning)":"')


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
        self._watch: AppendWatch | None = None
        self._line_start = 0
        self.bytes_written = 0

    @property
    def content(self) -> str:
        return "".join(self._parts)

    def open(self, *, content: str = "") -> AssistantLineWriter:
        """`content`: the reply's text so far (continue), written with the line's head."""
        if self.replace is not None:
            data = self._head_bytes() + json.dumps(content, ensure_ascii=False)[1:-1].encode()
            self.fence()
            self._line_start = self.replace(data)
            self.bytes_written += len(data)
            self._parts.extend([content] if content else [])
            self._handle = self.path.open("r+b")
            self._handle.seek(0, os.SEEK_END)
            self._watch = AppendWatch(self.path, self._handle)
            return self
        handle = self.path.open("r+b")
        handle.seek(0, os.SEEK_END)
        self._line_start = handle.tell()
        self._handle = handle
        self._watch = AppendWatch(self.path, handle)
        self._head_write()
        self.append(content)
        return self

    def _head_bytes(self) -> bytes:
        head = {k: v for k, v in self.record.items() if k != "content"}
        if self._reasoning:
            head["reasoning"] = "".join(self._reasoning)
        head.update(self.extra)
        head[STREAMING_PREFIX_KEY] = True
        return (line_dump(head)[:-1] + ',"content":"').encode("utf-8")

    def _head_write(self) -> None:
        # Rewritten (from the line's start) while no content follows it yet, so reasoning
        # streamed before the reply is in the file too and survives a crash.
        data = self._head_bytes()
        self._watch.before()
        self._handle.seek(self._line_start)
        self._handle.write(data)
        self._handle.truncate()
        self._handle.flush()
        self._watch.after()
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
        self._watch.before()
        self._handle.write(data)
        self._handle.flush()
        self._watch.after()
        self.bytes_written += len(data)

    def finish(self, **flags: Any) -> dict[str, Any]:
        record = dict(self.record)
        record["content"] = self.content
        if self._reasoning:
            record["reasoning"] = "".join(self._reasoning)
        record.update(self.extra)
        record.update({k: v for k, v in flags.items() if v is not None})
        data = (line_dump(record) + "\n").encode("utf-8")
        handle = self._handle
        try:
            self.fence()
            self._watch.before()
            handle.seek(self._line_start)
            handle.write(data)
            handle.truncate()
            handle.flush()
            self._watch.after()
            os.fsync(handle.fileno())
        except BaseException:
            self._watch.lose()
            raise
        finally:
            self.close_quietly()
        self.bytes_written += len(data)
        return record

    def close_quietly(self) -> None:
        if self._watch is not None:
            self._watch.done()
            self._watch = None
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
    for trim in range(7):
        candidate = fragment[: len(fragment) - trim] if trim else fragment
        try:
            return json.loads('"' + candidate + '"')
        except json.JSONDecodeError:
            continue
    return ""

