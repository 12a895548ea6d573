"""`{{ session_id|session_label }}`: a session as players name it, "conversation 3" for
`sess_003` (sessions are numbered in the order they start, personalab/lib/ids.py), never its id;
a session whose id carries no number (made by hand) keeps its id, the only name it has."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext, gettext_lazy

from personalab.lib.ordinals import ordinal_ending

register = template.Library()

PREFIX = "sess_"


@register.filter
def session_label(session_id: object) -> str:
    text = str(session_id or "")
    number = text.removeprefix(PREFIX)
    if text.startswith(PREFIX) and number.isdigit():
        return gettext("conversation %(number)s") % {"number": int(number)}
    return text


MESSAGE_NTH = {"st": gettext_lazy("the %(n)sst message"), "nd": gettext_lazy("the %(n)snd message"),
               "rd": gettext_lazy("the %(n)srd message"), "th": gettext_lazy("the %(n)sth message")}


@register.filter
def message_nth(number: object) -> str:
    """`{{ 3|message_nth }}`: "the 3rd message", as a reader counts a chat's messages (1 is
    the first), in the page's language; never a raw index."""
    if not isinstance(number, int) or number < 1:
        return gettext("a message")
    if number == 1:
        return gettext("the first message")
    return str(MESSAGE_NTH[ordinal_ending(number)]) % {"n": number}


# Why a chat import skipped a message (chat/chat_formats.py writes them in English).
SKIP_REASONS = {
    "empty message": gettext_lazy("the message is empty"),
    "message has no 'mes' text": gettext_lazy("the message has no text ('mes')"),
    "message has neither 'is_user' nor 'name'":
        gettext_lazy("the message says neither who wrote it ('name') nor whether the player "
                     "did ('is_user')"),
    "expected a JSON object": gettext_lazy("the line is not a message (a JSON object)"),
    "message is not a JSON object": gettext_lazy("the line is not a message (a JSON object)"),
    "neither a chat header nor a message":
        gettext_lazy("the line is neither a chat's header nor a message"),
}


@register.filter
def skip_reason(reason: object) -> str:
    """A skipped message's reason in the page's language (one not listed: as written; a line
    that is not JSON keeps the parser's own words after it)."""
    text = str(reason or "")
    if text.startswith("not valid JSON ("):
        return gettext("the line is not valid JSON (%(detail)s)") % {
            "detail": text.removeprefix("not valid JSON (").removesuffix(")")}
    return str(SKIP_REASONS.get(text, text))
