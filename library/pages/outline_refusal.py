"""The background outline editor's refusals in the reader's language: the outline service
refuses in fixed English sentences ("content is required", "no outline point 7"), which the
API keeps word for word."""

from __future__ import annotations

from django.utils.translation import gettext

from library.errors import LibraryError
from library.field_words import field_words


def outline_refusal(exc: LibraryError, position: str) -> str:
    sentence = (exc.field_errors or {}).get("content")
    if sentence:
        return gettext("Outline point: %(error)s") % {"error": field_words(sentence)}
    if str(exc).startswith("no outline point"):
        return gettext("There is no outline point %(n)s: the outline has changed since this "
                       "page showed it. Here it is as it is now.") % {"n": position[:12]}
    return field_words(str(exc))
