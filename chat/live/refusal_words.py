"""What the WebSocket tells the page, in the page's language: its own refusals (by code), the
turn's refusals written in fixed English (by form), and a turn's warnings (the prompt
inspector's table, chat/inspector/notes.py). A refusal the turn already wrote in the active
language (the prompt over its limit, chat/play/prompt_refusal.py) and any text not listed here
go as they came."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext_lazy

from chat.inspector.notes import warning_named
from personalab.lib.errors import AppError, error_read
from personalab.lib.worded_forms import Forms, form_named

# The consumer's own refusals, whatever their English said.
CODE_WORDS = {
    "signed_out": gettext_lazy("You are signed out: log in again to go on with this chat."),
    "bad_frame": gettext_lazy("The page sent something the server cannot read; reload the "
                              "page."),
    "bad_json": gettext_lazy("The page sent something the server cannot read; reload the page."),
    "bad_type": gettext_lazy("The page asked for something the server does not know; reload "
                             "the page."),
    "throttled": gettext_lazy("Too many actions on this chat in a short time; wait a moment, "
                              "then try again."),
    "account_turns": gettext_lazy("Your account has as many replies being written at once as "
                                  "the server allows; wait for one to end, then try again."),
}
BUSY = gettext_lazy("A reply is still being written or another change holds this chat: stop it "
                    "or wait for it, then try again.")
INTERNAL_WORDS = gettext_lazy("Something went wrong on the server (%(detail)s); nothing was "
                              "lost, try again.")
FORMS: Forms = [
    (re.compile(r"a reply is still streaming; stop it or wait"), BUSY),
    (re.compile(r"instance [a-z0-9_][a-z0-9_-]{0,63} is busy: a reply is streaming or another "
                r"change is running; wait for it to finish"), BUSY),
    (re.compile(r"the last aside is still being answered"),
     gettext_lazy("The last aside is still being answered; wait for it.")),
    (re.compile(r"message is empty"), gettext_lazy("The message is empty.")),
    (re.compile(r"message is too long \((?P<length>\d{1,12}) > (?P<limit>\d{1,12}) characters\)"),
     gettext_lazy("The message is too long (%(length)s characters; at most %(limit)s).")),
    (re.compile(r"speaker must be a character id"),
     gettext_lazy("Pick a character of this story to answer.")),
    (re.compile(r"'(?P<speaker>[a-z0-9_][a-z0-9_-]{0,63})' is not a character of this story"),
     gettext_lazy("%(speaker)s is not a character of this story.")),
]
INTERNAL_PREFIX = "internal error: "
# Warnings a turn already writes in the reader's language, their error inside: kept whole.
# (recall_unavailable and memory_index_unavailable are written in fixed Chinese: the
# inspector's table names them, their error kept as the detail.)
TOLD_AS_WRITTEN = {"recap_failed"}


def refusal_said(code: str, message: str) -> str:
    """A refusal's message in the active language."""
    if code in CODE_WORDS:
        return str(CODE_WORDS[code])
    if code == "internal":
        return str(INTERNAL_WORDS) % {"detail": message.removeprefix(INTERNAL_PREFIX)}
    return form_named(message, FORMS) or message


def refusal_read(error: AppError) -> str:
    """A page's word for a refused turn or aside: the socket's (by code or form), else the
    sentence the API and the pages' handler say (an id that is no id, say)."""
    said = refusal_said(error.code, error.message)
    return error_read(error) if said == error.message else said


def warning_said(warning: dict[str, Any]) -> dict[str, Any]:
    """A turn's warning with its words in the active language, its numbers and category kept."""
    if warning.get("category") in TOLD_AS_WRITTEN:
        return warning
    return {**warning, **warning_named(warning)}


def event_said(event: dict[str, Any]) -> dict[str, Any]:
    """`event` as the page shows it: a refusal's or a warning's words in the active language
    (the warning keeps its numbers and category); any other event as it is."""
    kind = event.get("type")
    if kind == "warning":
        return warning_said(event)
    if kind in ("error", "impersonate_error", "aside_error") and isinstance(
            event.get("message"), str):
        return {**event, "message": refusal_said(str(event.get("code") or ""), event["message"])}
    return event
