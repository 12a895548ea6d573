"""A player's line that alone is over the prompt's limit is refused before the prompt is built:
the newest message is never cut or left out, so such a prompt is always refused, and building
it first ran recall, the director, lore and the prompt's fitting loops for nothing (tenth
red-team pass)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from django.utils.translation import gettext

from chat.play.regex_scripts import turn_regex
from chat.play.turn_records import TurnContext, TurnRefused
from chat.play.window import turn_window
from chat.prompt.conversation import line_scripted
from chat.prompt.inputs import config_value
from chat.prompt.window import ContextWindow, limit_is_window, prompt_limit
from personalab.lib.filestore.store import FileStore
from personalab.lib.tokens import count_tokens

T = TypeVar("T")


class LineTooLong(TurnRefused):
    """Raised on the turn's worker thread, in English; `line_said` says it again on the event
    loop, in the request's language (asgiref keeps Django's language from plain threads)."""

    def __init__(self, tokens: int, limit: int, window: ContextWindow) -> None:
        self.values = {"tokens": f"{tokens:,}", "limit": f"{limit:,}",
                       "window": f"{window.tokens:,}", "reply": f"{window.reply:,}"}
        self.by_window = limit_is_window(window, limit)
        super().__init__(self.said(), code="prompt_too_long", status=422)

    def said(self) -> str:
        if self.by_window:
            return gettext("Your message alone is %(tokens)s tokens, more than the "
                           "%(window)s-token context window less %(reply)s for the reply "
                           "(%(limit)s): shorten it or send it in parts, or raise “Context "
                           "size” in this chat's Generation settings.") % self.values
        return gettext("Your message alone is %(tokens)s tokens, more than the server's limit "
                       "(%(limit)s): shorten it or send it in parts, or ask an administrator "
                       "to raise limits.max_total_tokens.") % self.values


def line_over_limit(store: FileStore, ctx: TurnContext) -> None:
    """Raises LineTooLong when the player's new line cannot be sent. Counted as the prompt
    shows it (its prompt scripts run), without the name or the template's words around it,
    so only a line that alone cannot fit is refused here."""
    window, _ = turn_window(store, ctx.instance_state)
    limit = prompt_limit(int(config_value(ctx.config, "limits", "max_total_tokens")), window)
    line = ctx.lines[-1] if ctx.lines else {"role": "user"}
    tokens = count_tokens(line_scripted(turn_regex(store, ctx), ctx.user_text, line, depth=0))
    if tokens > limit:
        raise LineTooLong(tokens, limit, window)


async def line_said(work: Awaitable[T]) -> T:
    """`work`, a LineTooLong from its thread said again in the active language."""
    try:
        return await work
    except LineTooLong as exc:
        raise TurnRefused(exc.said(), code=exc.code, status=exc.status) from None
