"""A field's refusal in the reader's language: the validators below the pages (lorebook,
regex scripts, cards, settings) say what is wrong with a field in fixed English sentences
("must be a whole number", "must be between 0 and 100"); the page and the API say them
through here, so 中文 reads 必须是整数. A sentence not in the table is shown as it came."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.utils.translation import gettext, gettext_noop

from library.json_words import json_words

# The validators' sentences, each one a msgid as written (English stays word for word what
# the validator wrote: API clients may compare it); %(name)s stands for a figure or a list.
SENTENCES = (
    gettext_noop("required"), gettext_noop("required here"),
    gettext_noop("must be a whole number"), gettext_noop("must be a number"),
    gettext_noop("must be true or false"), gettext_noop("must be text"),
    gettext_noop("must be a string"), gettext_noop("must be an object"),
    gettext_noop("not an object"), gettext_noop("must be a list"),
    gettext_noop("must be a list of text"), gettext_noop("must be a list of text keys"),
    gettext_noop("must be a list of strings"),
    gettext_noop("must be between %(low)s and %(high)s"),
    gettext_noop("must be a number between %(low)s and %(high)s"),
    gettext_noop("must be a number from %(low)s to %(high)s"),
    gettext_noop("must be a whole number from %(low)s to %(high)s"),
    gettext_noop("must be empty or a whole number from %(low)s to %(high)s"),
    gettext_noop("must be text of at most %(limit)s characters"),
    gettext_noop("must be at most %(limit)s characters"),
    gettext_noop("at most %(limit)s characters"), gettext_noop("at most %(count)s entries"),
    gettext_noop("at most %(count)s scripts"), gettext_noop("at least %(count)s"),
    gettext_noop("at most %(limit)s characters in all"),
    gettext_noop("must be one of: %(choices)s"), gettext_noop("must be one of %(choices)s"),
    gettext_noop("must be an http:// or https:// URL"),
    gettext_noop("uid %(uid)s is used by another entry"),
    gettext_noop("must be a persona name of 1 to %(limit)s characters"),
    gettext_noop("must be 'private' or 'shared'"),
    gettext_noop("must be a list of lorebook ids"),
    gettext_noop("must be a list of regex scripts"),
    gettext_noop("must be text (/pattern/flags)"),
    # library/avatars.py: a picture refused, the sentence and the field's note
    gettext_noop("avatar must be a PNG, JPEG, GIF or WebP image"),
    gettext_noop("avatar is larger than 2 MB"),
    gettext_noop("picture must be a PNG, JPEG, GIF or WebP image"),
    gettext_noop("picture is larger than 2 MB"),
    gettext_noop("PNG, JPEG, GIF or WebP"), gettext_noop("at most 2 MB"),
    # library/card_formats: a card field's range, tags, a JSON box's parse error
    gettext_noop("a number from %(low)s to %(high)s"),
    gettext_noop("a whole number from %(low)s to %(high)s"),
    gettext_noop("at most %(count)s tags of at most %(limit)s characters each"),
    gettext_noop("not valid JSON: %(detail)s"),
)
# A list of choices has words, commas and spaces; a parser's detail (the JSON decoder's "Expecting
# ',' delimiter: line 1 column 42") stays as written; any other figure is one number.
FIGURES = {"choices": r"[\w ,.'-]+", "detail": r"(?s:.{1,1000})"}
PLACEHOLDER = re.compile(r"%\\\(([a-z]+)\\\)s")


def _pattern(msgid: str) -> re.Pattern[str]:
    return re.compile(PLACEHOLDER.sub(
        lambda found: f"(?P<{found[1]}>" + FIGURES.get(found[1], r"-?[\d.,]+") + ")",
        re.escape(msgid)))


PATTERNS = [(_pattern(msgid), msgid) for msgid in SENTENCES]


def field_words(sentence: str) -> str:
    """`sentence` (a validator's, about one field) in the active language."""
    for pattern, words in PATTERNS:
        found = pattern.fullmatch(sentence)
        if found:
            return json_words(gettext(words) % found.groupdict() if found.groupdict()
                              else gettext(words))
    return sentence


def fields_words(fields: Mapping[str, str]) -> dict[str, str]:
    """Each field's sentence in the active language."""
    return {name: field_words(str(text)) for name, text in fields.items()}
