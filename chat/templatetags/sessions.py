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
