"""A model's reasoning, kept apart from its reply: `reasoning_content` deltas (DeepSeek,
OpenRouter's `reasoning`) and `<think>…</think>` blocks anywhere in the reply text (R1-style
models; several blocks, or one never closed before the stream ended). Reasoning goes to the
line's `reasoning` field; it is never part of `content`, so it is never shown as the reply nor
sent back to the model in a later prompt. Framework-free."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

OPEN, CLOSE = "<think>", "</think>"
BLOCK_SEPARATOR = "\n\n"  # between two think blocks of one reply


class Reasoning(str):
    """A piece of the model's reasoning, not of its reply."""


def _tag_prefix_len(text: str, tag: str) -> int:
    """How many characters at the end of `text` could start `tag` (kept until the next piece)."""
    return next((n for n in range(min(len(tag) - 1, len(text)), 0, -1)
                 if text.endswith(tag[:n])), 0)


class ThinkSplitter:
    """Splits streamed reply text on <think>…</think> blocks, tags cut across pieces.

    The whitespace around a block is said once: a reply that opens with a block starts at its
    first word, "Hi <think>…</think> there" reads "Hi there", and a block at the end leaves no
    trailing space. Text with no block comes out exactly as it came in."""

    def __init__(self) -> None:
        self.thinking = False
        self.buffer = ""
        self.space = ""  # whitespace held back at the end of the reply text so far
        self.lead = ""  # whitespace after the last tag, before any word
        self.tagged = False  # a tag came since the last word of the reply
        self.said = False  # reply text given out
        self.thought = False  # reasoning of a block given out
        self.block_new = False  # the next reasoning starts a new block

    def feed(self, text: str) -> list[str]:
        if not self.thinking and not self.buffer and "<" not in text:
            return self._take(text)  # no tag can start here: what the loop below would do
        self.buffer += text
        parts: list[str] = []
        while self.buffer:
            tag = CLOSE if self.thinking else OPEN
            found = self.buffer.find(tag)
            if found < 0:
                cut = len(self.buffer) - _tag_prefix_len(self.buffer, tag)
                parts += self._take(self.buffer[:cut])
                self.buffer = self.buffer[cut:]
                break
            parts += self._take(self.buffer[:found])
            self.buffer = self.buffer[found + len(tag):]
            self.thinking = not self.thinking
            self.tagged = True
            self.block_new = self.thinking
        return parts

    def flush(self) -> list[str]:
        parts = self._take(self.buffer)
        self.buffer = ""
        if not self.tagged and (self.space or self.lead):
            parts.append(self.space + self.lead)  # the reply's own trailing whitespace
        self.space = self.lead = ""
        return parts

    def _take(self, text: str) -> list[str]:
        if not text:
            return []
        return self._reasoning(text) if self.thinking else self._reply(text)

    def _reasoning(self, text: str) -> list[str]:
        separate = self.block_new and self.thought
        self.block_new, self.thought = False, True
        return [Reasoning(BLOCK_SEPARATOR + text if separate else text)]

    def _reply(self, text: str) -> list[str]:
        body = text.strip()
        if not body:
            if self.tagged:
                self.lead += text
            else:
                self.space += text
            return []
        lead = self.lead + text[:len(text) - len(text.lstrip())]
        if not self.tagged:
            gap = self.space + lead
        elif self.said:
            gap = max(self.space, lead, key=len)
        else:
            gap = ""  # the reply begins after a block: at its first word
        self.space = text[len(text.rstrip()):]
        self.lead, self.tagged, self.said = "", False, True
        return [gap + body]


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
