"""Which provider the settings name: an OpenAI-compatible endpoint (chat or text completion), a
local GGUF model, or the offline demo when nothing is configured. Its own module because the
text-completion provider builds on the chat one: picking between them from `llm.py` would
make a cycle. Framework-free: the caller builds the settings."""

from __future__ import annotations

from pathlib import Path

from personalab.lib.llm import (
    DEFAULT_MODEL,
    GGUFProvider,
    LLMSettings,
    OpenAIProvider,
    Provider,
)
from personalab.lib.llm_offline import OfflineProvider
from personalab.lib.llm_text import TextCompletionProvider


def provider_for(settings: LLMSettings) -> Provider:
    if settings.base_url or settings.api_key:
        if settings.completion_api == "text":
            return TextCompletionProvider(settings)
        return OpenAIProvider(settings)
    if settings.gguf_path:
        return GGUFProvider(settings)
    return OfflineProvider(delay=settings.offline_delay)


def model_named(settings: LLMSettings) -> str:
    """The model the settings send requests to, as provider_for picks it: SillyTavern's
    {{model}} (`getGeneratingModel`)."""
    if settings.base_url or settings.api_key:
        return settings.model or DEFAULT_MODEL
    if settings.gguf_path:
        return Path(settings.gguf_path).name
    return OfflineProvider.name
