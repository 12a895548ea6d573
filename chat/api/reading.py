"""`/api/v1/reading`: how your chats read (text size, chat width, message style, times and
message numbers, colours, accent colour, font, time zone), per account; the chat page, the
history and the settings page apply it."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field, StrictBool, field_validator

from chat.services.reading import reading_settings_read, reading_settings_update
from personalab.lib.body_fields import ClosedBody
from personalab.lib.reading import (
    ACCENT_PATTERN,
    CHAT_WIDTHS,
    FONTS,
    MESSAGE_STYLES,
    TEXT_SIZES,
    THEMES,
)
from personalab.lib.time_zones import MAX_ZONE_CHARS, zone_named
from personalab.storage import get_store

router = Router(tags=["reading"])

TextSize = Literal[TEXT_SIZES]
ChatWidth = Literal[CHAT_WIDTHS]
MessageStyle = Literal[MESSAGE_STYLES]
Theme = Literal[THEMES]
Font = Literal[FONTS]


class ReadingIn(ClosedBody):
    text_size: TextSize | None = Field(None, description="the messages' text size, in % (100 is normal)")
    chat_width: ChatWidth | None = Field(
        None, description="the conversation's width on a wide screen (a phone always uses all of it)")
    message_style: MessageStyle | None = Field(
        None, description="bubbles (pictures and coloured boxes), flat (lines between messages) or "
                          "document (no pictures, one column of text)")
    timestamps: StrictBool | None = Field(None, description="each message's time shown")
    message_numbers: StrictBool | None = Field(None, description="each message's number (#0 is the first) shown")
    theme: Theme | None = Field(None, description="the page's colours: default, paper (warm), contrast "
                                                  "(high contrast) or night (dark blue, also in light mode)")
    font: Font | None = Field(None, description="the messages' font: sans, serif or mono (fonts of the device)")
    accent: str | None = Field(
        None, pattern=ACCENT_PATTERN,
        description='your own accent colour, "#rrggbb", or "" for the theme\'s; the pages keep text and '
                    "lines drawn in it readable (a darker or lighter shade where needed)")
    time_zone: str | None = Field(
        None, max_length=MAX_ZONE_CHARS,
        description='your time zone\'s IANA name ("Asia/Shanghai"), or "" for the server\'s: '
                    "{{time}}, {{date}} and the other clock macros read it; the chat page sends "
                    "the browser's")

    @field_validator("time_zone")
    @classmethod
    def _zone_known(cls, value: str | None) -> str | None:
        if value and zone_named(value) is None:
            raise ValueError("not a known time zone")
        return value


class ReadingOut(Schema):
    text_size: TextSize
    chat_width: ChatWidth
    message_style: MessageStyle
    timestamps: bool
    message_numbers: bool
    theme: Theme
    font: Font
    accent: str
    time_zone: str


@router.get("/reading", response=ReadingOut)
def reading_get(request: HttpRequest):
    """Your reading settings (each one never set is its default)."""
    return reading_settings_read(get_store(), user=request.auth)


@router.put("/reading", response=ReadingOut)
def reading_put(request: HttpRequest, payload: ReadingIn):
    """Change the settings sent; the others keep their values."""
    changes = payload.model_dump(exclude_none=True)
    if "accent" in changes:
        changes["accent"] = changes["accent"].lower()
    return reading_settings_update(get_store(), user=request.auth, changes=changes)
