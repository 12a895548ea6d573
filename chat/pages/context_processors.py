from __future__ import annotations

from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from chat.services.reading import reading_settings_read
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


# The reading form's choices (templates/_reading.html), values as /api/v1/reading takes them.
READING_CHOICES = {
    "text_size": (("90", gettext_lazy("Small (90%)")), ("100", gettext_lazy("Normal")),
                  ("115", gettext_lazy("Large (115%)")), ("130", gettext_lazy("Larger (130%)")),
                  ("150", gettext_lazy("Largest (150%)"))),
    "chat_width": (("narrow", gettext_lazy("Narrow")), ("medium", gettext_lazy("Medium")),
                   ("full", gettext_lazy("Full width"))),
    "message_style": (("bubbles", gettext_lazy("Bubbles")), ("flat", gettext_lazy("Flat")),
                      ("document", gettext_lazy("Document"))),
    "theme": (("default", gettext_lazy("Default")), ("paper", gettext_lazy("Warm paper")),
              ("contrast", gettext_lazy("High contrast")), ("night", gettext_lazy("Night blue"))),
    "font": (("sans", gettext_lazy("Sans-serif")), ("serif", gettext_lazy("Serif")),
             ("mono", gettext_lazy("Monospace"))),
}


def reading(request) -> dict:
    """The account's reading settings, set on <body> (templates/base.html) so the first paint
    already reads as chosen, and the reading form's choices."""
    # Lazy: a partial rendered by an async view never asks, so its user is never loaded there.
    return {"reading": SimpleLazyObject(lambda: reading_settings_read(get_store(),
                                                                      user=request.user)),
            "reading_choices": READING_CHOICES}
