"""`{{ session_id|session_label }}`: a session as players name it, "conversation 3" for
`sess_003` (sessions are numbered in the order they start, personalab/lib/ids.py), never its id;
a session whose id carries no number (made by hand) keeps its id, the only name it has."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

register = template.Library()

PREFIX = "sess_"


@register.filter
def session_label(session_id: object) -> str:
    text = str(session_id or "")
    number = text.removeprefix(PREFIX)
    if text.startswith(PREFIX) and number.isdigit():
        return gettext("conversation %(number)s") % {"number": int(number)}
    return text
