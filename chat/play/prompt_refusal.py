"""A prompt over its limit, said to the player in the active language (the page's, or the
request's): the prompt's own refusal is in the prompt's language (the character's locale) and
stays in the trace for the inspector."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from chat.prompt.inputs import PromptResult


def _number(value: Any) -> str:
    return f"{int(value):,}"


def prompt_refusal_said(prompt: PromptResult) -> str:
    """Why the turn cannot be sent, in the active language; the prompt's own words when it
    kept no numbers."""
    facts = prompt.refusal
    if not facts:
        return prompt.refused or ""
    total, limit = _number(facts["total"]), _number(facts["limit"])
    over = gettext("The prompt is over the limit (%(total)s > %(limit)s tokens); summarize the "
                   "session or change the settings.") % {"total": total, "limit": limit}
    window = facts.get("window")
    if not window:
        return over
    biggest = ", ".join(
        f"{gettext('the newest message') if name == 'conversation' else name} {_number(tokens)}"
        for name, tokens in window["biggest"])
    if window["by_window"]:
        return gettext(
            "The prompt needs %(total)s tokens, more than the %(tokens)s-token context window "
            "less %(reply)s for the reply (%(limit)s), even with only the newest message, so "
            "summarizing cannot help: raise “Context size” in this chat's Generation settings, "
            "or shorten the card or whatever else it always holds (%(biggest)s tokens).") % {
            "total": total, "tokens": _number(window["tokens"]),
            "reply": _number(window["reply"]), "limit": limit, "biggest": biggest}
    return over + " " + gettext(
        "The prompt needs %(total)s tokens, more than the server's limit (%(limit)s), even with "
        "only the newest message: shorten what it always holds (%(biggest)s tokens) or ask an "
        "administrator to raise limits.max_total_tokens.") % {
        "total": total, "limit": limit, "biggest": biggest}
