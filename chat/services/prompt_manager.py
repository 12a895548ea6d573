"""An instance's prompt manager (personalab/lib/prompt_manager.py) and SillyTavern presets:
importing one brings its samplers, its prompts and its regex scripts (`extensions.regex_scripts`,
off until the player allows them, as SillyTavern asks); exporting writes all of them back."""

from __future__ import annotations

from typing import Any

from chat.play.context import templates_for
from chat.prompt.utility import ChatUtility
from chat.services.account_presets import account_prompt_manager_for_chat
from chat.services.instance_settings import instance_update
from chat.services.instances import instance_for_user
from chat.services.presets import (
    manager_edited,
    manager_from_preset,
    manager_shown,
    preset_of,
    preset_sampling,
)
from library.selectors import character_for_chat_optional
from personalab.lib.filestore.store import FileStore
from personalab.lib.prompt_language import locale_for_character
from personalab.lib.prompt_manager import UTILITY_DEFAULTS


def prompt_manager_read(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The instance's prompt blocks, its preset's regex scripts (and whether they run) and what
    its last preset import left out (with reasons)."""
    instance_for_user(user, instance_id)
    return manager_shown(store.instance_state_read(instance_id).get("prompt_manager"))


def prompt_manager_utility_defaults(store: FileStore, *, user,
                                    instance_id: str) -> dict[str, Any]:
    """The utility prompts a chat sends when its manager does not set them: SillyTavern's
    lines in the chat's prompt language (a Chinese prompt's main prompt is Chinese), as its
    turns send them, so the page shows and restores what is sent."""
    instance_for_user(user, instance_id)
    state = store.instance_state_read(instance_id)
    character = character_for_chat_optional(store, state=state,
                                            character_id=state.get("character_id"))
    templates = templates_for(store).get(locale_for_character(store, character))
    return {key: ChatUtility().text(key, templates) if isinstance(value, str) else value
            for key, value in UTILITY_DEFAULTS.items()}


def _manager_write(store: FileStore, *, instance_id: str, manager: dict[str, Any]) -> None:
    with store.instance_lock(instance_id):
        state = store.instance_state_read(instance_id)
        state["prompt_manager"] = manager
        store.instance_state_write(instance_id, state)


def prompt_manager_update(store: FileStore, *, user, instance_id: str, blocks: Any = None,
                          regex_scripts: Any = None,
                          regex_scripts_allowed: bool | None = None,
                          utility: Any = None) -> dict[str, Any]:
    """Replace the instance's blocks (order, switches, text, role, place), its preset's regex
    scripts, whether they run or its utility prompts (SillyTavern's new-chat, example-chat and
    continue lines): what is sent, all checked first."""
    current = prompt_manager_read(store, user=user, instance_id=instance_id)
    manager = manager_edited(current, blocks=blocks, regex_scripts=regex_scripts,
                             regex_scripts_allowed=regex_scripts_allowed, utility=utility)
    _manager_write(store, instance_id=instance_id, manager=manager)
    return manager


def prompt_manager_reset(store: FileStore, *, user, instance_id: str) -> dict[str, Any]:
    """The chat's prompt manager back to its owner's default (none: the template's own
    prompts). The chat's samplers are not touched: its own values are cleared in its
    generation settings."""
    instance_for_user(user, instance_id)
    owner = store.instance_state_read(instance_id).get("owner")
    manager = account_prompt_manager_for_chat(store, username=owner) or {}
    _manager_write(store, instance_id=instance_id, manager=manager)
    return prompt_manager_read(store, user=user, instance_id=instance_id)


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
