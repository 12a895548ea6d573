"""The context length a model server reports for the configured model (GET /v1/models:
`context_length` (OpenRouter), `max_model_len` (vLLM), `context_window`, `meta.n_ctx_train`
(llama.cpp)), asked once and cached, so a turn pays for the question at most once an hour."""

from __future__ import annotations

import threading
import time
from typing import Any

import openai

from personalab.lib.llm import LLMSettings

ASK_TIMEOUT = 3.0  # seconds; an unreachable server fails the turn itself anyway
KEEP_SECONDS = 3600.0
KEYS = ("context_length", "max_model_len", "context_window", "max_context_length")

_known: dict[tuple[str, str], tuple[float, int | None]] = {}
_lock = threading.Lock()


def _reported(entry: dict[str, Any]) -> int | None:
    candidates = [entry.get(key) for key in KEYS]
    meta = entry.get("meta")
    if isinstance(meta, dict):
        candidates.append(meta.get("n_ctx_train"))
    for value in candidates:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _ask(settings: LLMSettings) -> int | None:
    client = openai.OpenAI(base_url=settings.base_url or None,
                           api_key=settings.api_key or "not-needed", max_retries=0,
                           timeout=openai.Timeout(ASK_TIMEOUT, connect=ASK_TIMEOUT))
    try:
        for model in client.models.list().data:
            if getattr(model, "id", None) == settings.model:
                return _reported(model.model_dump())
    except Exception:  # noqa: BLE001 — a server without a model list: the default window applies
        return None
    finally:
        client.close()
    return None


def model_context_tokens(settings: LLMSettings) -> int | None:
    """What the server reports for settings.model, or None (offline, no such field)."""
    if not settings.model or not (settings.base_url or settings.api_key):
        return None
    key = (settings.base_url, settings.model)
    with _lock:
        hit = _known.get(key)
    if hit is not None and time.monotonic() - hit[0] < KEEP_SECONDS:
        return hit[1]
    value = _ask(settings)
    with _lock:
        _known[key] = (time.monotonic(), value)
    return value


def model_context_forget() -> None:
    with _lock:
        _known.clear()
