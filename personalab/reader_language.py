"""The language a request or a WebSocket reads, as Django's LocaleMiddleware picks it for a page
(its language cookie, else Accept-Language, else the default), for the answers given before or
outside Django's middleware: a 413 (personalab/body_limit.py) and the chat socket's words
(chat/live/consumers.py)."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation


def language_picked(*, chosen: str | None, accepted: str) -> str:
    """`chosen`: the language cookie's value; `accepted`: the Accept-Language header."""
    wanted = [chosen] if chosen else []
    wanted += [code for code, _ in translation.trans_real.parse_accept_lang_header(accepted[:256])]
    for code in wanted:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
