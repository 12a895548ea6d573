from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from personalab.lib.llm_providers import provider_for
from personalab.llm_config import llm_settings_from_env
from personalab.storage import get_store

# personalab/lib/llm.py is framework-free; its banner text is marked here so makemessages finds it.
gettext_noop("Offline demo — replies are generated locally, not by a language model")


def llm_provider(request) -> dict:
    try:
        provider = provider_for(llm_settings_from_env(get_store().module_read("llm")))
    except Exception as exc:  # noqa: BLE001 — the page must still render
        return {"llm_label": gettext("LLM not usable: %(error)s") % {"error": exc},
                "llm_offline": True}
    return {"llm_label": gettext(provider.label), "llm_offline": provider.is_offline_demo}
