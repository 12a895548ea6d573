"""A prompt manager as stored (an instance's or an account's: blocks, what a preset import
left out, the preset's regex scripts and whether they run) and SillyTavern Chat Completion
presets read into one and written back from one. No instance or account here: the callers
(chat/services/prompt_manager.py, chat/services/account_presets.py) say whose it is."""

from __future__ import annotations

from typing import Any

from library.find_replace.scripts import MAX_SCRIPTS, scripts_checked, scripts_import_check
from personalab.lib.errors import Invalid
from personalab.lib.generation import ST_PRESET_KEYS, GenerationError, generation_from_st_preset
from personalab.lib.prompt_manager import (
    UTILITY_DEFAULTS,
    blocks_check,
    prompt_blocks_from_st_preset,
    st_preset_prompts,
    utility_check,
    utility_effective,
)

# Ours -> SillyTavern's preset key (the first of its names for each setting).
ST_EXPORT_KEYS = {"max_tokens": "openai_max_tokens", "context_tokens": "openai_max_context"}


def manager_shown(found: Any) -> dict[str, Any]:
    """A stored prompt manager (an instance's or an account's) with every key present."""
    found = found if isinstance(found, dict) else {}
    return {"blocks": list(found.get("blocks") or []), "skipped": list(found.get("skipped") or []),
            "source": found.get("source") or "",
            "regex_scripts": list(found.get("regex_scripts") or []),
            "regex_scripts_allowed": bool(found.get("regex_scripts_allowed")),
            "markers": list(found.get("markers") or []),
            "utility": dict(found.get("utility") or {})}


def preset_scripts(preset: Any) -> list[dict[str, Any]] | None:
    """A preset's `extensions.regex_scripts` (SillyTavern keeps a preset's scripts there), as
    they came: a pattern too costly to compile refuses the preset, a broken one is kept (and
    skipped when it runs), as for a card. None when the preset carries none."""
    extensions = preset.get("extensions") if isinstance(preset, dict) else None
    scripts = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    if scripts is None:
        return None
    if not isinstance(scripts, list) or len(scripts) > MAX_SCRIPTS \
            or not all(isinstance(item, dict) for item in scripts):
        raise Invalid(f"extensions.regex_scripts must be a list of at most {MAX_SCRIPTS} regex "
                      "scripts", field="extensions.regex_scripts")
    scripts_import_check(scripts)
    return scripts


def manager_edited(current: dict[str, Any], *, blocks: Any = None, regex_scripts: Any = None,
                   regex_scripts_allowed: bool | None = None,
                   utility: Any = None) -> dict[str, Any]:
    """`current` with what was sent replaced, each part checked first (`utility`: the utility
    prompts set here; one left out takes SillyTavern's default)."""
    manager = dict(current)
    if blocks is not None:
        manager["blocks"] = blocks_check(blocks)
    if utility is not None:
        manager["utility"] = utility_check(utility)
    if regex_scripts is not None:
        manager["regex_scripts"] = scripts_checked(regex_scripts)
    if regex_scripts_allowed is not None:
        manager["regex_scripts_allowed"] = bool(regex_scripts_allowed)
    return manager


def manager_from_preset(preset: Any, current: dict[str, Any],
                        source: str) -> dict[str, Any] | None:
    """The prompt manager a preset brings (its blocks, its regex scripts, off until allowed),
    or None when it carries neither prompts nor scripts (a samplers-only preset keeps the
    current one)."""
    manager = prompt_blocks_from_st_preset(preset)
    scripts = preset_scripts(preset)
    has_prompts = bool(preset.get("prompts")) if isinstance(preset, dict) else False
    if not has_prompts and not manager["blocks"] and scripts is None and not manager["utility"]:
        return None
    if not has_prompts and not manager["blocks"]:
        manager = {"blocks": current.get("blocks") or [], "skipped": [],
                   "markers": current.get("markers") or [],
                   "utility": {**(current.get("utility") or {}), **manager["utility"]}}
    return {**manager, "source": str(source)[:200], "regex_scripts": scripts or [],
            "regex_scripts_allowed": False}


def preset_sampling(preset: Any) -> dict[str, Any] | None:
    """The preset's samplers; None when it has none but carries prompts, scripts or utility
    prompts."""
    try:
        return generation_from_st_preset(preset)
    except GenerationError:
        if isinstance(preset, dict) and (preset.get("prompts") or preset.get("extensions")
                                         or any(key in preset for key in UTILITY_DEFAULTS)):
            return None
        raise


def preset_of(generation: dict[str, Any], manager: dict[str, Any]) -> dict[str, Any]:
    """Samplers, prompt blocks and regex scripts as a SillyTavern Chat Completion preset."""
    ours_to_st = {ours: st for st, ours in reversed(list(ST_PRESET_KEYS.items()))}
    ours_to_st.update(ST_EXPORT_KEYS)
    preset: dict[str, Any] = {ours_to_st[name]: value for name, value in generation.items()
                              if name in ours_to_st}
    if manager.get("blocks"):
        preset.update(st_preset_prompts(manager["blocks"], manager.get("markers")))
    # Every utility prompt, as SillyTavern's own export writes them (its defaults included).
    preset.update(utility_effective(manager.get("utility")))
    if manager.get("regex_scripts"):
        preset["extensions"] = {"regex_scripts": manager["regex_scripts"]}
    return preset
