"""Generation (sampling) settings: temperature, top_p, top_k, min_p, max reply tokens,
presence, frequency and repetition penalty, logit_bias, stop strings, seed; and the context window (`context_tokens`: prompt and
reply together) and the share of it recalled memory may take (`memory_share`), never sent to the
model. Framework-free.

A settings dict holds only what was set; an unset value is never sent, so the endpoint's own
default applies. `None` in an update removes a value. SillyTavern's OpenAI preset JSON maps
onto the same names (`openai_max_tokens` -> `max_tokens`, ...)."""

from __future__ import annotations

import math
from typing import Any

from personalab.lib.errors import Invalid

NUMBER_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "top_p": (0.0, 1.0),
    "presence_penalty": (-2.0, 2.0),
    "frequency_penalty": (-2.0, 2.0),
    "min_p": (0.0, 1.0),
    "repetition_penalty": (0.0, 5.0),
}
TOP_K_RANGE = (1, 10_000)  # 0 means off (unset), as in llama.cpp and SillyTavern
LOGIT_BIAS_RANGE = (-100.0, 100.0)
MAX_LOGIT_BIAS = 300
MAX_TOKENS_RANGE = (1, 1_000_000)
# SillyTavern's smallest context size is 512; no model has more than 10M.
CONTEXT_TOKENS_RANGE = (512, 10_000_000)
SEED_RANGE = (-(2**63), 2**63 - 1)
# Recalled memory's share of the window: 0 leaves recall out of the prompt; at most 0.9 so the
# conversation keeps room.
MEMORY_SHARE_RANGE = (0.0, 0.9)
MAX_STOP_STRINGS = 16
MAX_STOP_CHARS = 200
FIELDS = (*NUMBER_RANGES, "top_k", "max_tokens", "stop", "seed", "logit_bias", "context_tokens",
          "memory_share")
# Ours, shaping the prompt: never sent to the model.
PROMPT_FIELDS = ("context_tokens", "memory_share")

# SillyTavern preset key -> ours (a preset also carries prompts and UI settings, ignored here).
ST_PRESET_KEYS = {
    "temperature": "temperature",
    "temp_openai": "temperature",
    "top_p": "top_p",
    "top_p_openai": "top_p",
    "openai_max_tokens": "max_tokens",
    "max_tokens": "max_tokens",
    "presence_penalty": "presence_penalty",
    "pres_pen_openai": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "freq_pen_openai": "frequency_penalty",
    "top_k": "top_k",
    "top_k_openai": "top_k",
    "min_p": "min_p",
    "min_p_openai": "min_p",
    "repetition_penalty": "repetition_penalty",
    "repetition_penalty_openai": "repetition_penalty",
    "seed": "seed",
    "stop": "stop",
    "openai_max_context": "context_tokens",
    # A Text Completion preset's (KoboldCpp, llama.cpp, text-generation-webui, ...)
    "temp": "temperature",
    "rep_pen": "repetition_penalty",
    "freq_pen": "frequency_penalty",
    "presence_pen": "presence_penalty",
}


class GenerationError(Invalid, ValueError):
    """Bad settings; `fields` maps each wrong field to what is wrong with it."""

    code = "invalid"

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__(message="; ".join(f"{name}: {problem}"
                                           for name, problem in fields.items()), fields=fields)


