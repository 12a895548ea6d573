"""The REST refusals a user meets most (an id not found, a busy chat, a file too large, too
many imports at once) in the request's language. The floors below write them in fixed English;
the English stays word for word as written (a program may compare it, though `code` is what
it should read) and a message not listed here goes as it came."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy

from library.field_words import field_words
from personalab.lib.worded_forms import form_named

# An id as Python's repr quotes it; one holding a quote is repr'd otherwise and left as written.
ID = r"'(?P<id>[^'\n]{1,200})'"
FORMS = [
    (re.compile(rf"instance {ID} not found"), gettext_lazy("instance '%(id)s' not found")),
    (re.compile(rf"session {ID} not found"), gettext_lazy("session '%(id)s' not found")),
    (re.compile(rf"trace {ID} not found"), gettext_lazy("trace '%(id)s' not found")),
    (re.compile(rf"character {ID} not found"), gettext_lazy("character '%(id)s' not found")),
    (re.compile(rf"background {ID} not found"), gettext_lazy("background '%(id)s' not found")),
    (re.compile(rf"lorebook {ID} not found"), gettext_lazy("lorebook '%(id)s' not found")),
    (re.compile(rf"persona {ID} not found"), gettext_lazy("persona '%(id)s' not found")),
    (re.compile(rf"{ID} is not a member of this conversation"),
     gettext_lazy("'%(id)s' is not a member of this conversation")),
    (re.compile(rf"session {ID} has no turn (?P<turn>\d{{1,12}}) \(its last is "
                r"(?P<last>-?\d{1,12})\)"),
     gettext_lazy("session '%(id)s' has no turn %(turn)s (its last is %(last)s)")),
    (re.compile(r"no such turn"), gettext_lazy("no such turn")),
    (re.compile(r"instance (?P<id>[a-z0-9_][a-z0-9_-]{0,63}) is busy: a reply is streaming or "
                r"another change is running; wait for it to finish"),
     gettext_lazy("instance %(id)s is busy: a reply is streaming or another change is running; "
                  "wait for it to finish")),
    (re.compile(r"busy: a reply is streaming or another change is running on this instance; "
                r"try again when it has finished"),
     gettext_lazy("busy: a reply is streaming or another change is running on this instance; "
                  "try again when it has finished")),
    (re.compile(r"you already have (?P<slots>\d{1,6}) imports running; wait until one "
                r"finishes, then try again"),
     gettext_lazy("you already have %(slots)s imports running; wait until one finishes, then "
                  "try again")),
    (re.compile(r"you already have (?P<slots>\d{1,6}) exports running; wait until one "
                r"finishes, then try again"),
     gettext_lazy("you already have %(slots)s exports running; wait until one finishes, then "
                  "try again")),
    (re.compile(r"request body is too large"), gettext_lazy("request body is too large")),
    (re.compile(r"file is larger than 10 MB"), gettext_lazy("file is larger than 10 MB")),
    (re.compile(r"at most 10 MB"), gettext_lazy("at most 10 MB")),
    (re.compile(r"no API endpoint at (?P<path>/[^\n]{0,500})"),
     gettext_lazy("no API endpoint at %(path)s")),
]


def error_said(message: str) -> str:
    """An error's message in the active language when its form is listed here or is a
    validator's sentence (library/field_words: "must be a whole number"), else as written."""
    return form_named(message, FORMS) or field_words(message)


def error_fields_said(fields: dict[str, str]) -> dict[str, str]:
    """Each field's words in the active language: a refusal's own sentence (an id not found,
    named by `naming_field`) or a validator's."""
    return {name: error_said(str(text)) for name, text in fields.items()}
