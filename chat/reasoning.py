"""A model's reasoning, kept apart from its reply: `reasoning_content` deltas (DeepSeek,
OpenRouter's `reasoning`) and a reply that opens with `<think>…</think>` (R1-style models).
Reasoning goes to the line's `reasoning` field; it is never part of `content`, so it is never
shown as the reply nor sent back to the model in a later prompt. Framework-free."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

OPEN, CLOSE = "<think>", "</think>"


class Reasoning(str):
    """A piece of the model's reasoning, not of its reply."""


class ThinkSplitter:
    """Splits streamed reply text on a leading <think>…</think>, tags cut across pieces."""

    def __init__(self) -> None:
        self.state = "start"  # "start" (not yet known), "think", "body"
        self.buffer = ""

    def feed(self, text: str) -> list[str]:
        if self.state == "body":
            return [text] if text else []
        self.buffer += text
        if self.state == "start":
            opening = self.buffer.lstrip()
            if opening.startswith(OPEN):
                self.state, self.buffer = "think", opening[len(OPEN):]
            elif OPEN.startswith(opening):
                return []  # still could be the tag
            else:
                self.state, text, self.buffer = "body", self.buffer, ""
                return [text]
        return self._think()

    def _think(self) -> list[str]:
        end = self.buffer.find(CLOSE)
        if end >= 0:
            thought, rest = self.buffer[:end], self.buffer[end + len(CLOSE):].lstrip()
            self.state, self.buffer = "body", ""
            return [piece for piece in (Reasoning(thought), rest) if piece]
        keep = next((n for n in range(len(CLOSE) - 1, 0, -1)
                     if self.buffer.endswith(CLOSE[:n])), 0)
        thought, self.buffer = self.buffer[:len(self.buffer) - keep], self.buffer[
            len(self.buffer) - keep:]
        return [Reasoning(thought)] if thought else []

    def flush(self) -> list[str]:
        text, self.buffer = self.buffer, ""
        if not text:
            return []
        return [Reasoning(text) if self.state == "think" else text]


async def reasoning_split(pieces: AsyncIterator[str]) -> AsyncIterator[str]:
    """`pieces` with inline <think> text turned into Reasoning pieces."""
    splitter = ThinkSplitter()
    async with contextlib.aclosing(pieces):  # a stopped reply closes the LLM stream at once
        async for piece in pieces:
            if isinstance(piece, Reasoning):
                yield piece
                continue
            for part in splitter.feed(piece):
                yield part
    for part in splitter.flush():
        yield part
