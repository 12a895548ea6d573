"""A turn the model server refuses as longer than its context. The window the server allows is
learned (chat/play/model_context.py) and the turn asks again with a prompt built for it, before any
token is shown, so a long chat on a server started with a small context (llama.cpp's `-c 4096`,
whose model list reports the model's training context) keeps going instead of failing every
turn. Older messages leave the window, as any window's do; the player is told once, with the
setting that avoids the second request."""

from __future__ import annotations

from typing import Any

from chat.play.model_context import model_context_learn
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm_overflow import Overflow
from personalab.llm_config import llm_settings_from_env

RETRIES = 2  # a second refusal can still teach a smaller window; a third ends the turn
SMALLEST_WINDOW = 1024  # below it the fixed sections alone rarely fit: the error stands
MARGIN = 0.95  # the server's tokenizer and the prompt's count differently


def window_learned(overflow: Overflow, *, window_tokens: int, prompt_tokens: int) -> int | None:
    """The window, in the prompt's tokens, to ask again with; None when none smaller helps.
    The server's counts are scaled to ours by the refused prompt's length as both counted it."""
    if overflow.limit:
        ratio = overflow.prompt / prompt_tokens if overflow.prompt and prompt_tokens else 1.0
        tokens = int(overflow.limit / max(ratio, 1.0) * MARGIN)
    else:
        tokens = window_tokens // 2
    tokens = min(tokens, int(window_tokens * 0.9))
    return tokens if tokens >= SMALLEST_WINDOW else None


def overflow_learn(store: FileStore, overflow: Overflow, *, window_tokens: int,
                   prompt_tokens: int) -> dict[str, Any] | None:
    """Learn the smaller window and return the warning the turn shows, or None: no retry."""
    tokens = window_learned(overflow, window_tokens=window_tokens, prompt_tokens=prompt_tokens)
    if tokens is None:
        return None
    model_context_learn(llm_settings_from_env(store.module_read("llm")), tokens)
    held = f"{overflow.limit:,} tokens" if overflow.limit else "less than was sent"
    return {"type": "warning", "category": "context_window_learned",
            "message": (f"the model server refused a {window_tokens:,}-token window (it holds "
                        f"{held}); this turn was asked again with {tokens:,}, older messages "
                        f"leaving the prompt"),
            "current_value": tokens, "threshold": window_tokens,
            "suggestion": f"set the context size to {tokens:,} tokens in the chat's generation "
                          f"settings (or the account's) so turns are not sent twice"}
