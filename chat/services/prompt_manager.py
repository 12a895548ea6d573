"""An instance's prompt manager (personalab/lib/prompt_manager.py) and SillyTavern presets:
importing one brings its samplers and its prompts; exporting writes both back."""

from __future__ import annotations

from typing import Any

from chat.services.instance_settings import instance_update
from chat.services.instances import instance_for_user
from personalab.lib.filestore import FileStore
from personalab.lib.generation import ST_PRESET_KEYS, GenerationError, generation_from_st_preset
from personalab.lib.prompt_manager import (
    blocks_check,
    prompt_blocks_from_st_preset,
    st_preset_prompts,
)

# Ours -> SillyTavern's preset key (the first of its names for each setting).
ST_EXPORT_KEYS = {"max_tokens": "openai_max_tokens", "context_tokens": "openai_max_context"}


def prompt_manager_read(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The instance's prompt blocks and what its last preset import left out (with reasons)."""
    instance_for_user(user, instance_id)
    found = store.instance_state_read(instance_id).get("prompt_manager") or {}
    return {"blocks": list(found.get("blocks") or []), "skipped": list(found.get("skipped") or []),
            "source": found.get("source") or ""}


def _manager_write(store: FileStore, *, instance_id: str, manager: dict[str, Any]) -> None:
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        state["prompt_manager"] = manager
        store.instance_state_write(instance_id, state)


def prompt_manager_update(store: FileStore, *, user, instance_id: str,
                          blocks: Any) -> dict[str, Any]:
    """Replace the instance's blocks (order, switches, text, role, place), all checked first."""
    current = prompt_manager_read(store, user=user, instance_id=instance_id)
    manager = {**current, "blocks": blocks_check(blocks)}
    _manager_write(store, instance_id=instance_id, manager=manager)
    return manager


def instance_preset_apply(store: FileStore, *, user, instance_id: str, preset: Any,
                          source: str = "") -> dict[str, Any]:
    """A SillyTavern Chat Completion preset: its samplers replace the instance's and its
    prompts become the instance's prompt blocks. A preset may carry either or both."""
    instance_for_user(user, instance_id)
    manager = prompt_blocks_from_st_preset(preset)
    has_prompts = bool(preset.get("prompts")) if isinstance(preset, dict) else False
    try:
        sampling = generation_from_st_preset(preset)
    except GenerationError:
        if not has_prompts:
            raise
        sampling = None
    if not has_prompts and not manager["blocks"]:
        manager = None
    if sampling is not None:
        unset = {name: None for name in store.instance_state_read(instance_id).get(
            "generation") or {}}
        instance_update(store, user=user, instance_id=instance_id,
                        generation={**unset, **sampling})
    if manager is not None:
        _manager_write(store, instance_id=instance_id,
                       manager={**manager, "source": str(source)[:200]})
    return {"generation": sampling or {},
            **(prompt_manager_read(store, user=user, instance_id=instance_id))}


def instance_preset_export(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The instance's samplers and prompt blocks as a SillyTavern Chat Completion preset."""
    instance_for_user(user, instance_id)
    state = store.instance_state_read(instance_id)
    generation = state.get("generation") or {}
    ours_to_st = {ours: st for st, ours in reversed(list(ST_PRESET_KEYS.items()))}
    ours_to_st.update(ST_EXPORT_KEYS)
    preset: dict[str, Any] = {ours_to_st[name]: value for name, value in generation.items()
                              if name in ours_to_st}
    blocks = (state.get("prompt_manager") or {}).get("blocks") or []
    if blocks:
        preset.update(st_preset_prompts(blocks))
    return preset
