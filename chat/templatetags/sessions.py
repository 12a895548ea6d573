"""`{{ session_id|session_label }}`: a session as players name it, "conversation 3" for
`sess_003` (sessions are numbered in the order they start, personalab/lib/ids.py), never its id;
a session whose id carries no number (made by hand) keeps its id, the only name it has."""

from __future__ import annotations

import re

from django import template
from django.utils.text import capfirst
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from library.json_words import json_words
from personalab.lib.ordinals import ordinal_ending

register = template.Library()

PREFIX = "sess_"


def _numbered(session_id: object, words: str) -> str:
    """`words` with the session's number, or the id of a session that has none."""
    text = str(session_id or "")
    number = text.removeprefix(PREFIX)
    if text.startswith(PREFIX) and number.isdigit():
        return gettext(words) % {"number": int(number)}
    return text


@register.filter
def session_label(session_id: object) -> str:
    return _numbered(session_id, gettext_noop("conversation %(number)s"))


@register.filter
def session_label_short(session_id: object) -> str:
    """The label a phone's chat header has room for ("conv. 3")."""
    return _numbered(session_id, gettext_noop("conv. %(number)s"))


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


# Why a chat import skipped a message (chat/import_export/chat_formats.py writes them in English).
SKIP_REASONS = {
    "empty message": gettext_lazy("the message is empty"),
    "message has no 'mes' text": gettext_lazy("the message has no text ('mes')"),
    "message has neither 'is_user' nor 'name'":
        gettext_lazy("the message says neither who wrote it ('name') nor whether the player "
                     "did ('is_user')"),
    "expected a JSON object": gettext_lazy("the line is not a message (a JSON object)"),
    "message is not a JSON object": gettext_lazy("the line is not a message (a JSON object)"),
    "neither a chat header nor a message":
        gettext_lazy("the line is neither a chat's header nor a message"),
}


@register.filter
def skip_reason(reason: object) -> str:
    """A skipped message's reason in the page's language (one not listed: as written; a line
    that is not JSON keeps the parser's own words after it)."""
    text = str(reason or "")
    if text.startswith("not valid JSON ("):
        return gettext("the line is not valid JSON (%(detail)s)") % {
            "detail": json_words(text.removeprefix("not valid JSON (").removesuffix(")"))}
    return str(SKIP_REASONS.get(text, text))


# What a chat import guessed or did (chat/import_export/chat_formats.py, chat/services/session_import.py
# write the notes in English); a note about one message starts "message N: ".
IMPORT_NOTES = {
    "no is_user, guessed from the name":
        gettext_lazy("it does not say whether the player wrote it ('is_user'), so its "
                     "speaker's name decided"),
    "This RisuAI chat is a group chat: its replies name their characters by RisuAI's ids "
    "only, so they come in as this story's character's.":
        gettext_lazy("This RisuAI chat is a group chat: its replies name their characters by "
                     "RisuAI's ids only, so they come in as this story's character's."),
    "The chat starts with the character's first message, which RisuAI keeps outside the chat "
    "file.":
        gettext_lazy("The chat starts with the character's first message, which RisuAI keeps "
                     "outside the chat file."),
}
# "line N" of an Agnai or RisuAI chat is its Nth message already.
NOTE_MESSAGE = re.compile(r"(?:message|line) (\d+): (.+)", re.DOTALL)
NOTE_GREETING = re.compile(r"(The chat starts with .+ the chat file) \(greeting (\d+) of (\d+)\)\.")
# chat/services/session_import.py's `_player_named` (each name cut at 80 characters).
NOTE_PLAYER = re.compile(r"In this chat the player was (.{1,500}?); your new lines are (.{1,80})'s\. "
                         r"To go on as them, press \"Play as\" below, or pick or make that "
                         r"persona under \"You are\"\.", re.DOTALL)


@register.filter
def import_note(note: object) -> str:
    """A chat import's note in the page's language, a message named as a reader counts it
    ("The 4th message: …", not "line 5: …"); a note not listed stays as written."""
    text = str(note or "")
    about = NOTE_MESSAGE.fullmatch(text)
    if about:
        which = capfirst(message_nth(int(about[1])))
        return f"{gettext('%(which)s:') % {'which': which}} {import_note(about[2])}"
    greeting = NOTE_GREETING.fullmatch(text)
    if greeting:
        return gettext("The chat starts with the character's first message, which RisuAI "
                       "keeps outside the chat file (greeting %(n)s of %(count)s).") % {
            "n": greeting[2], "count": greeting[3]}
    player = NOTE_PLAYER.fullmatch(text)
    if player:
        return gettext("In this chat the player was %(names)s; your new lines are %(playing)s's. "
                       "To go on as them, press “Play as” below, or pick or make that persona "
                       "under “You are”.") % {"names": player[1], "playing": player[2]}
    return str(IMPORT_NOTES.get(text, text))
