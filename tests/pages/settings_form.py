"""The settings page's form as the tests post it: a field of each section typed in, and an LLM
endpoint (base URL, model, key)."""

from __future__ import annotations

SETTINGS_FORM = {
    "thresholds.rag_fallback_threshold": "7", "thresholds.summary_last_n_turns": "9",
    "limits.max_total_tokens": "150000", "limits.middle_section_warning_tokens": "30000",
    "limits.conversation_max_tokens": "200000", "preferences.summary_order": "last_n_first",
    "memory.recap_every_n_rounds": "42", "history.page_size": "321",
    "llm.base_url": "http://llm.example:9000/v1", "llm.model": "big-model",
    "llm.api_key": "sk-typed"}
