"""What the data folder's optional settings files hold when they are missing: config.json and
modules/{module}.json, merged key by key over these defaults."""

from __future__ import annotations

import copy
from typing import Any

DEFAULT_CONFIG: dict[str, Any] = {
    "thresholds": {"rag_fallback_threshold": 3, "summary_last_n_turns": 5},
    "limits": {
        "max_total_tokens": 100000,
        "middle_section_warning_tokens": 20000,
        "conversation_max_tokens": 100000,
    },
    "preferences": {"summary_order": "summary_first", "conversation_load_all": True},
}

DEFAULT_MODULES: dict[str, dict[str, Any]] = {
    "director": {"enabled": True, "rag_fallback_threshold": 3},
    "memory": {
        "recall_enabled": True,
        "recall_related_conversations": False,
        "recaps_enabled": None,  # None: on when a model is configured (chat.selectors)
        "recap_every_n_rounds": 5,
        "recap_stack_every_rounds": 10,
        "recap_max_entries": 20,
        "update_memory_last_n_turns": 20,
    },
    "history": {
        "undo_window_seconds": 8,  # reachable with a thumb (issue 33)
        "page_size": 100,
        "backups_keep": 50,
        "trim_max_messages": 10,
        "trim_max_chars": 4000,
        "asides_keep": False,
    },
    "llm": {"base_url": "", "model": ""},
    "prompt": {"locale": "auto", "user_name": "User", "section_budgets": {}},
}


def deep_merge(defaults: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged

