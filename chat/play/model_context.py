"""The context length a model server reports for the configured model (GET /v1/models:
`context_length` (OpenRouter), `max_model_len` (vLLM), `context_window`; else what llama.cpp's
`/props`, KoboldCpp's `/api/extra/true_max_context_length`, LM Studio's `/api/v0/models/{id}` or
Ollama's `/api/ps` says it runs with, no more than `meta.n_ctx_train`, the model's training
context), asked once and cached, so a turn pays for the question at most once an hour. Each
answer is read within the LLM body caps and ASK_TIMEOUT (personalab/lib/llm_models.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

from personalab.lib.llm import LLMSettings
from personalab.lib.llm_models import models_read, server_context_read

ASK_TIMEOUT = 3.0  # seconds; an unreachable server fails the turn itself anyway
KEEP_SECONDS = 3600.0
# An answer that is only Ollama's default (the model not loaded yet): asked again after the
# turn has loaded it. An earlier settled answer for the model is kept instead, if there is one.
GUESS_SECONDS = 30.0
KEYS = ("context_length", "max_model_len", "context_window", "max_context_length")

_known: dict[tuple[str, str], tuple[float, int | None]] = {}  # until, tokens
_settled: dict[tuple[str, str], int] = {}  # the last answer that was not a guess
# The window a server's refusal taught (chat/play/overflow.py), in the prompt's tokens, kept as
# long as the model list's answer: a server restarted with a larger context is found again.
_learned: dict[tuple[str, str], tuple[float, int]] = {}
_lock = threading.Lock()


def _reported(entry: dict[str, Any]) -> tuple[int | None, bool]:
    """The context the entry reports, and whether it is only the model's training context."""
    for value in [entry.get(key) for key in KEYS]:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, False
    meta = entry.get("meta")
    trained = meta.get("n_ctx_train") if isinstance(meta, dict) else None
    if isinstance(trained, int) and not isinstance(trained, bool) and trained > 0:
        return trained, True
    return None, True


def _ask(settings: LLMSettings) -> tuple[int | None, bool]:
    """The context, and whether it is settled (not Ollama's default assumed)."""
    try:
        entries = models_read(settings, timeout=ASK_TIMEOUT)
    except Exception:  # noqa: BLE001 — a server without a model list: the default window applies
        return None, True
    reported, trained_only = next((_reported(entry) for entry in entries
                                   if entry.get("id") == settings.model), (None, True))
    if not trained_only:
        return reported, True
    served = server_context_read(settings, timeout=ASK_TIMEOUT)
    if served is None:
        return reported, True
    if reported and reported <= served.tokens:
        return reported, True
    return served.tokens, served.settled


def model_context_tokens(settings: LLMSettings) -> int | None:
    """What the server reports for settings.model, or None (offline, no such field)."""
    if not settings.model or not (settings.base_url or settings.api_key):
        return None
    key = (settings.base_url, settings.model)
    with _lock:
        hit = _known.get(key)
    if hit is not None and time.monotonic() < hit[0]:
        return hit[1]
    value, settled = _ask(settings)
    with _lock:
        if settled and value is not None:
            _settled[key] = value
        elif not settled:
            value = _settled.get(key, value)
        _known[key] = (time.monotonic() + (KEEP_SECONDS if settled else GUESS_SECONDS), value)
    return value


def model_context_known(settings: LLMSettings) -> tuple[bool, int | None]:
    """(True, what model_context_tokens would give) when that needs no question to the server
    (offline, or an answer still kept); else (False, None)."""
    if not settings.model or not (settings.base_url or settings.api_key):
        return True, None
    with _lock:
        hit = _known.get((settings.base_url, settings.model))
    if hit is not None and time.monotonic() < hit[0]:
        return True, hit[1]
    return False, None


def model_context_learned(settings: LLMSettings) -> int | None:
    """The window the server's last context refusal for settings.model allows, if any."""
    with _lock:
        hit = _learned.get((settings.base_url, settings.model))
    if hit is None or time.monotonic() - hit[0] >= KEEP_SECONDS:
        return None
    return hit[1]


def model_context_learn(settings: LLMSettings, tokens: int) -> None:
    """Remember that the server holds no more than `tokens` (never widens what it taught)."""
    known = model_context_learned(settings)
    with _lock:
        _learned[(settings.base_url, settings.model)] = (
            time.monotonic(), tokens if known is None else min(tokens, known))


def model_context_forget() -> None:
    with _lock:
        _known.clear()
        _settled.clear()
        _learned.clear()
