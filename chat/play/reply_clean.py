"""A finished reply or impersonation cleaned as SillyTavern 1.12.6's `cleanUpMessage`
(`public/script.js`) cleans it at its defaults: the start of a stop string it ends in, then
the regex scripts (the caller's), the spaces ending its lines, the speakers' names and the
instruct markers (personalab/lib/reply_names.py), "Auto-fix Markdown" (on by default there),
the context template's shape, and "Trim spaces" (on by default there too: no whitespace at
either end). An impersonation is cleaned so
while it streams too, as SillyTavern shows it in the input box (without "Trim incomplete
sentences" until it ends)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

from library.find_replace.scripts import USER_INPUT, RegexRun
from personalab.lib.instruct import InstructTemplate, instruct_stop
from personalab.lib.llm import LLMError, Provider
from personalab.lib.llm_text import TextCompletionProvider
from personalab.lib.reasoning import Reasoning
from personalab.lib.reply_names import reply_names_cleaned, reply_stop_start_cut
from personalab.lib.reply_shape import (
    reply_lines_trimmed,
    reply_markdown_fixed,
    reply_shaped,
    reply_trimmed,
)


def reply_names(context: dict[str, Any], provider: Provider | None, *,
                impersonate: bool = False) -> dict[str, Any]:
    """Whose names a finished reply (or impersonation) of a request with llm `context` is
    cleaned of: the player's, the speaker's, a group's other members', and with a text
    backend its instruct template's markers (SillyTavern's cleanUpMessage); `stops`: the
    stop strings whose start it loses at its end."""
    user, char = str(context.get("user_name") or ""), str(context.get("character_name") or "")
    others = [str(name) for name in context.get("member_names") or []]
    markers = None
    if isinstance(provider, TextCompletionProvider):
        with contextlib.suppress(LLMError):  # the request itself said what was wrong
            markers = provider.template()
    return {"user_name": user, "char_name": char, "others": others,
            "impersonate": impersonate, "markers": markers,
            "stops": reply_stops(context, markers, impersonate=impersonate)}


def reply_stops(context: dict[str, Any], markers: InstructTemplate | None, *,
                impersonate: bool = False) -> list[str]:
    """SillyTavern's getStoppingStrings for a reply of a request with llm `context`: a
    newline first with single_line, the other side's "Name:" starting a line, the player's
    and a group's other members' (unless the context template turns names off), the instruct
    template's markers, the context template's stop lines, then the player's own stop
    strings."""
    user, char = str(context.get("user_name") or ""), str(context.get("character_name") or "")
    others = [str(name) for name in context.get("member_names") or []]
    named = context.get("names_stop") is not False
    speakers = [f"\n{name}:" for name in (char if impersonate else user, user,
                                          *(other for other in others if other != char))
                if name and named]
    if markers is not None:  # its markers, after the names as there
        every_name = {f"\n{name}:" for name in (user or "User", char or "Assistant", *others)}
        speakers += [stop for stop in instruct_stop(markers, user_name=user, char_name=char,
                                                    impersonate=impersonate, others=others)
                     if stop not in every_name]
    own = (context.get("generation") or {}).get("stop") or []
    stops = [*speakers, *(context.get("story_stop") or []),
             *(word for word in own if isinstance(word, str) and word)]
    if "\n" in stops:
        stops = ["\n", *stops]
    return list(dict.fromkeys(stops))


# SillyTavern's Chat Completion `continue_postfix` (its default, a space) and the scripts whose
# text runs on without spaces between words or sentences (Chinese, Japanese, full-width marks).
CONTINUE_POSTFIX = " "
_UNSPACED_END = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]$")


def continue_joiner(reply: str | None, provider: Provider | None) -> str:
    """What goes between the reply being continued and its continuation. In Chat Completion
    SillyTavern 1.12.6 puts `continue_postfix` after a reply that does not end in a space
    (Generate's `continue_mag`): "She paused." goes on as "She paused. Then…", not
    "paused.Then…". A text-completion model writes its own spacing (there it is not added),
    and after Chinese or Japanese text, which has no spaces, it is not added here either."""
    if (not reply or reply.endswith(CONTINUE_POSTFIX) or _UNSPACED_END.search(reply)
            or isinstance(provider, TextCompletionProvider)):
        return ""
    return CONTINUE_POSTFIX


async def continue_pieces(pieces: AsyncIterator[str], reply: str | None,
                          provider: Provider | None) -> AsyncIterator[str]:
    """The model's pieces, the joiner (continue_joiner) before the continuation's first text;
    a continuation that starts with a space or a line break of its own gets none (SillyTavern
    then sends two spaces)."""
    joiner = continue_joiner(reply, provider)
    async with contextlib.aclosing(pieces):
        async for piece in pieces:
            if joiner and piece and not isinstance(piece, Reasoning):
                piece, joiner = (piece if piece[0].isspace() else joiner + piece), ""
            yield piece


def reply_tidied(content: str, *, names: dict[str, Any] | None,
                 shape: dict[str, Any] | None, kept: int = 0) -> str:
    """A reply after its regex scripts: its lines' trailing spaces, the names (`names`:
    reply_names's answer), "Auto-fix Markdown" (no space inside a `*` pair), the shape
    (`shape`: llm_context's `reply_shape`) and the ends' whitespace; the first `kept`
    characters (the reply being continued) are left as they were, but for the end of a
    continued reply that added only whitespace."""
    tail = reply_lines_trimmed(content[kept:])
    if names:
        tail = reply_names_cleaned(tail, **{**names, "stops": ()})
    content = content[:kept] + reply_markdown_fixed(tail)
    if shape and content.strip():
        content = reply_shaped(content, shape, kept=kept)
    return reply_trimmed(content, kept=kept)


def suggestion_cleaned(text: str, *, names: dict[str, Any], run: RegexRun | None = None,
                       shape: dict[str, Any] | None = None, final: bool = True) -> str:
    """An impersonation's text (so far, unless `final`) as the input box shows it: the
    user-input scripts run as on a finished one; "Trim incomplete sentences" only once it
    ended (SillyTavern's displayIncompleteSentences while it streams)."""
    text = reply_stop_start_cut(text, names["stops"])
    if run and text:
        text = run.text(text, USER_INPUT)
    shown = {key: on for key, on in (shape or {}).items() if final or key != "trim_sentences"}
    return reply_tidied(text, names=names, shape=shown or None)
