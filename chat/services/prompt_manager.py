"""An instance's prompt manager (personalab/lib/prompt_manager.py) and SillyTavern presets:
importing one brings its samplers, its prompts and its regex scripts (`extensions.regex_scripts`,
off until the player allows them, as SillyTavern asks); exporting writes all of them back."""

from __future__ import annotations

from typing import Any

from chat.services.instance_settings import instance_update
from chat.services.instances import instance_for_user
from library.regex_scripts import MAX_SCRIPTS, scripts_checked, scripts_import_check
from personalab.lib.errors import Invalid
from personalab.lib.filestore import FileStore
from personalab.lib.generation import ST_PRESET_KEYS, GenerationError, generation_from_st_preset
from personalab.lib.prompt_manager import (
    blocks_check,
    prompt_blocks_from_st_preset,
    st_preset_prompts,
)

# Ours -> SillyTavern's preset key (the first of its names for each setting).
ST_EXPORT_KEYS = {"max_tokens": "openai_max_tokens", "context_tokens": "openai_max_context"}


def manager_shown(found: Any) -> dict[str, Any]:
    """A stored prompt manager (an instance's or an account's) with every key present."""
    found = found if isinstance(found, dict) else {}
    return {"blocks": list(found.get("blocks") or []), "skipped": list(found.get("skipped") or []),
            "source": found.get("source") or "",
            "regex_scripts": list(found.get("regex_scripts") or []),
            "regex_scripts_allowed": bool(found.get("regex_scripts_allowed"))}


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
                   regex_scripts_allowed: bool | None = None) -> dict[str, Any]:
    """`current` with what was sent replaced, each part checked first."""
    manager = dict(current)
    if blocks is not None:
        manager["blocks"] = blocks_check(blocks)
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
    if not has_prompts and not manager["blocks"] and scripts is None:
        return None
    if not has_prompts and not manager["blocks"]:
        manager = {"blocks": current.get("blocks") or [], "skipped": []}
    return {**manager, "source": str(source)[:200], "regex_scripts": scripts or [],
            "regex_scripts_allowed": False}


def preset_sampling(preset: Any) -> dict[str, Any] | None:
    """The preset's samplers; None when it has none but carries prompts or scripts."""
    try:
        return generation_from_st_preset(preset)
    except GenerationError:
        if isinstance(preset, dict) and (preset.get("prompts") or preset.get("extensions")):
            return None
        raise


def preset_of(generation: dict[str, Any], manager: dict[str, Any]) -> dict[str, Any]:
    """Samplers, prompt blocks and regex scripts as a SillyTavern Chat Completion preset."""
    ours_to_st = {ours: st for st, ours in reversed(list(ST_PRESET_KEYS.items()))}
    ours_to_st.update(ST_EXPORT_KEYS)
    preset: dict[str, Any] = {ours_to_st[name]: value for name, value in generation.items()
                              if name in ours_to_st}
    if manager.get("blocks"):
        preset.update(st_preset_prompts(manager["blocks"]))
    if manager.get("regex_scripts"):
        preset["extensions"] = {"regex_scripts": manager["regex_scripts"]}
    return preset


def prompt_manager_read(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The instance's prompt blocks, its preset's regex scripts (and whether they run) and what
    its last preset import left out (with reasons)."""
    instance_for_user(user, instance_id)
    return manager_shown(store.instance_state_read(instance_id).get("prompt_manager"))


def _manager_write(store: FileStore, *, instance_id: str, manager: dict[str, Any]) -> None:
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        state["prompt_manager"] = manager
        store.instance_state_write(instance_id, state)


def prompt_manager_update(store: FileStore, *, user, instance_id: str, blocks: Any = None,
                          regex_scripts: Any = None,
                          regex_scripts_allowed: bool | None = None) -> dict[str, Any]:
    """Replace the instance's blocks (order, switches, text, role, place), its preset's regex
    scripts or whether they run: what is sent, all checked first."""
    current = prompt_manager_read(store, user=user, instance_id=instance_id)
    manager = manager_edited(current, blocks=blocks, regex_scripts=regex_scripts,
                             regex_scripts_allowed=regex_scripts_allowed)
    _manager_write(store, instance_id=instance_id, manager=manager)
    return manager


def instance_preset_apply(store: FileStore, *, user, instance_id: str, preset: Any,
                          source: str = "") -> dict[str, Any]:
    """A SillyTavern Chat Completion preset: its samplers replace the instance's and its
    prompts become the instance's prompt blocks. A preset may carry either or both."""
    current = prompt_manager_read(store, user=user, instance_id=instance_id)
    manager = manager_from_preset(preset, current, source)
    sampling = preset_sampling(preset)
    if sampling is not None:
        unset = {name: None for name in store.instance_state_read(instance_id).get(
            "generation") or {}}
        instance_update(store, user=user, instance_id=instance_id,
                        generation={**unset, **sampling})
    if manager is not None:
        _manager_write(store, instance_id=instance_id, manager=manager)
    return {"generation": sampling or {},
            **(prompt_manager_read(store, user=user, instance_id=instance_id))}


def instance_preset_export(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The instance's samplers, prompt blocks and preset regex scripts as a SillyTavern Chat
    Completion preset."""
    instance_for_user(user, instance_id)
    state = store.instance_state_read(instance_id)
    return preset_of(state.get("generation") or {}, manager_shown(state.get("prompt_manager")))
