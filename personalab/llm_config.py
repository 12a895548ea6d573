"""The Django side's handle on the language model: the environment's endpoint and limits
(parsed once in personalab/settings.py) with the settings page's choices on top. Read per call,
so a test that changes a setting is seen at once."""

from __future__ import annotations

from django.conf import settings

from personalab.lib.llm import LLMSettings, llm_settings_choose


def llm_settings_from_env(overrides: dict | None = None) -> LLMSettings:
    environment = LLMSettings(
        base_url=settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY,
        model=settings.PERSONALAB_MODEL,
        timeout=settings.PERSONALAB_LLM_TIMEOUT,
        idle_seconds=settings.PERSONALAB_LLM_IDLE_SECONDS,
        max_line_bytes=settings.PERSONALAB_LLM_MAX_LINE_BYTES,
        max_body_bytes=settings.PERSONALAB_LLM_MAX_BODY_BYTES,
        body_seconds=settings.PERSONALAB_LLM_BODY_SECONDS,
        connect_timeout=settings.PERSONALAB_LLM_CONNECT_TIMEOUT,
        gguf_path=settings.PERSONALAB_GGUF,
        offline_delay=settings.PERSONALAB_OFFLINE_DELAY,
        completion_api=settings.PERSONALAB_COMPLETION_API,
        instruct_template=settings.PERSONALAB_INSTRUCT_TEMPLATE,
    )
    return llm_settings_choose(environment, overrides)
