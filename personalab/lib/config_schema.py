"""Validation of data/config.json (seeds/personalab-flow.md ranges; others documented here)."""

from __future__ import annotations

import copy
from typing import Any

from personalab.lib.filestore import DEFAULT_CONFIG, deep_merge

INT_RANGES: dict[str, tuple[int, int]] = {
    "thresholds.rag_fallback_threshold": (1, 10),
    "thresholds.summary_last_n_turns": (1, 20),
    "limits.max_total_tokens": (10000, 200000),
    "limits.middle_section_warning_tokens": (1000, 50000),
    # Not in the seed: a session file may hold up to a million tokens before the page nags.
    "limits.conversation_max_tokens": (1000, 1000000),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "preferences.summary_order": ("summary_first", "last_n_first"),
}
BOOLS = ("preferences.conversation_load_all",)
KNOWN = {*INT_RANGES, *CHOICES, *BOOLS}


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def _coerce_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _coerce_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "on", "off", "1", "0"):
        return value.lower() in ("true", "on", "1")
    return None


def config_validate(changes: dict[str, Any], current: dict[str, Any] | None = None
                    ) -> tuple[dict[str, Any], dict[str, str]]:
    """Merge `changes` into `current` (or the defaults) and check every field.
    Returns (config, errors); the caller writes nothing when errors is non-empty."""
    merged = deep_merge(current or DEFAULT_CONFIG, changes if isinstance(changes, dict) else {})
    errors: dict[str, str] = {}
    flat = _flatten(changes) if isinstance(changes, dict) else {}
    for name in flat:
        if name not in KNOWN:
            errors[name] = "unknown setting"
    values = _flatten(merged)
    result = copy.deepcopy(merged)
    for name, (low, high) in INT_RANGES.items():
        number = _coerce_int(values.get(name))
        if number is None:
            errors[name] = "must be a whole number"
        elif not low <= number <= high:
            errors[name] = f"must be between {low} and {high}"
        else:
            _set(result, name, number)
    for name, options in CHOICES.items():
        if values.get(name) not in options:
            errors[name] = f"must be one of {', '.join(options)}"
    for name in BOOLS:
        flag = _coerce_bool(values.get(name))
        if flag is None:
            errors[name] = "must be true or false"
        else:
            _set(result, name, flag)
    return result, errors


def _set(target: dict[str, Any], dotted: str, value: Any) -> None:
    section, key = dotted.split(".", 1)
    target.setdefault(section, {})[key] = value
