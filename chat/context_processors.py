from __future__ import annotations

from chat.llm import llm_settings_from_env, provider_for
from personalab.storage import get_store


def llm_provider(request) -> dict:
    try:
        provider = provider_for(llm_settings_from_env(get_store().module_read("llm")))
    except Exception as exc:  # noqa: BLE001 — the page must still render
        return {"llm_label": f"LLM not usable: {exc}", "llm_offline": True}
    return {"llm_label": provider.label, "llm_offline": provider.is_offline_demo}
