"""The REST refusals a user meets most (an id not found, a busy chat, a file too large, too
many imports at once) in the request's language. The floors below write them in fixed English;
the English stays word for word as written (a program may compare it, though `code` is what
it should read) and a message not listed here goes as it came."""

from __future__ import annotations

import re

from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, pgettext, pgettext_lazy

from chat.import_export.refusal_words import chat_refusal_words
from library.field_words import field_words
from library.json_words import json_words
from library.refusal_words import refusal_words
from personalab.error_sentences import SENTENCES
from personalab.lib.errors import AppError, error_reader_set
from personalab.lib.worded_forms import (
    ANY_FIGURE,
    PLACEHOLDER,
    Forms,
    form_named,
    sentence_form,
)
from personalab.limit_words import error_words

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


# A figure a sentence writes as a number (a count, a limit, a byte offset, seconds).
NUMBER = r"-?[\d.,]{1,24}"
FIGURES = {name: NUMBER for name in ("count", "limit", "length", "number", "seconds")}
FIGURES["detail"] = ANY_FIGURE  # a parser's own words may hold brackets and quotes
# The sentence with the most words of its own is tried first: "Input should be %(expected)s"
# also reads "Input should be greater than 5", which has a sentence of its own.
SENTENCE_FORMS: Forms = [
    (sentence_form(sentence, FIGURES), gettext_lazy(sentence))
    for sentence in sorted(SENTENCES, key=lambda sentence: -len(PLACEHOLDER.sub("", sentence)))]
# The kinds of thing a sentence names by its English word ("character 'x' not found").
KIND_WORDS = {
    "character": pgettext_lazy("kind of item", "character"),
    "background": pgettext_lazy("kind of item", "background"),
    "lorebook": pgettext_lazy("kind of item", "lorebook"),
    "persona": pgettext_lazy("kind of item", "persona"),
    "instance": pgettext_lazy("kind of item", "instance"),
    "session": pgettext_lazy("kind of item", "session"),
    "regex script": pgettext_lazy("kind of item", "regex script"),
    "character id": pgettext_lazy("kind of item", "character id"),
    "background id": pgettext_lazy("kind of item", "background id"),
    "lorebook id": pgettext_lazy("kind of item", "lorebook id"),
    "speaker": pgettext_lazy("kind of item", "speaker"),
}
# The longest message read back through the sentences; a longer one goes as written.
SAID_MAX_CHARS = 2000


def error_said(message: str) -> str:
    """An error's message in the active language when its form is listed here, is one of the
    SENTENCES, an importer's refusal (library's, chat's) or a validator's sentence
    (library/field_words: "must be a whole number"), else as written. A reason inside a
    sentence ("the turn cannot start: %(reason)s") is said the same way."""
    if len(message) > SAID_MAX_CHARS or (translation.get_language() or "en")[:2] == "en":
        return message  # the importers' tables reword their English; the API's stays as raised
    worded = form_named(message, FORMS) or form_named(
        message, SENTENCE_FORMS, {"kind": KIND_WORDS},
        {"reason": error_said, "expected": _choices_said})
    if worded:
        return json_words(worded)
    for say in (refusal_words, chat_refusal_words, field_words):
        worded = say(message)
        if worded != message:
            return json_words(worded)
    return json_words(message)


def _choices_said(choices: str) -> str:
    """pydantic's quoted choices ("'a', 'b' or 'c'") joined as the active language joins them."""
    return choices.replace("', '", "'" + pgettext("between two choices", ", ") + "'").replace(
        "' or '", "'" + pgettext("before the last choice", " or ") + "'")


def error_fields_said(fields: dict[str, str]) -> dict[str, str]:
    """Each field's words in the active language: a refusal's own sentence (an id not found,
    named by `naming_field`) or a validator's."""
    return {name: error_said(str(text)) for name, text in fields.items()}


def validation_said(fields: dict[str, str]) -> str:
    """A body that does not fit, every field at fault with its reason, in the active language
    (the English as it always read: "query: Field required; turn: Input should be …")."""
    return pgettext("between a request's refusals", "; ").join(
        gettext("%(field)s: %(reason)s") % {"field": name, "reason": reason}
        for name, reason in error_fields_said(fields).items())


def refusal_said(message: str, fields: dict[str, str]) -> str:
    """A refusal's message in the active language; one that is its fields' reasons joined
    ("name: …; tags: …") is said field by field."""
    reasons = {name: str(text) for name, text in fields.items()}
    if reasons and message == "; ".join(f"{name}: {text}" for name, text in reasons.items()):
        return validation_said(reasons)
    return error_said(message)


def app_error_said(error: AppError) -> str:
    """An AppError's message as the API and the pages' handler say it to this reader."""
    return refusal_said(error_words(error), error.fields)


error_reader_set(app_error_said)
