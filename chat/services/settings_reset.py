"""Restoring one section of the settings page to its defaults."""

from __future__ import annotations

import copy

from director.services import config_save
from personalab.lib.errors import Invalid
from personalab.lib.filestore.defaults import DEFAULT_CONFIG, DEFAULT_MODULES
from personalab.lib.filestore.store import FileStore
from personalab.lib.shown import value_shown

# Each section of the settings page and what "restore defaults" puts back in it.
SETTINGS_SECTIONS = ("thresholds", "limits", "preferences", "director", "memory", "history",
                     "llm")


def settings_section_reset(store: FileStore, *, section: str) -> None:
    """Put one section of the settings page back to its defaults; other sections keep their
    values. The LLM section goes back to the environment's endpoint (or the offline demo)
    and forgets the key stored for the old base URL."""
    if section not in SETTINGS_SECTIONS:
        raise Invalid(f"unknown settings section {value_shown(section)}", field="reset")
    if section in DEFAULT_CONFIG:
        config_save(store, changes={section: copy.deepcopy(DEFAULT_CONFIG[section])})
        if section == "preferences":  # the prompt language is shown among the preferences
            store.module_write("prompt", {**store.module_read("prompt"),
                                          "locale": DEFAULT_MODULES["prompt"]["locale"]})
        return
    current = store.module_read(section)
    if section == "director":  # its threshold follows config.json's, restored with that section
        current["enabled"] = DEFAULT_MODULES["director"]["enabled"]
    elif section == "llm":
        current.update({"base_url": "", "model": "", "api_key": "", "completion_api": "",
                        "instruct_template": ""})
    else:
        current.update(copy.deepcopy(DEFAULT_MODULES[section]))
    store.module_write(section, current)
