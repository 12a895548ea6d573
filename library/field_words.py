"""A field's refusal in the reader's language: the validators below the pages (lorebook,
regex scripts, cards, settings) say what is wrong with a field in fixed English sentences
("must be a whole number", "must be between 0 and 100"); the page and the API say them
through here, so 中文 reads 必须是整数. A sentence not in the table is shown as it came."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.utils.translation import gettext, gettext_noop

# (the validator's sentence, whole, with its figures as named groups; the same sentence as a
# msgid). English reads exactly as the validator wrote it (API clients may compare it).
SENTENCES = [(re.compile(pattern), words) for pattern, words in (
    (r"required", gettext_noop("required")),
    (r"required here", gettext_noop("required here")),
    (r"must be a whole number", gettext_noop("must be a whole number")),
    (r"must be a number", gettext_noop("must be a number")),
    (r"must be true or false", gettext_noop("must be true or false")),
    (r"must be text", gettext_noop("must be text")),
    (r"must be a string", gettext_noop("must be a string")),
    (r"must be an object", gettext_noop("must be an object")),
    (r"not an object", gettext_noop("not an object")),
    (r"must be a list", gettext_noop("must be a list")),
    (r"must be a list of text", gettext_noop("must be a list of text")),
    (r"must be a list of text keys", gettext_noop("must be a list of text keys")),
    (r"must be a list of strings", gettext_noop("must be a list of strings")),
    (r"must be between (?P<low>-?[\d.,]+) and (?P<high>-?[\d.,]+)",
     gettext_noop("must be between %(low)s and %(high)s")),
    (r"must be a number between (?P<low>-?[\d.,]+) and (?P<high>-?[\d.,]+)",
     gettext_noop("must be a number between %(low)s and %(high)s")),
    (r"must be a number from (?P<low>-?[\d.,]+) to (?P<high>-?[\d.,]+)",
     gettext_noop("must be a number from %(low)s to %(high)s")),
    (r"must be a whole number from (?P<low>-?[\d,]+) to (?P<high>-?[\d,]+)",
     gettext_noop("must be a whole number from %(low)s to %(high)s")),
    (r"must be empty or a whole number from (?P<low>-?[\d,]+) to (?P<high>-?[\d,]+)",
     gettext_noop("must be empty or a whole number from %(low)s to %(high)s")),
    (r"must be text of at most (?P<limit>[\d,]+) characters",
     gettext_noop("must be text of at most %(limit)s characters")),
    (r"must be at most (?P<limit>[\d,]+) characters",
     gettext_noop("must be at most %(limit)s characters")),
    (r"at most (?P<limit>[\d,]+) characters", gettext_noop("at most %(limit)s characters")),
    (r"at most (?P<count>[\d,]+) entries", gettext_noop("at most %(count)s entries")),
    (r"at most (?P<count>[\d,]+) scripts", gettext_noop("at most %(count)s scripts")),
    (r"at least (?P<count>[\d,]+)", gettext_noop("at least %(count)s")),
    (r"must be one of: (?P<choices>[\w ,.-]+)", gettext_noop("must be one of: %(choices)s")),
    (r"must be one of (?P<choices>[\w ,.-]+)", gettext_noop("must be one of %(choices)s")),
    (r"must be an http:// or https:// URL", gettext_noop("must be an http:// or https:// URL")),
    (r"uid (?P<uid>\d+) is used by another entry",
     gettext_noop("uid %(uid)s is used by another entry")),
    (r"must be a persona name of 1 to (?P<limit>[\d,]+) characters",
     gettext_noop("must be a persona name of 1 to %(limit)s characters")),
    (r"must be 'private' or 'shared'", gettext_noop("must be 'private' or 'shared'")),
    (r"must be a list of lorebook ids", gettext_noop("must be a list of lorebook ids")),
    (r"must be a list of regex scripts", gettext_noop("must be a list of regex scripts")),
    (r"must be text \(/pattern/flags\)", gettext_noop("must be text (/pattern/flags)")),
)]


def field_words(sentence: str) -> str:
    """`sentence` (a validator's, about one field) in the active language."""
    for pattern, words in SENTENCES:
        found = pattern.fullmatch(sentence)
        if found:
            return gettext(words) % found.groupdict() if found.groupdict() else gettext(words)
    return sentence


def fields_words(fields: Mapping[str, str]) -> dict[str, str]:
    """Each field's sentence in the active language."""
    return {name: field_words(str(text)) for name, text in fields.items()}
