"""The context window and the sampling settings of one turn: the instance's and account's
settings, and the context length the model server reports when neither sets one."""

from __future__ import annotations

from typing import Any

from chat.play.model_context import (
    model_context_known,
    model_context_learned,
    model_context_tokens,
)
from chat.prompt.window import ContextWindow, generation_sent, window_for
from chat.services.generation import generation_for_instance
from personalab.lib.filestore.store import FileStore
from personalab.lib.llm import LLMSettings
from personalab.llm_config import llm_settings_from_env


def turn_window(store: FileStore, instance_state: dict[str, Any]
                ) -> tuple[ContextWindow, dict[str, Any]]:
    """The window the prompt must fit, and the settings the request carries (max_tokens set)."""
    generation, llm = _settings(store, instance_state)
    model_tokens = None if generation.get("context_tokens") else model_context_tokens(llm)
    window = window_for(generation, model_tokens=model_tokens,
                        ceiling=model_context_learned(llm))
    return window, generation_sent(generation, window)


def turn_window_known(store: FileStore, instance_state: dict[str, Any]) -> ContextWindow | None:
    """turn_window's window when it is known without asking the model server, else None: a
    turn reads its session before the player's line is written, and that write must not wait
    on a server that may be slow or gone."""
    generation, llm = _settings(store, instance_state)
    known, model_tokens = ((True, None) if generation.get("context_tokens")
                           else model_context_known(llm))
    if not known:
        return None
    return window_for(generation, model_tokens=model_tokens, ceiling=model_context_learned(llm))


def _settings(store: FileStore, instance_state: dict[str, Any]
              ) -> tuple[dict[str, Any], LLMSettings]:
    return (generation_for_instance(store, instance_state),
            llm_settings_from_env(store.module_read("llm")))
