"""A provider whose requests carry `max_tokens`, for the requests a turn does not build itself
(summarize, update memory, rolling recaps): without it the server's own default applied, and
KoboldCpp's (a few hundred tokens) could cut a summary's JSON before it closed. Framework-free."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from personalab.lib.llm import Provider
from personalab.lib.tokens import count_tokens

# Our count of a request against the server's own tokenizer: a tenth kept free, as the
# memory requests' transcripts are (memory/summaries/transcript_parts.py).
TOKENIZER_MARGIN = 1.1


class ReplyCapped:
    """`inner`, each request with `max_tokens` unless the caller set one: what the window
    leaves after the request (a long summary has room to finish), never less than the reply
    share of a turn (`least`)."""

    def __init__(self, inner: Provider, *, window_tokens: int, least: int) -> None:
        self.inner = inner
        self.window_tokens = window_tokens
        self.least = least

    def __getattr__(self, name: str) -> Any:  # name, label, model, is_offline_demo
        return getattr(self.inner, name)

    def _capped(self, messages: list[dict], context: dict) -> dict:
        used = sum(count_tokens(str(m.get("content") or "")) + 4 for m in messages) + 3
        room = self.window_tokens - int(used * TOKENIZER_MARGIN)
        return {**context, "generation": {"max_tokens": max(room, self.least),
                                          **(context.get("generation") or {})}}

    def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        return self.inner.stream(messages, context=self._capped(messages, context))

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        return await self.inner.complete(messages, context=self._capped(messages, context))
