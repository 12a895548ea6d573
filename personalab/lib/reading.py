"""How an account's chats read: text size, chat width on a wide screen, message style,
times and message numbers shown or not, colour theme, the messages' font and the player's time
zone (SillyTavern's "User Settings → UI theme", the few
that matter for an evening of reading). Framework-free: the values, their defaults, and the
stored settings made whole."""

from __future__ import annotations

import re
from typing import Any

from personalab.lib.time_zones import zone_named

# Each value is one CSS rule set (static/app.css, `html[data-reading-*]`): a choice, not a
# number, since the page's Content-Security-Policy refuses inline styles.
TEXT_SIZES = ("90", "100", "115", "130", "150")
CHAT_WIDTHS = ("narrow", "medium", "full")
MESSAGE_STYLES = ("bubbles", "flat", "document")
# Colour presets, each in light and dark (night is dark in both); fonts are local stacks only.
THEMES = ("default", "paper", "contrast", "night")
FONTS = ("sans", "serif", "mono")
# One's own accent colour (SillyTavern users keep theirs): "#rrggbb", or "" for the theme's.
# Only a colour, never a stylesheet: static/accent.js derives the readable shades from it.
ACCENT_PATTERN = r"^(#[0-9a-fA-F]{6})?$"

READING_DEFAULTS: dict[str, Any] = {
    "text_size": "100", "chat_width": "full", "message_style": "bubbles",
    "timestamps": True, "message_numbers": False, "theme": "default", "font": "sans", "accent": "",
    "time_zone": "",
}
_CHOICES = {"text_size": TEXT_SIZES, "chat_width": CHAT_WIDTHS, "message_style": MESSAGE_STYLES,
            "theme": THEMES, "font": FONTS}


def _valid(key: str, value: Any) -> bool:
    if key == "accent":
        return isinstance(value, str) and re.fullmatch(ACCENT_PATTERN, value) is not None
    if key == "time_zone":  # the browser's IANA zone, for the clock macros; "" the server's
        return value == "" or zone_named(value) is not None
    return value in _CHOICES[key] if key in _CHOICES else isinstance(value, bool)


def reading_whole(stored: Any) -> dict[str, Any]:
    """Every setting, a stored one when it is still a valid value, else its default (a file
    edited by hand never breaks a page)."""
    stored = stored if isinstance(stored, dict) else {}
    return {key: stored[key] if _valid(key, stored.get(key)) else default
            for key, default in READING_DEFAULTS.items()}
