"""Display-time macros: a stored line shown with {{user}}, {{char}}... substituted.
The file keeps the text as written; only what the page shows changes."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from chat.play.regex_scripts import LineDisplay
from chat.play.turn import EMPTY_REPLY, ERROR_REPLY_OPENING
from chat.selectors import player_line_key
from personalab.lib.line_macros import line_macros_replace

register = template.Library()


@register.filter
def line_text(line: dict[str, Any], values: dict[str, str] | None) -> str:
    """`{{ line|line_text:macro_values }}`: the line's content as the model is sent it."""
    content = line.get("content")
    if not isinstance(content, str):
        return "" if content is None else str(content)
    if line.get("type") == "summary" or not values:
        return content
    return line_macros_replace(line, values)


@register.filter
def player_name(line: dict[str, Any], names: dict[tuple, str] | None) -> str:
    """`{{ line|player_name:player_names }}`: the player line's name (selectors.
    player_names_carried), "" where the page shows the current persona."""
    return str(line.get("name") or "") or (names or {}).get(player_line_key(line), "")


@register.filter
def line_shown(line: dict[str, Any], display: LineDisplay | None) -> str:
    """`{{ line|line_shown:line_display }}`: the line as the page shows it (macros, then the
    markdown-only regex scripts)."""
    if display is None or line.get("type") == "summary" or not isinstance(line.get("content"), str):
        return _marker_worded(line, line_text(line, None))
    return _marker_worded(line, display.text(line))


@register.filter
def reasoning_shown(line: dict[str, Any], display: LineDisplay | None) -> str:
    """`{{ line|reasoning_shown:line_display }}`: the reasoning after the markdown-only
    reasoning scripts."""
    return str(line.get("reasoning") or "") if display is None else display.reasoning(line)


def _marker_worded(line: dict[str, Any], text: str) -> str:
    """The file's fixed words for an empty or failed reply (SPEC §3: "(无回复)", "(系统错误: …)")
    in the page's language; the file keeps them as written."""
    if line.get("empty") and text.strip() == EMPTY_REPLY:
        return gettext("(no reply)")
    at = text.rfind(ERROR_REPLY_OPENING) if line.get("error") else -1
    if at < 0 or not text.endswith(")"):
        return text
    error = text[at + len(ERROR_REPLY_OPENING):-1]
    return text[:at] + gettext("(system error: %(error)s)") % {"error": error}


@register.filter
def speaker_avatar(line: dict[str, Any], avatars: dict[str, str | None] | None) -> str | None:
    """`{{ line|speaker_avatar:speaker_avatars }}`: the picture of the member who said it."""
    return (avatars or {}).get(str(line.get("speaker") or ""))
