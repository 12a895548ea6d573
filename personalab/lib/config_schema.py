"""Validation of data/config.json (seeds/personalab-flow.md ranges; others documented here)."""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import urlsplit

from personalab.lib.filestore.defaults import DEFAULT_CONFIG

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
# str.isdigit() and int() accept "²" and "١٢"; a setting is ASCII digits only.
ASCII_INT = re.compile(r"-?[0-9]{1,12}", re.ASCII)
# What int() reads of ASCII digits, short of its 4,300-digit limit (a ValueError past it).
ASCII_DIGITS = re.compile(r"-?[0-9]{1,4000}", re.ASCII)
ASCII_WHOLE = re.compile(r"(-?[0-9]{1,12})(?:\.0*)?", re.ASCII)
SETTING_DEPTH = 2  # "section.key": anything nested deeper is not a setting


def _flatten(data: dict[str, Any], prefix: str = "", depth: int = 1) -> dict[str, Any]:
    """Dotted names to values; a dict deeper than SETTING_DEPTH stays a value (and is refused),
    so a hostile, deeply nested body never recurses."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and depth < SETTING_DEPTH:
            flat.update(_flatten(value, name + ".", depth + 1))
        else:
            flat[name] = value
    return flat


def int_coerced(value: Any) -> int | None:
    """A whole number as JSON or a form may carry it (12, "12"); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and ASCII_INT.fullmatch(value.strip()):
        return int(value.strip())
    return None


def digits_int(value: Any) -> int | None:
    """A form's or a file's whole number as text ("12", " -3 "); None for anything else:
    str.isdigit() takes "²", which int() refuses, and int() refuses 5,000 digits."""
    text = value.strip() if isinstance(value, str) else ""
    return int(text) if ASCII_DIGITS.fullmatch(text) else None


def count_coerced(value: Any) -> int | None:
    """digits_int from 0 up (a form's position or uid); None for anything else."""
    number = digits_int(value)
    return number if number is not None and number >= 0 else None


def whole_number(raw: str) -> int | None:
    """A form's whole number ("12", "12.0"), ASCII digits only; None for anything else."""
    found = ASCII_WHOLE.fullmatch(raw.strip()) if isinstance(raw, str) else None
    return int(found.group(1)) if found else None


def base_url_error(value: str) -> str:
    """"" when `value` is empty or an http(s) URL with a host, else what is wrong with it."""
    if not value:
        return ""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 — raises ValueError for a port out of range
    except ValueError:
        return "must be an http:// or https:// URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL"
    if parts.username or parts.password or parts.fragment or any(c.isspace() for c in value):
        return "must not contain credentials, spaces or a #fragment"
    return ""


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
    flat = _flatten(changes) if isinstance(changes, dict) else {}
    errors = {name: "unknown setting" for name in flat if name not in KNOWN}
    result = copy.deepcopy(current or DEFAULT_CONFIG)
    for name, value in flat.items():
        if name in KNOWN:
            _set(result, name, value)
    values = _flatten(result)
    for name, (low, high) in INT_RANGES.items():
        number = int_coerced(values.get(name))
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
    if not isinstance(target.get(section), dict):
        target[section] = {}
    target[section][key] = value