def _number(name: str, value: Any) -> float:
    low, high = NUMBER_RANGES[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("must be a number")
    if not low <= value <= high:
        raise ValueError(f"must be between {low:g} and {high:g}")
    return float(value)


def _integer(value: Any, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("must be a whole number")
    if not low <= value <= high:
        raise ValueError(f"must be between {low} and {high}")
    return value


def _share(value: Any) -> float:
    low, high = MEMORY_SHARE_RANGE
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("must be a number (0.25 is a quarter of the window)")
    if not low <= value <= high:
        raise ValueError(f"must be between {low:g} and {high:g} (0.25 is a quarter of the window)")
    return float(value)


def _stop(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError("must be a list of strings")
    value = [item for item in value if item]
    if len(value) > MAX_STOP_STRINGS:
        raise ValueError(f"at most {MAX_STOP_STRINGS} stop strings")
    if any(len(item) > MAX_STOP_CHARS for item in value):
        raise ValueError(f"each stop string at most {MAX_STOP_CHARS} characters")
    return value


def _logit_bias(value: Any) -> dict[str, float]:
    """{token id: bias}, as OpenAI takes it (ids as text in JSON)."""
    if not isinstance(value, dict):
        raise ValueError('must be an object {"token id": bias}')
    if len(value) > MAX_LOGIT_BIAS:
        raise ValueError(f"at most {MAX_LOGIT_BIAS} tokens")
    low, high = LOGIT_BIAS_RANGE
    cleaned = {}
    for token, bias in value.items():
        if not str(token).isdigit() or len(str(token)) > 9:
            raise ValueError(f"{str(token)[:20]!r} is not a token id (a whole number)")
        if (isinstance(bias, bool) or not isinstance(bias, (int, float))
                or not math.isfinite(bias) or not low <= bias <= high):
            raise ValueError(f"the bias of {token} must be a number between {low:g} and {high:g}")
        cleaned[str(int(token))] = float(bias)
    return cleaned


def _field_clean(name: str, value: Any) -> Any:
    if name in NUMBER_RANGES:
        return _number(name, value)
    if name == "top_k":
        return _integer(value, *TOP_K_RANGE)
    if name == "logit_bias":
        return _logit_bias(value)
    if name == "max_tokens":
        return _integer(value, *MAX_TOKENS_RANGE)
    if name == "seed":
        return _integer(value, *SEED_RANGE)
    if name == "context_tokens":
        return _integer(value, *CONTEXT_TOKENS_RANGE)
    if name == "memory_share":
        return _share(value)
    return _stop(value)


def generation_update(current: dict[str, Any], changes: Any) -> dict[str, Any]:
    """`current` with `changes` applied (None removes a value). Every wrong field is named."""
    if not isinstance(changes, dict):
        raise GenerationError({"generation": "must be an object"})
    updated, problems = dict(current), {}
    for name, value in changes.items():
        if name not in FIELDS:
            problems[name] = f"unknown setting; known: {', '.join(FIELDS)}"
        elif (value is None or value == "" or (name in ("stop", "logit_bias") and not value)
              or (name == "top_k" and value == 0)):  # top_k 0 is "off" in SillyTavern
            # "" is a form's empty box; [] unsets only the one list-valued setting
            updated.pop(name, None)
        else:
            try:
                updated[name] = _field_clean(name, value)
            except ValueError as error:
                problems[name] = str(error)
    if problems:
        raise GenerationError(problems)
    return updated


def generation_from_st_preset(preset: Any) -> dict[str, Any]:
    """The sampling settings of a SillyTavern OpenAI (Chat Completion) or Text Completion
    preset JSON, validated. A seed of -1
    (SillyTavern's "random") and an empty stop list mean unset."""
    if not isinstance(preset, dict):
        raise GenerationError({"file": "must be a JSON object (a SillyTavern preset)"})
    changes: dict[str, Any] = {}
    for key, name in ST_PRESET_KEYS.items():
        if key in preset and name not in changes:
            changes[name] = preset[key]
    if changes.get("seed") == -1:
        changes["seed"] = None
    if not changes:
        raise GenerationError({"file": "no sampling settings found (temperature, top_p, "
                                       "openai_max_tokens, ...)"})
    return generation_update({}, changes)


def generation_effective(account: dict[str, Any], instance: dict[str, Any]) -> dict[str, Any]:
    """What a turn sends: the instance's values over the account's defaults."""
    return {name: value for name, value in {**account, **instance}.items() if name in FIELDS}
