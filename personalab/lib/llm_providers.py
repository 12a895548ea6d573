"""Which provider the settings name: an OpenAI-compatible endpoint (chat or text completion), a
local GGUF model, or the offline demo when nothing is configured. Its own module because the
text-completion provider builds on the chat one: picking between them from `llm.py` would
make a cycle. Framework-free: the caller builds the settings."""

from __future__ import annotations

from personalab.lib.llm import GGUFProvider, LLMSettings, OpenAIProvider, Provider
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
