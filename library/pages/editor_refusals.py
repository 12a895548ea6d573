"""The editors' refusals in the reader's language: the services refuse in fixed English
sentences ("content is required", "no outline point 7"), which the API keeps word for word."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy

from library.errors import ItemChanged, LibraryError, LorebookChanged
from library.field_words import field_words
from library.fields import CARD_TEXT_FIELDS
from personalab.lib.errors import LimitReached
from personalab.limit_words import error_words


def outline_refusal(exc: LibraryError, position: str) -> str:
    sentence = (exc.field_errors or {}).get("content")
    if sentence:
        return gettext("Outline point: %(error)s") % {"error": field_words(sentence)}
    if str(exc).endswith("was changed elsewhere"):
        return gettext("Not saved: outline point %(n)s was changed elsewhere (another tab or "
                       "device) since this page showed it. Here is the outline as it is "
                       "now.") % {"n": position[:12]}
    if str(exc).startswith("no outline point"):
        return gettext("There is no outline point %(n)s: the outline has changed since this "
                       "page showed it. Here it is as it is now.") % {"n": position[:12]}
    return field_words(str(exc))


# The editors' fields a save refuses by name, as their labels read on the page.
FIELD_LABELS = {
    "name": gettext_lazy("Name"), "base_persona": gettext_lazy("Base persona"),
    "greeting": gettext_lazy("Greeting (first message)"),
    "tags": gettext_lazy("Tags (one per line)"), "world_setting": gettext_lazy("World setting"),
    "talkativeness": gettext_lazy("Talkativeness in group chats (0 to 1; empty: 0.5)"),
    "depth_prompt.depth": gettext_lazy("Depth (0 = after the last message)"),
    "regex_scripts": gettext_lazy("Regex scripts"),
}


def editor_refusal(exc: Exception) -> str:
    """A character's or background's refused save, said over its editor: a sentence the
    table knows in the reader's language, else each refused field by its label and reason."""
    if isinstance(exc, LimitReached):
        return error_words(exc)
    if isinstance(exc, ItemChanged):
        return gettext("Not saved: this was saved elsewhere (another tab or device) since you "
                       "opened it. Your changes are still here: save again to keep them "
                       "instead, or reload the page to see the other version.")
    whole = field_words(str(exc))
    fields = getattr(exc, "field_errors", None) or {}
    if whole != str(exc) or not fields or not all(name in FIELD_LABELS for name in fields):
        return whole
    return gettext("Not saved: %(reasons)s") % {"reasons": "; ".join(
        gettext("%(field)s: %(reason)s") % {"field": FIELD_LABELS[name],
                                             "reason": field_words(str(reason))}
        for name, reason in fields.items())}


BOOK_FIELDS = {"name", "scan_depth", "token_budget", "min_activations",
               "min_activations_depth_max", "use_group_scoring"}


def book_refusal(exc: LibraryError | LimitReached) -> str:
    """What stops a save, said over the page: the book's own problems in words; an entry's
    problem is beside its field, the page names the entry (never its place in the list)."""
    fields = exc.fields or {}
    if isinstance(exc, LimitReached):
        return error_words(exc)
    if isinstance(exc, LorebookChanged):
        return gettext("Not saved: this lorebook was saved elsewhere (another tab or device) "
                       "since you opened it. Your changes are still here: save again to keep "
                       "them instead, or reload the page to see the other version.")
    if fields and all(name.startswith("entries[") for name in fields):
        return gettext("Not saved: fix the entries marked below.")
    if fields and all(name in BOOK_FIELDS or name.startswith("entries[") for name in fields):
        return gettext("Not saved: fix the fields marked below.")
    return str(exc)


def character_as_posted(definition: dict, data: dict) -> dict:
    """The character editor's boxes as the author sent them, shown again over a refusal: the
    card fields go back into the card the form reads them from, tags and lorebooks stay lists,
    so nothing typed is lost (a raw POST put one letter of the tags on each line)."""
    card = definition.get("card") if isinstance(definition.get("card"), dict) else {}
    card_data = dict(card.get("data") or {})
    for name in (*CARD_TEXT_FIELDS, "alternate_greetings"):
        if name in data:
            card_data[name] = data[name]
    return {**definition, **data, "card": {**card, "data": card_data}}
